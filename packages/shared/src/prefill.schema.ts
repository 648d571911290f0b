/**
 * Pre-fill (issue 11 item 4, spec §4 new data / merge / ignore, entry modes gather 5 and inject 6; §7 /crf/prefill/*),
 * the source record behind a value, the traceability report (/project/icrc-source), the pre-fill decisions log
 * (/audit/log/preFillCrfQuery) and the pre-fill schedule config (/crf/prefill/schedule/config/*).
 */
import { z } from 'zod';
import { dateSchema, idSchema, intSchema, pageRequest, pageResult } from './common.schema';
import { FIELD_TYPES, optionSchema } from './design.schema';
import { PREFILL_PROBLEMS, unitConversion, visitWindowRange } from './mapping.schema';
import { SOURCE_RAW_FORMATS, sourceRecordBrief, sourceRecordDetailRequest } from './sources.schema';
import { visitSlot } from './ecrf.schema';

/**
 * new: the item is empty; same: the eCRF already holds this value (nothing to do); conflict: it holds a different
 * value (both shown, nothing overwritten without a decision); problem: the value cannot go into the field.
 */
export const CANDIDATE_STATES = ['new', 'same', 'conflict', 'problem'] as const;
export type CandidateState = (typeof CANDIDATE_STATES)[number];
/** what a user may decide; 'inject' is the automatic runs' own (entry mode 6), never sent by a client */
export const PREFILL_DECISIONS = ['new', 'merge', 'ignore'] as const;
export type PrefillDecision = (typeof PREFILL_DECISIONS)[number] | 'inject';

/** The value reference a pre-filled item carries (crf_values.source_ref): 'source:<recordId>:v<version>'. */
export function sourceRef(recordId: number, version: number): string {
  return `source:${recordId}:v${version}`;
}
export function parseSourceRef(ref: string | null | undefined): { recordId: number; version: number } | null {
  const m = ref ? /^source:(\d+):v(\d+)$/.exec(ref) : null;
  return m ? { recordId: Number(m[1]), version: Number(m[2]) } : null;
}

const visitKey = z.object({
  ptsId: idSchema,
  visitId: idSchema,
  unscheduledId: intSchema(0).default(0),
});

/** POST /crf/prefill/visit/list (form: ptsId): a subject's visits with how many candidates wait per form. */
export const prefillVisitListRequest = z.object({ ptsId: idSchema });
export const prefillFormCount = z.object({
  formId: z.number().int(),
  code: z.string(),
  name: z.string(),
  nameEn: z.string().nullable(),
  /** items with a mapping rule in this form */
  rules: z.number().int(),
  /** candidates waiting for a decision (state new or conflict, not ignored) */
  waiting: z.number().int(),
  /** candidates that cannot be filled (problem) */
  problems: z.number().int(),
});
export type PrefillFormCount = z.infer<typeof prefillFormCount>;
export const prefillVisitRow = visitSlot.extend({
  waiting: z.number().int(),
  forms: z.array(prefillFormCount),
});
export type PrefillVisitRow = z.infer<typeof prefillVisitRow>;

/** POST /crf/prefill/instance/listSelectedCrfForm (form): forms of one visit with rules, and their candidates. */
export const listSelectedCrfFormRequest = visitKey;

/** POST /crf/prefill/execute (form): the candidates of one form of a subject visit. */
export const prefillExecuteRequest = visitKey.extend({ formId: idSchema, repeatNo: intSchema(1).default(1) });
export const prefillCandidate = z.object({
  variable: z.string(),
  label: z.string(),
  labelEn: z.string().nullable(),
  type: z.enum(FIELD_TYPES),
  unit: z.string().nullable(),
  options: z.array(optionSchema),
  state: z.enum(CANDIDATE_STATES),
  problem: z.enum(PREFILL_PROBLEMS).nullable(),
  problemMessage: z.string().nullable(),
  problemDetail: z.string().nullable(),
  /** the value pre-fill would save (already converted and coerced); null for a problem */
  candidateValue: z.unknown(),
  currentValue: z.unknown(),
  currentEntryMode: z.number().int().nullable(),
  currentSourceRef: z.string().nullable(),
  /** the source record behind the candidate (open it with /crf/prefill/source/record?id=&version=) */
  source: sourceRecordBrief,
  conversion: unitConversion.nullable(),
});
export type PrefillCandidate = z.infer<typeof prefillCandidate>;
/** a form instance as pre-fill saw it (null: not started) */
const instanceRef = z.object({ id: z.number().int(), version: z.number().int(), status: z.number().int() });
export const prefillExecuteResult = z.object({
  formId: z.number().int(),
  formName: z.string(),
  window: visitWindowRange.nullable(),
  /** the instance the candidates are computed against; confirm with its version (null: not started) */
  instance: instanceRef.nullable(),
  candidates: z.array(prefillCandidate),
  /** candidates left out because a user ignored the same record version */
  ignored: z.number().int(),
});
export type PrefillExecuteResult = z.infer<typeof prefillExecuteResult>;

/** POST /crf/prefill/visit/confirm (JSON): apply decisions to one form instance at the version the user saw. */
export const prefillDecisionInput = z.object({
  variable: z.string().min(1).max(40),
  sourceRecordId: idSchema,
  sourceVersion: idSchema,
  decision: z.enum(PREFILL_DECISIONS),
  /** required for a 'merge' over a different existing value (the change reason in the history) */
  reason: z.string().trim().max(500).optional(),
});
export type PrefillDecisionInput = z.infer<typeof prefillDecisionInput>;
export const prefillConfirmRequest = visitKey.extend({
  formId: idSchema,
  repeatNo: intSchema(1).default(1),
  /** the instance version execute returned; absent when the form was not started */
  version: idSchema.optional(),
  decisions: z.array(prefillDecisionInput).min(1).max(500),
});
export const prefillConfirmResult = z.object({
  instance: instanceRef.nullable(),
  saved: z.number().int(),
  ignored: z.number().int(),
});
export type PrefillConfirmResult = z.infer<typeof prefillConfirmResult>;

/** POST /crf/prefill/clean (form): drop the ignore decisions of a visit (optionally one form) so candidates return. */
export const prefillCleanRequest = visitKey.extend({ formId: idSchema.optional() });
export const prefillCleanResult = z.object({ removed: z.number().int() });

/** GET /crf/prefill/source/record?id=&version= : a source record (a version of it) with its raw payload. */
export const sourceRecordRequest = sourceRecordDetailRequest;
export const sourceRecordView = sourceRecordBrief.extend({
  /** the newest version of the record (version < latestVersion: the hospital changed it since) */
  latestVersion: z.number().int(),
  changeKind: z.string().nullable(),
  status: z.string().nullable(),
  rawFormat: z.enum(SOURCE_RAW_FORMATS),
  raw: z.string(),
  ptsId: z.number().int().nullable(),
  ptsNo: z.string().nullable(),
  siteId: z.number().int(),
  externalId: z.string(),
  createTime: z.string(),
  /** a result read from a source document (raw format 'ocr'): the file and the region of its page */
  sourceFileId: z.number().int().nullable().optional(),
  region: z.object({ page: z.number().int(), x: z.number(), y: z.number(), width: z.number(), height: z.number() }).nullable().optional(),
});
export type SourceRecordView = z.infer<typeof sourceRecordView>;

/** GET /project/icrc-source (and /project/icrc-source/export, xlsx): value → source traceability. */
export const traceabilityRequest = pageRequest.extend({
  ptsId: idSchema.optional(),
  visitId: idSchema.optional(),
  formId: idSchema.optional(),
});
export const traceabilityRow = z.object({
  ptsId: z.number().int(),
  ptsNo: z.string(),
  siteName: z.string(),
  visitId: z.number().int(),
  visitName: z.string(),
  unscheduledId: z.number().int(),
  formId: z.number().int(),
  formName: z.string(),
  repeatNo: z.number().int(),
  variable: z.string(),
  itemLabel: z.string(),
  value: z.unknown(),
  entryMode: z.number().int(),
  sourceRef: z.string(),
  recordId: z.number().int().nullable(),
  recordVersion: z.number().int().nullable(),
  latestVersion: z.number().int().nullable(),
  /** the source record has a newer version than the one the value was filled from */
  changedSinceFill: z.boolean(),
  docType: z.number().int().nullable(),
  resourceType: z.string().nullable(),
  code: z.string().nullable(),
  display: z.string().nullable(),
  effectiveDate: z.string().nullable(),
  updatedBy: z.string().nullable(),
  updateTime: z.string(),
});
export type TraceabilityRow = z.infer<typeof traceabilityRow>;
export const traceabilityPage = pageResult(traceabilityRow);

/** POST /audit/log/preFillCrfQuery (form): who accepted/merged/ignored/injected what, when. */
export const prefillLogRequest = pageRequest.extend({
  ptsId: idSchema.optional(),
  visitId: idSchema.optional(),
  formId: idSchema.optional(),
  decision: z.enum(['new', 'merge', 'ignore', 'inject']).optional(),
});
export const prefillLogRow = z.object({
  id: z.number().int(),
  ptsId: z.number().int(),
  ptsNo: z.string(),
  visitId: z.number().int(),
  visitName: z.string(),
  unscheduledId: z.number().int(),
  formId: z.number().int(),
  formName: z.string(),
  repeatNo: z.number().int(),
  variable: z.string(),
  decision: z.string(),
  sourceRecordId: z.number().int(),
  sourceVersion: z.number().int(),
  candidate: z.unknown(),
  /** the reason given for a merge over a different value (null: none asked) */
  reason: z.string().nullable(),
  userName: z.string().nullable(),
  createTime: z.string(),
});
export type PrefillLogRow = z.infer<typeof prefillLogRow>;
export const prefillLogPage = pageResult(prefillLogRow);

// ── schedule ──
export const PREFILL_FREQUENCIES = ['daily', 'weekly', 'monthly'] as const;
const dayList = z.preprocess((v: unknown): unknown => {
  if (v === undefined || v === null || v === '') return [];
  if (Array.isArray(v)) return (v as unknown[]).map((x) => (typeof x === 'string' && /^\d+$/.test(x) ? Number(x) : x));
  if (typeof v === 'string') return v.split(',').filter((s) => s.trim() !== '').map((s) => (/^\d+$/.test(s.trim()) ? Number(s.trim()) : s));
  return [v];
}, z.array(z.number().int()).max(31));
export type ScheduleDayProblem = 'weekdays' | 'monthDays' | 'duplicate';
const SCHEDULE_DAY_MESSAGES: Record<ScheduleDayProblem, string> = {
  weekdays: 'validation.scheduleWeekdays',
  monthDays: 'validation.scheduleMonthDays',
  duplicate: 'validation.scheduleDaysDuplicate',
};
/** A schedule's day choices checked (the save below and the web form): weekly 1..7 (Monday first), monthly 1..31, none twice. */
export function scheduleDayProblems(frequency: (typeof PREFILL_FREQUENCIES)[number], days: readonly number[] | undefined): ScheduleDayProblem[] {
  const d = days ?? [];
  const out: ScheduleDayProblem[] = [];
  if (frequency === 'weekly' && (d.length === 0 || d.some((x) => x < 1 || x > 7))) out.push('weekdays');
  if (frequency === 'monthly' && (d.length === 0 || d.some((x) => x < 1 || x > 31))) out.push('monthDays');
  if (new Set(d).size !== d.length) out.push('duplicate');
  return out;
}
/**
 * POST /crf/prefill/schedule/config/savaOrUpdate (form): weekly needs weekdays 1..7 (1 Monday), monthly month-days
 * 1..31 (a day past the month's end runs on its last day), daily none; start ≤ end.
 */
export const prefillScheduleSave = z
  .object({
    startDate: dateSchema,
    endDate: dateSchema,
    frequency: z.enum(PREFILL_FREQUENCIES),
    days: dayList.default([]),
    enabled: z.preprocess((v) => (v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : v), z.boolean()).default(true),
    version: idSchema.optional(),
  })
  .superRefine((s, ctx) => {
    if (s.startDate > s.endDate) ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'validation.startAfterEnd' });
    for (const p of scheduleDayProblems(s.frequency, s.days)) ctx.addIssue({ code: 'custom', path: ['days'], message: SCHEDULE_DAY_MESSAGES[p] });
  });
export const prefillScheduleView = z.object({
  id: z.number().int(),
  startDate: z.string(),
  endDate: z.string(),
  frequency: z.enum(PREFILL_FREQUENCIES),
  days: z.array(z.number().int()),
  enabled: z.boolean(),
  lastRunOn: z.string().nullable(),
  version: z.number().int(),
  updatedBy: z.string().nullable(),
  updateTime: z.string(),
});
export type PrefillScheduleView = z.infer<typeof prefillScheduleView>;

/** Whether a schedule runs on a day (YYYY-MM-DD in the project's time zone). */
export function scheduleRunsOn(s: { startDate: string; endDate: string; frequency: string; days: readonly number[]; enabled: boolean }, day: string): boolean {
  if (!s.enabled || day < s.startDate || day > s.endDate) return false;
  const d = new Date(`${day}T00:00:00Z`);
  if (s.frequency === 'daily') return true;
  if (s.frequency === 'weekly') return s.days.includes(((d.getUTCDay() + 6) % 7) + 1);
  const dom = d.getUTCDate();
  const last = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate();
  return s.days.some((x) => x === dom || (dom === last && x > last));
}
