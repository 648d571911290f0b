/**
 * The study reports of /project/reports (issue 14 item 5; spec §2 seven report permissions, §7 the visual report
 * calls and /dataConsistencyReport): eCRF completion by site, visit or form (report:crf:*), missing data down to the
 * item (report:crf-missing:*) and the data consistency report — eCRF values that no longer agree with the source
 * record they were pre-filled from (report:data-consistency:*). Every count is made in SQL over the caller's sites;
 * visits and forms are named by their code, so that the subjects of several design versions count together.
 */
import { z } from 'zod';
import { idSchema, intSchema, pageRequest, pageResult } from './common.schema';

/** How the completion report groups its rows. */
export const CRF_REPORT_GROUPS = ['site', 'visit', 'form'] as const;
export type CrfReportGroup = (typeof CRF_REPORT_GROUPS)[number];
/** The form states of the completion report, in the order of its columns and its chart's stacks. */
export const CRF_REPORT_STATES = ['notStarted', 'draft', 'completed', 'certified'] as const;
export type CrfReportState = (typeof CRF_REPORT_STATES)[number];

export const CRF_MISSING_SORT = [
  'ptsNo',
  'site',
  'visit',
  'form',
  'item',
  'formStatus',
  'updateTime',
] as const;
export const CONSISTENCY_SORT = [
  'ptsNo',
  'site',
  'visit',
  'form',
  'item',
  'sourceDate',
  'updateTime',
] as const;
/**
 * Why a pre-filled value is listed: edited by hand since (the eCRF no longer holds what the source gave), the source
 * record changed at the hospital since (its value or unit), or the source record was deleted there.
 */
export const CONSISTENCY_REASONS = ['edited', 'sourceChanged', 'sourceDeleted'] as const;
export type ConsistencyReason = (typeof CONSISTENCY_REASONS)[number];
/** The items of a summary chart (missing per item): the most missed first. */
export const CRF_MISSING_TOP_ITEMS = 30;

const blank = (v: unknown) => (v === '' || v === null ? undefined : v);
const code = (max: number) => z.preprocess(blank, z.string().trim().min(1).max(max).optional());
const sortOrder = z.preprocess(blank, z.enum(['asc', 'desc']).default('asc'));

/** The filters every report shares: site, design version, visit and form (by code), subject status. */
const filterShape = {
  siteId: z.preprocess(blank, idSchema.optional()),
  versionId: z.preprocess(blank, idSchema.optional()),
  visitCode: code(30),
  formCode: code(50),
  /** a live subject status (1–8); absent: every live subject */
  subjectStatus: z.preprocess(blank, intSchema(1, 8).optional()),
};

/** POST /visual/report/pts/options: what the filters offer (for one design version, or every version in use). */
export const reportOptionsRequest = z.object({ versionId: z.preprocess(blank, idSchema.optional()) });
export const reportOptions = z.object({
  /** the caller's sites in this project and environment */
  sites: z.array(z.object({ id: z.number().int(), siteNo: z.string(), name: z.string() })),
  /** design versions that are published to the environment or have subjects in it */
  versions: z.array(z.object({ id: z.number().int(), versionNo: z.number().int(), name: z.string() })),
  /** visits by code (the newest version's name), in plan order */
  visits: z.array(z.object({ code: z.string(), name: z.string(), unscheduled: z.boolean() })),
  /** forms by code with their items (the newest version's labels) */
  forms: z.array(
    z.object({
      code: z.string(),
      name: z.string(),
      items: z.array(z.object({ variable: z.string(), label: z.string(), required: z.boolean() })),
    }),
  ),
});
export type ReportOptions = z.infer<typeof reportOptions>;

// ── completion ──
/** POST /visual/report/crfReport (+ /export): the filters and the grouping. */
export const crfReportRequest = z.object({
  ...filterShape,
  groupBy: z.preprocess(blank, z.enum(CRF_REPORT_GROUPS).default('site')),
});
export type CrfReportFilters = z.input<typeof crfReportRequest>;

const n = z.number().int();
const counts = {
  /** forms expected: each planned visit × form of each subject, plus the forms of each unscheduled visit it had */
  expected: n,
  notStarted: n,
  draft: n,
  completed: n,
  certified: n,
  /** completed + certified */
  done: n,
  /** done / expected (0 when nothing is expected) */
  rate: z.number(),
};
export const crfReportRow = z.object({
  /** the site id, the visit code or the form code */
  key: z.string(),
  /** the site number, visit code or form code shown beside the name */
  code: z.string(),
  name: z.string(),
  ...counts,
});
export type CrfReportRow = z.infer<typeof crfReportRow>;
export const crfReport = z.object({
  groupBy: z.enum(CRF_REPORT_GROUPS),
  rows: z.array(crfReportRow),
  totals: z.object({ subjects: n, ...counts }),
});
export type CrfReport = z.infer<typeof crfReport>;

// ── missing data ──
const missingFilterShape = {
  ...filterShape,
  ptsNo: code(30),
  /** an item (variable code) of the chosen form */
  variable: code(40),
  /** draft (1) or completed (2) forms only */
  formStatus: z.preprocess(blank, intSchema(1, 2).optional()),
};
/** POST /visual/report/crfReportMissing: a page of the missing items, sorted, with the summary of every page. */
export const crfMissingRequest = pageRequest.extend(missingFilterShape).extend({
  sortField: z.preprocess(blank, z.enum(CRF_MISSING_SORT).default('ptsNo')),
  sortOrder,
});
/** POST /visual/report/crfReportMissing/export: every missing item of the filters, by subject number. */
export const crfMissingExportRequest = z.object(missingFilterShape);
export type CrfMissingFilters = z.input<typeof crfMissingExportRequest>;

export const crfMissingRow = z.object({
  instanceId: n,
  ptsId: n,
  ptsNo: z.string(),
  siteId: n,
  siteName: z.string(),
  visitId: n,
  visitCode: z.string(),
  /** with the unscheduled visit's label when it has one */
  visitName: z.string(),
  unscheduledId: n,
  formId: n,
  formCode: z.string(),
  formName: z.string(),
  /** the repeat of a cycle form */
  repeatNo: n,
  /** 1 draft, 2 completed */
  formStatus: n,
  variable: z.string(),
  itemLabel: z.string(),
  updatedBy: z.string().nullable(),
  updateTime: z.string(),
});
export type CrfMissingRow = z.infer<typeof crfMissingRow>;
export const crfMissingSummary = z.object({
  /** saved (draft or completed) forms the filters cover */
  formsChecked: n,
  /** … of which miss at least one required item */
  formsWithMissing: n,
  /** missing items in total (= the list's total) */
  missing: n,
  byForm: z.array(z.object({ formCode: z.string(), formName: z.string(), forms: n, missing: n })),
  /** the most missed items (CRF_MISSING_TOP_ITEMS at most) */
  byItem: z.array(
    z.object({
      formCode: z.string(),
      formName: z.string(),
      variable: z.string(),
      itemLabel: z.string(),
      missing: n,
    }),
  ),
});
export type CrfMissingSummary = z.infer<typeof crfMissingSummary>;
export const crfMissingPage = pageResult(crfMissingRow).extend({ summary: crfMissingSummary });
export type CrfMissingPage = z.infer<typeof crfMissingPage>;

// ── data consistency ──
const consistencyFilterShape = {
  siteId: filterShape.siteId,
  versionId: filterShape.versionId,
  visitCode: filterShape.visitCode,
  formCode: filterShape.formCode,
  ptsNo: code(30),
  reason: z.preprocess(blank, z.enum(CONSISTENCY_REASONS).optional()),
};
/** POST /dataConsistencyReport/list */
export const consistencyRequest = pageRequest.extend(consistencyFilterShape).extend({
  sortField: z.preprocess(blank, z.enum(CONSISTENCY_SORT).default('ptsNo')),
  sortOrder,
});
/** POST /dataConsistencyReport/export: every listed value of the filters, by subject number. */
export const consistencyExportRequest = z.object(consistencyFilterShape);
export type ConsistencyFilters = z.input<typeof consistencyExportRequest>;

export const consistencyRow = z.object({
  instanceId: n,
  ptsId: n,
  ptsNo: z.string(),
  siteName: z.string(),
  visitId: n,
  visitName: z.string(),
  unscheduledId: n,
  formId: n,
  formName: z.string(),
  repeatNo: n,
  variable: z.string(),
  itemLabel: z.string(),
  /** the item's unit (number items) */
  itemUnit: z.string().nullable(),
  /** the eCRF's value now */
  crfValue: z.unknown(),
  /** the value the pre-fill wrote */
  filledValue: z.unknown(),
  reasons: z.array(z.enum(CONSISTENCY_REASONS)),
  sourceRecordId: n,
  /** the record version the value was pre-filled from, and the record's version now */
  filledVersion: n,
  currentVersion: n,
  sourceCode: z.string().nullable(),
  sourceDisplay: z.string().nullable(),
  /** the source record's value now (number or text) and unit; the value and unit of the version pre-filled from */
  sourceValue: z.string().nullable(),
  sourceUnit: z.string().nullable(),
  filledSourceValue: z.string().nullable(),
  filledSourceUnit: z.string().nullable(),
  /** the source record's clinical date */
  sourceDate: z.string().nullable(),
  /** who changed the eCRF value last, and when */
  updatedBy: z.string().nullable(),
  updateTime: z.string(),
  entryMode: n,
});
export type ConsistencyRow = z.infer<typeof consistencyRow>;
export const consistencyPage = pageResult(consistencyRow);
export type ConsistencyPage = z.infer<typeof consistencyPage>;
