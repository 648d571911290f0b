/**
 * What the project fields `scene` and `configFiveFunction` switch (spec §3 Project fields; docs/decisions.md
 * "Project fields: scene, configFiveFunction, fileConfirmConfig, uuidNo"). Both work the way a closed project does
 * (spec §4): they cut the permissions a member holds in the project, so the server refuses the calls of a switched-off
 * function (the guard answers PROJECT_FEATURE_OFF) and the web app, which only mirrors the server's pms, hides its
 * menus and buttons. One table, used by the guard, the background jobs and the project settings screen.
 */

/** spec §3: scene 1 remote monitoring, 2 E2E (eSource to EDC). */
export const PROJECT_SCENES = [1, 2] as const;
export type ProjectScene = (typeof PROJECT_SCENES)[number];

/**
 * Permissions (by `module:resource` prefix) that only an E2E project (scene 2) has: the EDC pipeline — EDC
 * configuration, mapping, sync (manual and scheduled) and the EDC upload log. A remote-monitoring project (scene 1)
 * works on source documents, their review and SDV/SDR without sending data to an EDC.
 */
export const E2E_ONLY_PREFIXES: readonly string[] = ['edc:', 'prolog:upload-edc-log:'];

/**
 * The five optional functions of `configFiveFunction`, in the order of its characters: '1' on, '0' off; a missing
 * character (the default '' included) is on, so a project created before the switch existed keeps every function.
 */
export const FIVE_FUNCTIONS = [
  /** queries between staff, manual and automatic (doubt:*) */
  { key: 'queries', prefixes: ['doubt:'] },
  /** SDV/SDR marks and the verification list (verification:*) */
  { key: 'verification', prefixes: ['verification:'] },
  /** AE/CM/PR/MH/HISS judgement and the signal report (clinical:*) */
  { key: 'safety', prefixes: ['clinical:'] },
  /** the investigator site file (isf:*) */
  { key: 'isf', prefixes: ['isf:'] },
  /** the subject casebook PDF (crf:casebook:*) */
  { key: 'casebook', prefixes: ['crf:casebook:'] },
] as const;
export type FiveFunction = (typeof FIVE_FUNCTIONS)[number]['key'];
export const FIVE_FUNCTION_KEYS: readonly FiveFunction[] = FIVE_FUNCTIONS.map((f) => f.key);

/** configFiveFunction as stored: at most five characters, each 0 or 1 ('' = every function on). */
export const CONFIG_FIVE_FUNCTION_PATTERN = /^[01]{0,5}$/;

/** Which of the five functions configFiveFunction turns on (anything but '0' at a position is on). */
export function fiveFunctionsOf(config: string | null | undefined): Record<FiveFunction, boolean> {
  const s = config ?? '';
  return Object.fromEntries(FIVE_FUNCTIONS.map((f, i) => [f.key, s.charAt(i) !== '0'])) as Record<
    FiveFunction,
    boolean
  >;
}

/** The stored form of a choice of functions: always five characters. */
export function fiveFunctionString(on: Partial<Record<FiveFunction, boolean>>): string {
  return FIVE_FUNCTIONS.map((f) => (on[f.key] === false ? '0' : '1')).join('');
}

/** What a project's configuration switches: its scene and its five functions. */
export interface ProjectSwitches {
  scene: number;
  configFiveFunction: string;
}

/** The function (scene or one of the five) that switches a permission off in this project, or null if it is on. */
export function featureOffFor(permission: string, p: ProjectSwitches): 'e2e' | FiveFunction | null {
  if (p.scene !== 2 && E2E_ONLY_PREFIXES.some((x) => permission.startsWith(x))) return 'e2e';
  const on = fiveFunctionsOf(p.configFiveFunction);
  for (const f of FIVE_FUNCTIONS) {
    if (!on[f.key] && f.prefixes.some((x) => permission.startsWith(x))) return f.key;
  }
  return null;
}

/** The permissions left once the project's scene and five functions are applied. */
export function projectFeaturePermissions(
  pms: Iterable<string>,
  p: ProjectSwitches | null | undefined,
): string[] {
  const list = [...pms];
  if (!p) return list;
  return list.filter((x) => featureOffFor(x, p) === null);
}

/** Whether a function is on in the project (for background work that has no member's permissions to cut). */
export function projectFunctionOn(p: ProjectSwitches, fn: FiveFunction | 'e2e'): boolean {
  return fn === 'e2e' ? p.scene === 2 : fiveFunctionsOf(p.configFiveFunction)[fn];
}
