/**
 * Source documents (issue 12, first server step): upload, automatic de-identification, the file status workflow
 * and reads of the de-identified copy or (for site roles allowed to see identifiers) the original.
 */
import { z } from 'zod';
import { SOURCE_DOC_TYPES, SOURCE_FILE_STATUS } from './enums';
import { idSchema, intSchema, pageRequest, pageResult } from './common.schema';

const F = SOURCE_FILE_STATUS;

/** An action of the file status workflow: who may take it, from which status, to which. */
export interface SourceFileTransition {
  action: 'submit' | 'pass' | 'fail' | 'withdraw';
  from: number;
  to: number;
  /** the permission the caller needs for this step */
  permission: 'source:file:submit' | 'source:file:audit' | 'source:file:withdraw';
  /** a reason is required (audit failed) */
  reason?: true;
}

/**
 * The ONE table of allowed status changes a user makes (docs/decisions.md "Source file statuses"). The system's own
 * steps are not in it: upload → 0 (automatic de-identification), 0 → 1 (done) or 0 → -2 (failed, with its reason).
 */
export const SOURCE_FILE_TRANSITIONS: readonly SourceFileTransition[] = [
  { action: 'submit', from: F.waitingSubmit, to: F.waitingAudit, permission: 'source:file:submit' },
  { action: 'pass', from: F.waitingAudit, to: F.auditPassed, permission: 'source:file:audit' },
  { action: 'fail', from: F.waitingAudit, to: F.auditFailed, permission: 'source:file:audit', reason: true },
  { action: 'withdraw', from: F.waitingAudit, to: F.waitingSubmit, permission: 'source:file:withdraw' },
];

/** The transition from → to, or undefined when the table does not allow it. */
export function sourceFileTransition(from: number, to: number): SourceFileTransition | undefined {
  return SOURCE_FILE_TRANSITIONS.find((t) => t.from === from && t.to === to);
}

/** Multipart fields of POST /source/file/uploadImgNew (besides the files). */
export const sourceFileUploadFields = z.object({
  ptsId: idSchema,
  visitId: z.preprocess((v) => (v === '' ? undefined : v), idSchema.optional()),
  /** 1..8, SOURCE_DOC_TYPES order */
  docType: intSchema(1, SOURCE_DOC_TYPES.length),
});

export const sourceFileKind = z.enum(['image', 'pdf']);

/** A proposed redaction box: pixels of the page as rendered (images: their own pixels; PDFs: 150 dpi). */
export const sourceFileBox = z.object({
  page: z.number().int(),
  x: z.number(),
  y: z.number(),
  width: z.number(),
  height: z.number(),
  kind: z.string(),
  reason: z.string(),
});
export type SourceFileBox = z.infer<typeof sourceFileBox>;

export const sourceFileView = z.object({
  id: z.number().int(),
  ptsId: z.number().int(),
  ptsNo: z.string(),
  siteId: z.number().int(),
  visitId: z.number().int().nullable(),
  docType: z.number().int(),
  fileName: z.string(),
  kind: sourceFileKind,
  size: z.number().int(),
  pages: z.number().int(),
  status: z.number().int(),
  /** the audit-failed reason */
  reason: z.string().nullable(),
  /** why automatic de-identification failed (status -2), translated */
  errorMessage: z.string().nullable(),
  boxes: z.array(sourceFileBox),
  hasRedacted: z.boolean(),
  version: z.number().int(),
  createdBy: z.string().nullable(),
  createTime: z.string(),
  updateTime: z.string(),
});
export type SourceFileView = z.infer<typeof sourceFileView>;

export const sourceFileUploadResult = z.object({ files: z.array(sourceFileView) });

const optionalInt = (min: number, max: number) => z.preprocess((v) => (v === '' ? undefined : v), intSchema(min, max).optional());

/** POST /source/file/list: a subject's files, newest first. */
export const sourceFileListRequest = pageRequest.extend({
  ptsId: idSchema,
  status: optionalInt(-99, 3),
  docType: optionalInt(1, SOURCE_DOC_TYPES.length),
});
export const sourceFilePage = pageResult(sourceFileView);

/** GET /source/file/read?id&copy: the de-identified copy (default) or the original. */
export const sourceFileReadRequest = z.object({
  id: idSchema,
  copy: z.enum(['redacted', 'original']).default('redacted'),
});

/** POST /source/file/updateStatus: submit (1→2), audit passed (2→3) or failed (2→-1, reason required). */
export const sourceFileStatusRequest = z.object({
  id: idSchema,
  version: intSchema(1),
  status: intSchema(-99, 3),
  reason: z.preprocess((v) => (v === '' ? undefined : v), z.string().max(500).optional()),
});

/** POST /source/file/withdrawStatus: back from waiting audit to waiting submit (2→1). */
export const sourceFileWithdrawRequest = z.object({ id: idSchema, version: intSchema(1) });

/** GET /source/file/type/list: the 8 source document types, translated. */
export const sourceFileType = z.object({ value: z.number().int(), code: z.string(), label: z.string() });
