/**
 * Pure helpers of the source-data screens: document-type keys, how a record's value reads, the raw payload as it
 * came (pretty JSON for FHIR and SQL rows, one line per segment for HL7 v2), records grouped by day for the
 * timeline, and the connection form ↔ the save contract (secrets are write-only).
 */
import {
  FHIR_SEARCH_TYPES,
  SOURCE_DOC_TYPES,
  TASK_STATUS,
  type ConnectionKind,
  type ConnectionSave,
  type ConnectionView,
} from '@esource/shared';

export type DocTypeKey = (typeof SOURCE_DOC_TYPES)[number];

/** 1..8 → the SOURCE_DOC_TYPES key (the i18n key under `docType.`); an unknown number → null. */
export function docTypeKey(n: number): DocTypeKey | null {
  return SOURCE_DOC_TYPES[n - 1] ?? null;
}

export const DOC_TYPE_COLOR: Record<DocTypeKey, string> = {
  courseRecord: 'default',
  examination: 'cyan',
  test: 'blue',
  doctorAdvice: 'purple',
  pathology: 'magenta',
  surgery: 'volcano',
  vitalSigns: 'green',
  diagnosis: 'gold',
};

export type TaskStatusKey = keyof typeof TASK_STATUS;
const STATUS_BY_NO = Object.fromEntries(Object.entries(TASK_STATUS).map(([k, v]) => [v, k])) as Record<
  number,
  TaskStatusKey
>;
export function taskStatusKey(status: number): TaskStatusKey {
  return STATUS_BY_NO[status] ?? 'queued';
}
export const TASK_STATUS_COLOR: Record<TaskStatusKey, string> = {
  queued: 'default',
  running: 'processing',
  done: 'success',
  failed: 'error',
  cancelled: 'warning',
};
export const isLive = (status: number) => status === TASK_STATUS.queued || status === TASK_STATUS.running;

/**
 * "7.2 mmol/L", "positive", "—": the value of a record as a reader expects it. Lists round a number to 4 decimals
 * (a device's 6.189225910820364 reads 6.1892); `exact` gives it as stored (the raw view always shows it as sent).
 */
export function formatValue(
  r: { valueNum: number | null; valueText: string | null; unit: string | null },
  exact = false,
): string {
  const v =
    r.valueNum !== null
      ? String(exact ? r.valueNum : Math.round(r.valueNum * 1e4) / 1e4)
      : (r.valueText ?? '');
  if (!v) return '—';
  return r.unit && r.valueNum !== null ? `${v} ${r.unit}` : v;
}

/** A stored value as text: a number rounds to 4 decimals like formatValue ("13.760201103478497" → "13.7602"); other text stays. */
export function roundedText(v: string | null): string | null {
  if (v === null || v.trim() === '' || !/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(v.trim())) return v;
  return String(Math.round(Number(v) * 1e4) / 1e4);
}

/** The raw payload as it came, readable: JSON pretty-printed (unchanged when it does not parse). */
export function prettyRaw(format: 'fhir' | 'hl7v2' | 'sql' | 'ocr', raw: string): string {
  if (format === 'hl7v2') return hl7Segments(raw).join('\n');
  try {
    return JSON.stringify(JSON.parse(raw), null, 2);
  } catch {
    return raw;
  }
}

/** HL7 v2 text split into its segments (CR, LF or CRLF separated), empty lines dropped. */
export function hl7Segments(raw: string): string[] {
  return raw.split(/\r\n|\r|\n/).filter((s) => s.trim() !== '');
}

export interface DayGroup<T> {
  date: string | null;
  rows: T[];
}

/** Rows (already sorted) grouped by their effective date, keeping the order; rows without a date group as null. */
export function groupByDate<T extends { effectiveDate: string | null }>(rows: readonly T[]): DayGroup<T>[] {
  const out: DayGroup<T>[] = [];
  for (const r of rows) {
    const last = out[out.length - 1];
    if (last && last.date === r.effectiveDate) last.rows.push(r);
    else out.push({ date: r.effectiveDate, rows: [r] });
  }
  return out;
}

/** Which secret a connection kind (and FHIR auth) takes, or none. */
export function secretKind(kind: ConnectionKind, auth?: unknown): 'token' | 'privateKey' | 'password' | null {
  if (kind === 'sql') return 'password';
  if (kind === 'fhir' && auth === 'bearer') return 'token';
  if (kind === 'fhir' && auth === 'smart') return 'privateKey';
  return null;
}

export interface ConnectionFormValues {
  siteId?: number;
  kind: ConnectionKind;
  name?: string;
  enabled: boolean;
  config: Record<string, unknown>;
  secret?: string;
  clearSecret?: boolean;
}

/** Drops empty strings, nulls and undefined (and empty objects they leave) so that the server's defaults apply. */
export function compact(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(compact).filter((x) => x !== undefined);
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const c = compact(x);
      if (c !== undefined) o[k] = c;
    }
    return o;
  }
  if (v === null || v === undefined) return undefined;
  if (typeof v === 'string') return v.trim() === '' ? undefined : v.trim();
  return v;
}

/** The defaults a new connection of a kind starts with (the server applies the same ones). */
export function defaultConfig(kind: ConnectionKind): Record<string, unknown> {
  switch (kind) {
    case 'fhir':
      return {
        auth: 'none',
        timeoutMs: 30_000,
        pageLimit: 200,
        pageSize: 100,
        identifierSystems: [],
        resourceTypes: [...FHIR_SEARCH_TYPES],
      };
    case 'fhir_file':
      return { identifierSystems: [] };
    case 'hl7v2':
      return { identifierSystems: [] };
    case 'sql':
      return {
        dialect: 'postgres',
        port: 5432,
        ssl: false,
        timeoutMs: 30_000,
        patientIdentifier: 'medicalRecordId',
        queries: [{ docType: 3, name: 'labs', sql: '', columns: {} }],
      };
  }
}

/** A saved connection as the form's initial values (never a secret: the form says whether one is set). */
export function viewToForm(c: ConnectionView): ConnectionFormValues {
  return { siteId: c.siteId, kind: c.kind, name: c.name, enabled: c.enabled, config: { ...c.config } };
}

/** The form's values as the save contract: the secret only when typed (empty = keep the stored one). */
export function formToSave(
  v: ConnectionFormValues,
  existing: Pick<ConnectionView, 'id' | 'version'> | null,
): ConnectionSave {
  const config = (compact(v.config) ?? {}) as Record<string, unknown>;
  const kindSecret = secretKind(v.kind, config.auth);
  // a secret belongs to the kind/auth chosen; a field typed for another auth is not sent
  const secret = kindSecret && v.secret && v.secret.trim() !== '' ? v.secret : undefined;
  return {
    ...(existing ? { id: existing.id, version: existing.version } : {}),
    siteId: v.siteId ?? 0,
    kind: v.kind,
    name: (v.name ?? '').trim(),
    enabled: v.enabled,
    config,
    ...(secret ? { secret } : {}),
    ...(existing && !secret && (v.clearSecret || !kindSecret) ? { clearSecret: true } : {}),
  };
}

/** Skipped counts by reason, largest first, without zeros. */
export function skippedEntries(skipped: Record<string, number> | undefined): [string, number][] {
  return Object.entries(skipped ?? {})
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1]);
}

export const sumValues = (o: Record<string, number> | undefined) =>
  Object.values(o ?? {}).reduce((a, b) => a + b, 0);
