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
  // after a failed audit the boxes are corrected (saveBoxes) and the file submitted again
  { action: 'submit', from: F.auditFailed, to: F.waitingAudit, permission: 'source:file:submit' },
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
  /** the subject; null for an ISF document (isfKindId) */
  ptsId: z.number().int().nullable(),
  ptsNo: z.string().nullable(),
  siteId: z.number().int(),
  /** an ISF document's kind and version (issue 12 item 8); null for a subject's file */
  isfKindId: z.number().int().nullable(),
  isfVersion: z.number().int().nullable(),
  visitId: z.number().int().nullable(),
  /** SOURCE_DOC_TYPES 1..8; null for an ISF document */
  docType: z.number().int().nullable(),
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
export type SourceFilePage = z.infer<typeof sourceFilePage>;

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

/**
 * Statuses from which automatic de-identification may run again (POST /source/file/redeid): waiting submit, audit
 * failed, or failed — with the project's desensitization settings of now, from the original; boxes drawn by hand are
 * replaced.
 */
export const SOURCE_FILE_REDEID_FROM: readonly number[] = [F.waitingSubmit, F.auditFailed, F.submitFailed];

/** GET /source/file/type/list: the 8 source document types, translated. */
export const sourceFileType = z.object({ value: z.number().int(), code: z.string(), label: z.string() });

// ── issue 12, review step: the project-wide list, messages, page images, manual de-identification ──

/**
 * The de-identification message tabs (spec §2 /project/message: pending, processed, invalid) as file statuses:
 * pending = a person still has to act (waiting import — confirmation, when the project's fileConfirmConfig asks for
 * it —, waiting submit, waiting audit, audit failed), processed = audit passed, invalid = automatic de-identification
 * failed, or an upload discarded at confirmation (default, -99).
 */
export const SOURCE_FILE_TABS = {
  pending: [F.waitingImport, F.waitingSubmit, F.waitingAudit, F.auditFailed],
  processed: [F.auditPassed],
  invalid: [F.submitFailed, F.default],
} as const satisfies Record<string, readonly number[]>;

/**
 * Upload confirmation (the project's fileConfirmConfig = 1, docs/decisions.md "Project fields"): an upload waits at
 * -3 (waiting import) until a site user holding source:file:submit confirms it — subject, visit and document type
 * checked — and only then goes to automatic de-identification (0); or discards it (-99, a reason required; the file is
 * kept, never deleted, and shows among the invalid messages).
 * POST /source/file/confirm and POST /source/file/discard.
 */
export const sourceFileConfirmRequest = z.object({ id: idSchema, version: intSchema(1) });
export const sourceFileDiscardRequest = z.object({ id: idSchema, version: intSchema(1), reason: z.string().trim().min(1).max(500) });
export type SourceFileTab = keyof typeof SOURCE_FILE_TABS;

/** Statuses at which a file's boxes may still be changed by hand (then submitted again). */
export const SOURCE_FILE_EDITABLE: readonly number[] = [F.waitingSubmit, F.auditFailed];

/** POST /source/file/page: source files of the project in the caller's scope (the /project/sourceFile list). */
export const sourceFileSearchRequest = pageRequest.extend({
  siteId: z.preprocess((v) => (v === '' ? undefined : v), idSchema.optional()),
  ptsId: z.preprocess((v) => (v === '' ? undefined : v), idSchema.optional()),
  /** part of the subject number */
  ptsNo: z.preprocess((v) => (v === '' ? undefined : v), z.string().trim().max(50).optional()),
  /** part of the file name */
  fileName: z.preprocess((v) => (v === '' ? undefined : v), z.string().trim().max(100).optional()),
  status: optionalInt(-99, 3),
  tab: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['pending', 'processed', 'invalid']).optional()),
  docType: optionalInt(1, SOURCE_DOC_TYPES.length),
  kind: z.preprocess((v) => (v === '' ? undefined : v), sourceFileKind.optional()),
  sortField: z.enum(['createTime', 'updateTime', 'ptsNo', 'fileName', 'status', 'size']).default('createTime'),
  sortOrder: z.enum(['asc', 'desc']).default('desc'),
});

/** POST /source/file/messageCount: the de-identification message counts per tab (the badge is `pending`). */
export const sourceFileTabCounts = z.object({ pending: z.number().int(), processed: z.number().int(), invalid: z.number().int() });

/** A line of text read on a page (OCR or a PDF's own text), in the page's pixels. */
export const sourceFileTextLine = z.object({
  page: z.number().int(),
  text: z.string(),
  x: z.number(),
  y: z.number(),
  width: z.number(),
  height: z.number(),
});
export type SourceFileTextLine = z.infer<typeof sourceFileTextLine>;

/** POST /tool/ocrTools: what OCR reads on one image and the boxes automatic de-identification would draw there. */
export const ocrToolResult = z.object({
  width: z.number().int(),
  height: z.number().int(),
  lines: z.array(sourceFileTextLine),
  boxes: z.array(sourceFileBox),
});
export type OcrToolResult = z.infer<typeof ocrToolResult>;

/**
 * GET /source/file/detail?id: the file with each page's size (pixels as rendered) and — for callers who may see the
 * original only — the text read on its pages (it holds identifiers), for text masking.
 */
export const sourceFileDetail = sourceFileView.extend({
  pageSizes: z.array(z.object({ width: z.number().int(), height: z.number().int() })),
  lines: z.array(sourceFileTextLine),
  /** the caller may see the original (and the lines) */
  canOriginal: z.boolean(),
  /** an ISF document's kind, in the caller's language */
  isfKind: z.string().nullable(),
  /** status allows editing the boxes, and the caller may */
  canEdit: z.boolean(),
});
export type SourceFileDetail = z.infer<typeof sourceFileDetail>;

/** GET /source/file/pageImage?id&page&copy&width: one page as an image (PDF pages rendered at 150 dpi); width = thumbnail. */
export const sourceFilePageRequest = z.object({
  id: idSchema,
  page: intSchema(0).default(0),
  copy: z.enum(['redacted', 'original']).default('redacted'),
  /** scale down to this width (thumbnails); absent = the page's own pixels */
  width: z.preprocess((v) => (v === '' ? undefined : v), intSchema(16, 2000).optional()),
});

/** A box drawn, moved or kept by hand (pixels of the page as rendered). */
export const sourceFileBoxInput = z.object({
  page: intSchema(0),
  x: z.number().min(0),
  y: z.number().min(0),
  width: z.number().positive(),
  height: z.number().positive(),
  kind: z.string().trim().min(1).max(40).default('manual'),
  reason: z.string().trim().max(200).default(''),
});

/** Text masking: characters [start, end) of one text line (index into the detail's `lines`). */
export const sourceFileTextMask = z.object({
  line: intSchema(0),
  start: intSchema(0),
  end: intSchema(1),
});
export type SourceFileTextMask = z.infer<typeof sourceFileTextMask>;

/** Most boxes a file may carry (all pages). */
export const SOURCE_FILE_MAX_BOXES = 5000;

/**
 * POST /source/file/saveBoxes: manual de-identification. The boxes replace the file's boxes; text masks add boxes
 * over the chosen characters (overlapping selections on a line are refused). The copy is redacted again from the
 * original; version-checked. Only at SOURCE_FILE_EDITABLE statuses, and only for callers who may see the original (a
 * box removed shows in the new copy what it hid). The status stays (an audit-failed file is then submitted again).
 */
export const sourceFileSaveBoxesRequest = z.object({
  id: idSchema,
  version: intSchema(1),
  boxes: z.array(sourceFileBoxInput).max(SOURCE_FILE_MAX_BOXES),
  masks: z.array(sourceFileTextMask).max(1000).default([]),
});

/** Overlapping text-mask selections (same line, shared characters): the pairs, for the refusal's message. */
export function overlappingMasks(masks: readonly SourceFileTextMask[]): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < masks.length; i++)
    for (let j = i + 1; j < masks.length; j++) {
      const a = masks[i]!;
      const b = masks[j]!;
      if (a.line === b.line && a.start < b.end && b.start < a.end) out.push([i, j]);
    }
  return out;
}

// ── PDF synthesis: a subject's de-identified pages combined into one PDF by a job ──

/** Status of a PDF synthesis (the progress item's: 1 running, 2 done, 3 failed). */
export const SUBJECT_PDF_STATUS = { running: 1, done: 2, failed: 3 } as const;

export const subjectPdfView = z.object({
  id: z.number().int(),
  status: z.number().int(),
  files: z.number().int(),
  pages: z.number().int(),
  done: z.number().int(),
  /** 0..100 */
  percent: z.number().int(),
  /** why it failed, translated */
  errorMessage: z.string().nullable(),
  createdBy: z.string().nullable(),
  createTime: z.string(),
  updateTime: z.string(),
});
export type SubjectPdfView = z.infer<typeof subjectPdfView>;

/** POST /project/manage/queryProcessBarPdf (ptsId): the subject's latest synthesis and the last one that succeeded. */
export const processBarPdfResult = z.object({
  latest: subjectPdfView.nullable(),
  lastDone: subjectPdfView.nullable(),
  running: z.boolean(),
  /** de-identified files that a synthesis now would combine */
  available: z.number().int(),
});
export type ProcessBarPdfResult = z.infer<typeof processBarPdfResult>;

export const subjectPdfRequest = z.object({ ptsId: idSchema });
export const subjectPdfDownloadRequest = z.object({ id: idSchema });

// ── POST /common/upload: files of eCRF file items ──

/** An eCRF file item's value: `upl:<upload id>:<file name>` (older values hold a file name only). */
export const UPLOAD_REF = /^upl:(\d{1,10}):(.+)$/s;
export function uploadRef(id: number, name: string): string {
  return `upl:${id}:${name}`;
}
export function parseUploadRef(v: unknown): { id: number; name: string } | null {
  const m = typeof v === 'string' ? UPLOAD_REF.exec(v) : null;
  return m ? { id: Number(m[1]), name: m[2]! } : null;
}
export const commonUploadResult = z.array(z.object({ id: z.number().int(), name: z.string(), size: z.number().int(), kind: sourceFileKind, ref: z.string() }));
export type CommonUploadResult = z.infer<typeof commonUploadResult>;
