/**
 * Generated files (issue 14 items 6 and 7): a file made by a background job and downloaded when ready. Each kind of
 * file (the casebook PDF now; ODM, Excel and Dataset-JSON study exports later) has its own parameters and permission;
 * the list, download and delete calls are the same for all kinds. Spec §7 /print/getByItext starts a casebook.
 */
import { z } from 'zod';
import { LANGUAGES } from './constants';
import { idListSchema, idSchema, pageRequest, pageResult } from './common.schema';
import type { Permission } from './permissions';

/** The kinds of generated file; each is registered on the server with its parameters, permission and generator. */
export const EXPORT_KINDS = ['casebook', 'study-odm', 'study-xlsx', 'study-datasetjson'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** The permission each kind needs: to start one, and to download one that someone else in the same scope made. */
export const EXPORT_PERMISSIONS: Readonly<Record<ExportKind, Permission>> = {
  casebook: 'crf:casebook:export',
  // a study's data (issue 14 item 7): ODM ClinicalData, Excel, Dataset-JSON
  'study-odm': 'crf:result:export',
  'study-xlsx': 'crf:result:export',
  'study-datasetjson': 'crf:result:export',
};
/** Any of these opens the list of one's own generated files. */
export const ANY_EXPORT_PERMISSION: readonly Permission[] = [...new Set(Object.values(EXPORT_PERMISSIONS))];

/** queued (waiting for a worker) → running → done (downloadable) or failed (error given). */
export const EXPORT_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

const boolish = z.preprocess(
  (v) => (v === 'true' || v === '1' ? true : v === 'false' || v === '0' || v === '' ? false : v),
  z.boolean(),
);

/**
 * POST /print/getByItext: a subject's casebook. `mode` blank = the forms' layout with empty boxes and option lists,
 * filled = the subject's data. Visits and forms narrow it (absent or empty: all of them).
 */
export const casebookRequest = z.object({
  ptsId: idSchema,
  mode: z.enum(['blank', 'filled']).default('filled'),
  /** each item's changes: when, who, old → new, reason */
  history: boolish.default(false),
  /** who certified each form and when, with the signature's meaning */
  signatures: boolish.default(true),
  language: z.enum(LANGUAGES).default('zh_CN'),
  visitIds: idListSchema.default([]),
  formIds: idListSchema.default([]),
});
export type CasebookRequest = z.infer<typeof casebookRequest>;
export type CasebookRequestInput = z.input<typeof casebookRequest>;

/** POST /export/study/start: a study data export (ODM, Excel or Dataset-JSON of one form) of a design version. */
export const studyExportStart = z.object({
  kind: z.enum(['study-odm', 'study-xlsx', 'study-datasetjson']),
  versionId: z.preprocess((v) => (v === '' || v === null ? undefined : v), idSchema.optional()),
  siteId: z.preprocess((v) => (v === '' || v === null ? undefined : v), idSchema.optional()),
  formId: z.preprocess((v) => (v === '' || v === null ? undefined : v), idSchema.optional()),
  audit: boolish.default(false),
  language: z.enum(LANGUAGES).default('zh_CN'),
});
export type StudyExportStart = z.infer<typeof studyExportStart>;

/** One generated file as its owner sees it. */
export const exportFileView = z.object({
  id: z.number().int(),
  kind: z.enum(EXPORT_KINDS),
  status: z.enum(EXPORT_STATUSES),
  /** what it is, e.g. the subject number of a casebook */
  title: z.string(),
  fileName: z.string(),
  /** 0..100 */
  progress: z.number().int(),
  done: z.number().int(),
  total: z.number().int(),
  /** bytes, once done */
  size: z.number().int().nullable(),
  sha256: z.string().nullable(),
  /** why it failed, translated */
  errorMessage: z.string().nullable(),
  params: z.record(z.string(), z.unknown()),
  createdBy: z.string().nullable(),
  createTime: z.string(),
  finishTime: z.string().nullable(),
});
export type ExportFileView = z.infer<typeof exportFileView>;

export const exportFileListRequest = pageRequest.extend({ kind: z.enum(EXPORT_KINDS).optional() });
export const exportFilePage = pageResult(exportFileView);
export type ExportFilePage = z.infer<typeof exportFilePage>;
export const exportFileIdRequest = z.object({ id: idSchema });
