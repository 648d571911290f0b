/**
 * SDV and SDR (issue 13 item 1, spec §2 /project/verification, §3 risk levels): source data verification marks on
 * eCRF items, source data review marks on forms, lost when a verified value changes; a site's risk level — or a
 * subject's own, which overrides it — sets the share of the forms that need SDV, chosen reproducibly per form.
 */
import { z } from 'zod';
import { idSchema, intSchema, pageRequest, pageResult } from './common.schema';

/** Risk levels (spec §3, RISK_LEVELS high, middle, low) as stored: 1 high, 2 middle, 3 low. */
export const RISK_LEVEL_VALUES = [1, 2, 3] as const;
/** The share (%) of a site's forms that need SDV, by risk level: all for high, a stated sample for the others. */
export const SDV_SHARE: Record<number, number> = { 1: 100, 2: 50, 3: 20 };

/** Mark status: 1 active, 0 removed with a reason, 2 lost because the value changed after it was verified. */
export const MARK_STATUS = { removed: 0, active: 1, lost: 2 } as const;

const blank = (v: unknown) => (v === '' || v === null ? undefined : v);

/** POST /crf/report/saveItemMark: SDV on items (all items with a value when `variables` is absent) or SDR on forms. */
export const markSaveRequest = z.object({
  kind: z.enum(['sdv', 'sdr']),
  /** one form, or every form of a visit */
  instanceIds: z.array(idSchema).min(1).max(200),
  variables: z.array(z.string().min(1).max(40)).min(1).max(500).optional(),
});
export const markSaveResult = z.object({ marked: z.number().int(), already: z.number().int() });

/** POST /crf/report/deleteItemMark: marks removed, with the reason. */
export const markDeleteRequest = z.object({ ids: z.array(idSchema).min(1).max(500), reason: z.string().trim().min(1).max(500) });

export const markView = z.object({
  id: z.number().int(),
  instanceId: z.number().int(),
  variable: z.string().nullable(),
  kind: z.enum(['sdv', 'sdr']),
  status: z.number().int(),
  value: z.unknown(),
  reason: z.string().nullable(),
  markedBy: z.string().nullable(),
  markTime: z.string(),
  endTime: z.string().nullable(),
});
export type MarkView = z.infer<typeof markView>;

/** GET /crf/report/marks?instanceId: the form's active and lost marks (the newest per item and kind). */
export const marksRequest = z.object({ instanceId: idSchema });

/** POST /verification/page: the forms to verify, with their progress. */
export const verificationPageRequest = pageRequest.extend({
  siteId: z.preprocess(blank, idSchema.optional()),
  ptsNo: z.preprocess(blank, z.string().trim().max(50).optional()),
  visitId: z.preprocess(blank, idSchema.optional()),
  /** remaining: needs SDV (by risk) and not all items verified, or marks lost; done: all verified; all */
  state: z.enum(['remaining', 'done', 'all']).default('remaining'),
  /** only the forms the risk level selects for SDV (default), or every form */
  requiredOnly: z.preprocess((v) => (v === 'false' ? false : v === 'true' ? true : v), z.boolean().default(true)),
});
export const verificationRow = z.object({
  instanceId: z.number().int(),
  ptsId: z.number().int(),
  ptsNo: z.string(),
  designVersionId: z.number().int().nullable(),
  siteId: z.number().int(),
  siteName: z.string(),
  /** the effective risk level: the subject's own when set, else the site's */
  riskLevel: z.number().int(),
  /** the subject's own risk level; null: it inherits the site's */
  subjectRiskLevel: z.number().int().nullable(),
  visitId: z.number().int(),
  visitName: z.string(),
  formId: z.number().int(),
  formName: z.string(),
  unscheduledId: z.number().int(),
  repeatNo: z.number().int(),
  /** the form needs SDV: its effective risk level (the subject's, else the site's) selects it, or a monitor has started verifying it */
  required: z.boolean(),
  /** items with a value, items with an active SDV mark, items whose mark was lost */
  items: z.number().int(),
  verified: z.number().int(),
  lost: z.number().int(),
  /** the form has an active SDR mark */
  reviewed: z.boolean(),
  updateTime: z.string(),
});
export type VerificationRow = z.infer<typeof verificationRow>;
export const verificationPage = pageResult(verificationRow).extend({
  /** over every row of the filter: forms, forms fully verified, items, items verified */
  summary: z.object({ forms: z.number().int(), done: z.number().int(), items: z.number().int(), verified: z.number().int() }),
});
export type VerificationPage = z.infer<typeof verificationPage>;

/** POST /verification/risk: a site's risk level. */
export const siteRiskRequest = z.object({ siteId: idSchema, riskLevel: intSchema(1, 3) });

/** POST /verification/subjectRisk: a subject's own risk level (null: inherit its site's), with an optional reason. */
export const subjectRiskRequest = z.object({
  ptsId: idSchema,
  riskLevel: z.preprocess((v) => (v === '' ? null : v), intSchema(1, 3).nullable()),
  reason: z.preprocess(blank, z.string().trim().max(500).optional()),
});

/** GET /verification/subjectRisk/list: the caller's live subjects that have a risk level of their own (at most SUBJECT_RISK_LIST_MAX). */
export const SUBJECT_RISK_LIST_MAX = 500;
export const subjectRiskRow = z.object({
  ptsId: z.number().int(),
  ptsNo: z.string(),
  designVersionId: z.number().int().nullable(),
  siteId: z.number().int(),
  siteName: z.string(),
  siteRiskLevel: z.number().int(),
  riskLevel: z.number().int(),
});
export type SubjectRiskRow = z.infer<typeof subjectRiskRow>;
