/**
 * EDC sync (issue 14; spec §4 supported EDC kinds 1 and 3, sync pending / syncing / synced / sync failed, progress
 * type 3): the EDC a project environment syncs to, its mapping per design version, sync runs and the per-record state,
 * the per-site status list and the EDC log (/edcLog/*).
 */
import { z } from 'zod';
import { dateSchema, idSchema, intSchema, pageRequest, pageResult } from './common.schema';

// EDC_KINDS (enums.ts): kind 1 CDISC ODM 1.3.2 ClinicalData over HTTP (Rave Web Services style), kind 3 the REDCap API
export const EDC_SYNC_STATUS = { pending: 0, syncing: 1, synced: 2, failed: 3 } as const;
export type EdcSyncStatus = (typeof EDC_SYNC_STATUS)[keyof typeof EDC_SYNC_STATUS];
export const EDC_SCHEDULES = ['hourly', 'daily'] as const;
export const EDC_LOG_ACTIONS = ['sent', 'removed', 'refused', 'conflict', 'error'] as const;
export type EdcLogAction = (typeof EDC_LOG_ACTIONS)[number];
export const EDC_MAPPING_LEVELS = ['event', 'form', 'item'] as const;
export type EdcMappingLevel = (typeof EDC_MAPPING_LEVELS)[number];

const blank = (v: unknown) => (v === '' || v === null ? undefined : v);
const oid = z.string().trim().min(1).max(100).regex(/^[A-Za-z0-9_.\-:]+$/, { message: 'validation.edcOid' });

export const edcConfigView = z.object({
  id: z.number().int(),
  kind: z.number().int(),
  name: z.string(),
  baseUrl: z.string(),
  studyOid: z.string().nullable(),
  targetEnv: z.string().nullable(),
  timeoutMs: z.number().int(),
  schedule: z.enum(EDC_SCHEDULES).nullable(),
  enabled: z.boolean(),
  /** the secret is kept encrypted and never returned: only whether one is set */
  hasSecret: z.boolean(),
  targetItemsAt: z.string().nullable(),
  version: z.number().int(),
  updateTime: z.string(),
});
export type EdcConfigView = z.infer<typeof edcConfigView>;

export const edcConfigSave = z
  .object({
    kind: z.coerce.number().pipe(z.union([z.literal(1), z.literal(3)])),
    name: z.string().trim().min(1).max(100),
    baseUrl: z
      .string()
      .trim()
      .max(500)
      .refine((u) => /^https?:\/\/[^\s/?#]+[^\s]*$/i.test(u), { message: 'validation.edcUrl' }),
    studyOid: z.preprocess(blank, oid.optional()),
    targetEnv: z.preprocess(blank, z.string().trim().max(50).optional()),
    /** kind 1: "user:password" (HTTP Basic); kind 3: the REDCap API token. Absent on update: unchanged */
    secret: z.preprocess(blank, z.string().min(1).max(500).optional()),
    timeoutMs: intSchema(1_000, 120_000).default(30_000),
    schedule: z.preprocess(blank, z.enum(EDC_SCHEDULES).nullable().optional()),
    enabled: z.boolean().default(true),
    /** the version the editor loaded (absent: a new configuration) */
    version: z.preprocess(blank, idSchema.optional()),
  })
  .superRefine((c, ctx) => {
    if (c.kind === 1 && !c.studyOid) ctx.addIssue({ code: 'custom', path: ['studyOid'], message: 'validation.edcStudyOid' });
    if (c.kind === 1 && c.secret !== undefined && !/^[^:]+:.+$/.test(c.secret)) ctx.addIssue({ code: 'custom', path: ['secret'], message: 'validation.edcBasicSecret' });
    if (c.kind === 3 && c.secret !== undefined && !/^[0-9A-Fa-f]{32,64}$/.test(c.secret)) ctx.addIssue({ code: 'custom', path: ['secret'], message: 'validation.edcToken' });
  });
export type EdcConfigSave = z.infer<typeof edcConfigSave>;

/** An item the EDC offers (POST /crf/form/item/getEDCItemList). */
export const edcTargetItem = z.object({
  event: z.string().optional(),
  form: z.string(),
  group: z.string().optional(),
  item: z.string(),
  label: z.string().optional(),
  dataType: z.string(),
  required: z.boolean(),
  codes: z.array(z.object({ value: z.string(), label: z.string().optional() })).optional(),
  repeating: z.boolean().optional(),
});
export type EdcTargetItemView = z.infer<typeof edcTargetItem>;
export const edcItemListRequest = z.object({ refresh: z.preprocess((v) => v === true || v === 'true' || v === '1', z.boolean()).default(false) });
export const edcItemList = z.object({ items: z.array(edcTargetItem), fetchedAt: z.string().nullable() });

/** One mapping row: our visit, form or item, its target, and what is wrong with it. */
export const edcMappingRow = z.object({
  level: z.enum(EDC_MAPPING_LEVELS),
  localKey: z.string(),
  /** our name (visit, form, item label), in the request's language */
  label: z.string(),
  /** items: our form code; forms and events: null */
  formCode: z.string().nullable(),
  /** items with options: our option values with their labels */
  options: z.array(z.object({ value: z.string(), label: z.string() })).optional(),
  target: z.string().nullable(),
  targetGroup: z.string().nullable(),
  valueMap: z.record(z.string(), z.string()).nullable(),
});
export type EdcMappingRow = z.infer<typeof edcMappingRow>;

/** A mapping problem (translated): what blocks a sync. */
export const edcMappingProblem = z.object({
  level: z.enum(EDC_MAPPING_LEVELS).nullable(),
  localKey: z.string().nullable(),
  target: z.string().nullable(),
  code: z.string(),
  message: z.string(),
});
export type EdcMappingProblem = z.infer<typeof edcMappingProblem>;

export const edcMappingRequest = z.object({ versionId: idSchema });
export const edcMappingView = z.object({
  versionId: z.number().int(),
  rows: z.array(edcMappingRow),
  problems: z.array(edcMappingProblem),
  targetItemsAt: z.string().nullable(),
});
export type EdcMappingView = z.infer<typeof edcMappingView>;
export const edcMappingSave = z.object({
  versionId: idSchema,
  rows: z
    .array(
      z.object({
        level: z.enum(EDC_MAPPING_LEVELS),
        localKey: z.string().min(1).max(100),
        /** empty: no mapping (removes it) */
        target: z.preprocess(blank, oid.optional()),
        targetGroup: z.preprocess(blank, oid.optional()),
        valueMap: z.record(z.string().max(50), z.string().max(100)).optional(),
      }),
    )
    .max(5_000),
});

/** POST /project/pts/job/handEDCStart: sync a subject, a site or the whole study (in the caller's sites). */
export const edcStartRequest = z
  .object({
    scope: z.enum(['subject', 'site', 'study']),
    ptsId: z.preprocess(blank, idSchema.optional()),
    siteId: z.preprocess(blank, idSchema.optional()),
  })
  .superRefine((r, ctx) => {
    if (r.scope === 'subject' && !r.ptsId) ctx.addIssue({ code: 'custom', path: ['ptsId'], message: 'validation.required' });
    if (r.scope === 'site' && !r.siteId) ctx.addIssue({ code: 'custom', path: ['siteId'], message: 'validation.required' });
  });
export const edcRunView = z.object({
  id: z.number().int(),
  scope: z.enum(['subject', 'site', 'study']),
  scopeId: z.number().int().nullable(),
  trigger: z.enum(['manual', 'schedule']),
  status: z.number().int(),
  counts: z
    .object({
      subjects: z.number().int(),
      records: z.number().int(),
      sent: z.number().int(),
      synced: z.number().int(),
      failed: z.number().int(),
      conflicts: z.number().int(),
      unchanged: z.number().int(),
      /** form instances removed at the EDC (deleted here after they were synced); absent in runs before removals */
      removed: z.number().int().optional(),
    })
    .nullable(),
  error: z.string().nullable(),
  startedByName: z.string().nullable(),
  /**
   * the EDC account the run used: the starter's own linked login (Associate EDC, /edc-link); null = the
   * configuration's service account (scheduled runs, starters without a verified link). The server always sends it.
   */
  edcAccount: z.string().nullable().optional(),
  progressItemId: z.number().int().nullable(),
  createTime: z.string(),
  finishTime: z.string().nullable(),
});
export type EdcRunView = z.infer<typeof edcRunView>;

/** POST /SyncCenterStatus/getSyncCenterStatusList: per site, its records at the EDC by state. */
export const syncCenterStatusRow = z.object({
  siteId: z.number().int(),
  siteNo: z.string(),
  siteName: z.string(),
  subjects: z.number().int(),
  /** completed forms that can be synced */
  records: z.number().int(),
  pending: z.number().int(),
  syncing: z.number().int(),
  synced: z.number().int(),
  failed: z.number().int(),
  lastSyncAt: z.string().nullable(),
});
export type SyncCenterStatusRow = z.infer<typeof syncCenterStatusRow>;

/** POST /edcLog/getPtsEdcList: subjects with their records' sync states. */
export const ptsEdcListRequest = pageRequest.extend({
  siteId: z.preprocess(blank, idSchema.optional()),
  ptsNo: z.preprocess(blank, z.string().max(30).optional()),
  status: z.preprocess(blank, z.coerce.number().int().min(0).max(3).optional()),
});
export const ptsEdcRow = z.object({
  ptsId: z.number().int(),
  ptsNo: z.string(),
  siteName: z.string(),
  records: z.number().int(),
  pending: z.number().int(),
  synced: z.number().int(),
  failed: z.number().int(),
  /** the subject's state: failed if any record failed, else pending if any is pending or never sent, else synced */
  status: z.number().int(),
  lastSyncAt: z.string().nullable(),
  lastReason: z.string().nullable(),
});
export type PtsEdcRow = z.infer<typeof ptsEdcRow>;
export const ptsEdcPage = pageResult(ptsEdcRow);

/** POST /edcLog/getPtsEdc (and /project/pts/job/getFormByStageId per visit): one subject's forms at the EDC. */
export const ptsEdcRequest = z.object({ ptsId: idSchema, visitId: z.preprocess(blank, idSchema.optional()) });
export const ptsEdcFormRow = z.object({
  instanceId: z.number().int(),
  visitId: z.number().int(),
  visitName: z.string(),
  formCode: z.string(),
  formName: z.string(),
  repeatNo: z.number().int(),
  unscheduledId: z.number().int(),
  crfStatus: z.number().int(),
  /** null: never synced (pending) */
  status: z.number().int(),
  mapped: z.boolean(),
  reason: z.string().nullable(),
  attempts: z.number().int(),
  syncedAt: z.string().nullable(),
});
export type PtsEdcFormRow = z.infer<typeof ptsEdcFormRow>;

/** POST /edcLog/list. */
export const edcLogListRequest = pageRequest.extend({
  runId: z.preprocess(blank, idSchema.optional()),
  ptsNo: z.preprocess(blank, z.string().max(30).optional()),
  siteId: z.preprocess(blank, idSchema.optional()),
  action: z.preprocess(blank, z.enum(EDC_LOG_ACTIONS).optional()),
  status: z.preprocess(blank, z.coerce.number().pipe(z.union([z.literal(2), z.literal(3)])).optional()),
  dataName: z.preprocess(blank, z.string().max(200).optional()),
  createdBy: z.preprocess(blank, idSchema.optional()),
  dateFrom: z.preprocess(blank, dateSchema.optional()),
  dateTo: z.preprocess(blank, dateSchema.optional()),
  sortOrder: z.preprocess(blank, z.enum(['asc', 'desc']).default('desc')),
});
export type EdcLogListRequest = z.infer<typeof edcLogListRequest>;
export const edcLogChange = z.object({ item: z.string(), local: z.string(), old: z.string().nullable(), new: z.string().nullable() });
export const edcLogRow = z.object({
  id: z.number().int(),
  runId: z.number().int(),
  ptsId: z.number().int().nullable(),
  ptsNo: z.string().nullable(),
  siteName: z.string().nullable(),
  dataName: z.string().nullable(),
  action: z.enum(EDC_LOG_ACTIONS),
  status: z.number().int(),
  changeCount: z.number().int(),
  reason: z.string().nullable(),
  httpStatus: z.number().int().nullable(),
  createdByName: z.string().nullable(),
  createTime: z.string(),
});
export type EdcLogRow = z.infer<typeof edcLogRow>;
export const edcLogPage = pageResult(edcLogRow);
/** POST /edcLog/getChangeLogList: one log row's item changes and the exchange with the target. */
export const edcLogDetail = edcLogRow.extend({ changes: z.array(edcLogChange), request: z.string().nullable(), response: z.string().nullable() });
export type EdcLogDetail = z.infer<typeof edcLogDetail>;
/** POST /edcLog/exportList: the sync runs. */
export const edcRunListRequest = pageRequest;
export const edcRunPage = pageResult(edcRunView);
