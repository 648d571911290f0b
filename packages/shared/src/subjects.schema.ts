/**
 * Subjects (spec §3 subject row, identifier types, status labels; §4 subject status). The allowed status
 * transitions are ours (the spec does not show them) and are written down in docs/decisions.md; the same
 * table drives the web's status menu and the server's check.
 */
import { z } from 'zod';
import { dateSchema, idSchema, intSchema, pageRequest, pageResult } from './common.schema';
import { SUBJECT_STATUS } from './enums';
import { isValidIdNumber } from './users.schema';

export type SubjectStatus = (typeof SUBJECT_STATUS)[keyof typeof SUBJECT_STATUS];
const S = SUBJECT_STATUS;

/** Allowed transitions between live statuses (deletion to 0 and restore from it are separate actions). */
export const SUBJECT_TRANSITIONS: Record<number, readonly number[]> = {
  [S.informedConsent]: [S.screening, S.quit],
  [S.screening]: [S.enrolled, S.screeningFailed, S.quit],
  [S.screeningFailed]: [S.screening],
  [S.enrolled]: [S.completed, S.droppedOut, S.longTermFollowUp, S.quit],
  [S.longTermFollowUp]: [S.completed, S.droppedOut, S.quit],
  [S.droppedOut]: [],
  [S.completed]: [S.longTermFollowUp],
  [S.quit]: [],
};

/** Statuses whose entry needs a reason (issue 5: screening failed, dropped out, quit). */
export const REASON_REQUIRED_STATUSES: readonly number[] = [S.screeningFailed, S.droppedOut, S.quit];

export function canTransition(from: number, to: number): boolean {
  return (SUBJECT_TRANSITIONS[from] ?? []).includes(to);
}

/** Masks an identifier for roles that may not see it in full: keeps the first 2 and last 2 characters. */
export function maskIdentifier(v: string | null): string | null {
  if (!v) return v;
  if (v.length <= 4) return '*'.repeat(v.length);
  return `${v.slice(0, 2)}${'*'.repeat(v.length - 4)}${v.slice(-2)}`;
}

const blank = (v: unknown) => (v === '' ? undefined : v);
const identifier = z.preprocess(blank, z.string().max(40).regex(/^[A-Za-z0-9-]+$/, { message: 'validation.identifier' }).optional());
/** a clinical date: a real calendar day in 1900–2100 (dateSchema) */
const dateOnly = dateSchema;

export const subjectFields = {
  siteId: idSchema,
  /** first-visit time (required, spec §5): a clinical date */
  firstVisitDate: dateOnly,
  initials: z.preprocess(blank, z.string().max(10).optional()),
  medicalRecordId: identifier,
  inpatientId: identifier,
  outpatientId: identifier,
  idCard: z.preprocess(blank, z.string().refine(isValidIdNumber, { message: 'validation.idNumber' }).optional()),
};

export const subjectCreate = z.object({
  /** subject number; generated as <siteNo>-<NNN> when absent */
  ptsNo: z.preprocess(blank, z.string().max(30).regex(/^[A-Za-z0-9-]+$/, { message: 'validation.identifier' }).optional()),
  status: intSchema().refine((n) => n === S.informedConsent || n === S.screening, { message: 'validation.initialStatus' }).default(S.screening),
  ...subjectFields,
});
/** An update changes only the fields it carries (identifiers only by whoever may see them in full). */
export const subjectUpdate = z.object({
  ptsId: idSchema,
  version: idSchema,
  siteId: subjectFields.siteId.optional(),
  firstVisitDate: subjectFields.firstVisitDate.optional(),
  initials: subjectFields.initials,
  medicalRecordId: subjectFields.medicalRecordId,
  inpatientId: subjectFields.inpatientId,
  outpatientId: subjectFields.outpatientId,
  idCard: subjectFields.idCard,
  reason: z.preprocess(blank, z.string().max(500).optional()),
});
export const subjectStatusRequest = z.object({
  ptsId: idSchema,
  version: idSchema,
  status: intSchema(1, 8),
  reason: z.preprocess(blank, z.string().max(500).optional()),
});
export const subjectDeleteRequest = z.object({
  ptsId: idSchema,
  reason: z.string().min(1).max(500),
});

/** Subject row (spec §3) plus status, identifiers (masked unless permitted) and progress. */
export const subjectRow = z.object({
  ptsId: z.number().int(),
  ptsNo: z.string(),
  designVersionId: z.number().int().nullable(),
  orgId: z.number().int(),
  orgNo: z.string().nullable(),
  siteName: z.string(),
  siteId: z.number().int(),
  status: z.number().int(),
  statusReason: z.string().nullable(),
  initials: z.string().nullable(),
  firstVisitDate: z.string(),
  medicalRecordId: z.string().nullable(),
  inpatientId: z.string().nullable(),
  outpatientId: z.string().nullable(),
  idCard: z.string().nullable(),
  identifiersMasked: z.boolean(),
  /** the first planned visit (plan order) whose forms are not all completed; null when every planned visit is done */
  currentVisitId: z.number().int().nullable(),
  currentVisitName: z.string().nullable(),
  /** form progress: instances completed or certified / forms expected (planned visit × form pairs, plus repeats and unscheduled visits' forms) */
  formsDone: z.number().int(),
  formsTotal: z.number().int(),
  /** the subject's own risk level (1 high, 2 middle, 3 low), null when it inherits its site's (issue 13, SDV share) */
  riskLevel: z.number().int().nullable(),
  /** its site's risk level: the effective level when the subject has none of its own (effectiveRiskLevel) */
  siteRiskLevel: z.number().int(),
  version: z.number().int(),
  createTime: z.string(),
  updateTime: z.string(),
  deleteTime: z.string().nullable(),
  /** why it is in the recycle bin */
  deleteReason: z.string().nullable(),
});
export type SubjectRow = z.infer<typeof subjectRow>;

export const SUBJECT_SORT_FIELDS = ['ptsNo', 'status', 'firstVisitDate', 'createTime', 'siteName'] as const;
export const subjectListRequest = pageRequest.extend({
  keyword: z.preprocess(blank, z.string().max(50).optional()),
  status: z.preprocess(blank, intSchema(1, 8).optional()),
  siteId: z.preprocess(blank, idSchema.optional()),
  /** subjects whose current visit is this planned visit */
  visitId: z.preprocess(blank, idSchema.optional()),
  identifier: z.preprocess(blank, z.string().max(40).optional()),
  startDate: z.preprocess(blank, dateOnly.optional()),
  endDate: z.preprocess(blank, dateOnly.optional()),
  sortField: z.enum(SUBJECT_SORT_FIELDS).default('ptsNo'),
  sortOrder: z.enum(['asc', 'desc']).default('asc'),
});
export const subjectPage = pageResult(subjectRow);

/** The risk level that sets a subject's SDV share: its own when set, else its site's. */
export function effectiveRiskLevel(s: { riskLevel: number | null; siteRiskLevel: number }): number {
  return s.riskLevel ?? s.siteRiskLevel;
}

/**
 * Open (status 1) and replied (2) queries (issue 13 item 2: counts on the subject list and the visits), each counted
 * only when the caller may see that status (doubt:querying:query, doubt:replied:query), in the caller's sites.
 */
export const queryTally = z.object({ open: z.number().int(), replied: z.number().int() });
export type QueryTally = z.infer<typeof queryTally>;
/** A row of the subject list (ptsList, centerPtsPageQuery): the subject and its queries; null when the caller sees neither open nor replied queries. */
export const subjectListRow = subjectRow.extend({ queries: queryTally.nullable() });
export type SubjectListRow = z.infer<typeof subjectListRow>;
export const subjectListPage = pageResult(subjectListRow);
/** GET /project/pts/visitQueries?ptsId: the open and replied queries of each visit occurrence of a subject that has any. */
export const visitQueryTally = queryTally.extend({ visitId: z.number().int(), unscheduledId: z.number().int() });
export type VisitQueryTally = z.infer<typeof visitQueryTally>;
export const subjectIdQuery = z.object({ ptsId: idSchema });


/**
 * POST /project/manage/nextPts: the subjects before and after `ptsId` in the subject list's order, with its filters
 * (the "previous / next subject" buttons of the subject page).
 */
export const subjectNeighboursRequest = subjectListRequest.omit({ pageNumber: true, pageSize: true }).extend({ ptsId: idSchema });
export const subjectNeighbour = z.object({ ptsId: z.number().int(), ptsNo: z.string() });
export type SubjectNeighbour = z.infer<typeof subjectNeighbour>;
export const subjectNeighbours = z.object({ prev: subjectNeighbour.nullable(), next: subjectNeighbour.nullable() });

/** POST /project/manage/listPa: live subjects for pickers, by number or initials (at most 50). */
export const subjectPickerRequest = z.object({
  keyword: z.preprocess(blank, z.string().max(50).optional()),
  siteId: z.preprocess(blank, idSchema.optional()),
  limit: intSchema(1, 50).default(20),
});
export const subjectPickerRow = z.object({
  ptsId: z.number().int(),
  ptsNo: z.string(),
  initials: z.string().nullable(),
  status: z.number().int(),
  siteId: z.number().int(),
  siteNo: z.string(),
  siteName: z.string(),
});
export type SubjectPickerRow = z.infer<typeof subjectPickerRow>;

/** POST /project/manage/read: one subject, as GET getPtsByProIdAndPtsId answers (a full read of identifiers audited). */
export const subjectReadRequest = z.object({ ptsId: idSchema });

/**
 * POST /followUp/exists (JSON): whether the subject has follow-up records — saved forms of a visit after its
 * first — in this visit when one is named. `count` is how many such form instances there are.
 */
export const followUpExistsRequest = z.object({ ptsId: idSchema, visitId: idSchema.optional() });
export const followUpExists = z.object({ exists: z.boolean(), count: z.number().int() });
