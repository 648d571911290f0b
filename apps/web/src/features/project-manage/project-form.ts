import {
  FIVE_FUNCTION_KEYS,
  fiveFunctionString,
  fiveFunctionsOf,
  type FiveFunction,
  type ProjectDetail,
} from '@esource/shared';
import { ApiError } from '../../lib/api-client';

/** What the create / edit dialog holds (switches are booleans; the API wants 0/1 for fileConfirmConfig). */
export interface ProjectFormValues {
  no: string;
  name: string;
  scene: 1 | 2;
  fileConfirmConfig: boolean;
  autoPrefillDisabled: boolean;
  /** the optional functions switched on (configFiveFunction, one character each) */
  functions: FiveFunction[];
}

export interface ProjectBody {
  no: string;
  name: string;
  scene: number;
  fileConfirmConfig: 0 | 1;
  autoPrefillDisabled: boolean;
  configFiveFunction: string;
}

export type ProjectPatch = { id: number; version: number } & Partial<ProjectBody>;

export const EMPTY_PROJECT: ProjectFormValues = {
  no: '',
  name: '',
  scene: 1,
  fileConfirmConfig: false,
  autoPrefillDisabled: false,
  functions: [...FIVE_FUNCTION_KEYS],
};

/** The functions switched on → configFiveFunction ('' when all are: the default, as for a project made before). */
export function functionsString(on: readonly FiveFunction[]): string {
  if (FIVE_FUNCTION_KEYS.every((k) => on.includes(k))) return '';
  return fiveFunctionString(Object.fromEntries(FIVE_FUNCTION_KEYS.map((k) => [k, on.includes(k)])));
}

/** configFiveFunction → the functions switched on. */
export function functionsOf(config: string): FiveFunction[] {
  const on = fiveFunctionsOf(config);
  return FIVE_FUNCTION_KEYS.filter((k) => on[k]);
}

/** Dialog values → POST /pro/info/add body. */
export function projectBody(v: ProjectFormValues): ProjectBody {
  return {
    no: v.no.trim(),
    name: v.name.trim(),
    scene: v.scene,
    fileConfirmConfig: v.fileConfirmConfig ? 1 : 0,
    autoPrefillDisabled: v.autoPrefillDisabled,
    configFiveFunction: functionsString(v.functions ?? FIVE_FUNCTION_KEYS),
  };
}

/** A project as the dialog shows it. */
export function projectFormValues(p: ProjectDetail): ProjectFormValues {
  return {
    no: p.no,
    name: p.name,
    scene: p.scene === 2 ? 2 : 1,
    fileConfirmConfig: p.fileConfirmConfig === 1,
    autoPrefillDisabled: p.autoPrefillDisabled,
    functions: functionsOf(p.configFiveFunction),
  };
}

/**
 * POST /pro/info/update body: only the fields that changed (the server's update is partial), plus id and the
 * `version` the dialog was opened with, so that someone else's change in between is refused (STALE_WRITE).
 * Null when nothing changed.
 */
export function projectPatch(before: ProjectDetail, v: ProjectFormValues): ProjectPatch | null {
  const next = projectBody(v);
  const prev = projectBody(projectFormValues(before));
  const patch: ProjectPatch = { id: before.id, version: before.version };
  let changed = false;
  for (const k of Object.keys(next) as (keyof ProjectBody)[]) {
    if (next[k] !== prev[k]) {
      (patch as Record<string, unknown>)[k] = next[k];
      changed = true;
    }
  }
  return changed ? patch : null;
}

export interface ServerProblems {
  /** messages per form field */
  fields: { name: string; errors: string[] }[];
  /** what could not be put on a field */
  general: string | null;
  errorCode: string | null;
}

/**
 * Turns a failed write into messages for the form: the `detail` of a VALIDATION answer goes on the named fields
 * (paths like `definition.name` match their last known part); a DUPLICATE / INVALID_REFERENCE answer names its
 * field at the start of the message (the envelope carries no field for those), so it is matched there.
 */
export function serverProblems(err: unknown, known: readonly string[]): ServerProblems {
  if (!(err instanceof ApiError))
    return { fields: [], general: err instanceof Error ? err.message : String(err), errorCode: null };
  const byField = new Map<string, string[]>();
  const rest: string[] = [];
  for (const d of err.detail) {
    const name = known.find((k) => d.field === k || d.field.split('.').includes(k));
    if (name) byField.set(name, [...(byField.get(name) ?? []), d.message]);
    else rest.push(d.field ? `${d.field}: ${d.message}` : d.message);
  }
  if (err.detail.length === 0) {
    const name =
      err.errorCode === 'DUPLICATE' || err.errorCode === 'INVALID_REFERENCE'
        ? known.find((k) => err.message.startsWith(k))
        : undefined;
    if (name) byField.set(name, [err.message]);
    else rest.push(err.message);
  }
  return {
    fields: [...byField.entries()].map(([name, errors]) => ({ name, errors })),
    general: rest.length ? rest.join('; ') : null,
    errorCode: err.errorCode,
  };
}
