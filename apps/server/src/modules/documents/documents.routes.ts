/**
 * Routes of source documents (issue 12): upload, list, read, document types, status workflow; the review step's
 * project-wide list, message counts, detail, page images and manual de-identification.
 */
import path from 'node:path';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  LIMITS,
  processBarPdfResult,
  subjectPdfDownloadRequest,
  subjectPdfRequest,
  subjectPdfView,
  idSchema,
  SOURCE_DOC_TYPES,
  sourceFileDetail,
  sourceFileListRequest,
  sourceFilePage,
  sourceFilePageRequest,
  sourceFileReadRequest,
  sourceFileSaveBoxesRequest,
  sourceFileSearchRequest,
  sourceFileStatusRequest,
  sourceFileTabCounts,
  sourceFileType,
  sourceFileUploadFields,
  sourceFileUploadResult,
  sourceFileView,
  sourceFileWithdrawRequest,
  sourceFileConfirmRequest,
  sourceFileDiscardRequest,
  visitSlot,
  ocrToolResult,
  type Language,
} from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { AppError } from '../../lib/errors';
import { translator } from '../../lib/i18n';
import { parseInput } from '../../lib/validate';
import { contentDisposition } from '../../lib/excel';
import { DocumentsService } from './documents.service';
import { DocumentsReviewService } from './documents-review.service';
import { DeidJob } from './deid.job';
import { SubjectPdfService } from './subject-pdf';
import { fileStoreOf } from './file-store';
import { EcrfService } from '../ecrf/ecrf.service';
import { ocrTool } from './ocr-tool';
import { checkFile, tooLarge, type CheckedFile } from './upload-check';

const READ = { permission: { anyOf: ['source:file:query'] }, scope: 'project' } as const;
const UPLOAD = { permission: { anyOf: ['source:file:upload'] }, scope: 'project' } as const;
/** the source file list and the de-identification messages (spec §2 /project/sourceFile, /project/message) */
const LIST = { permission: { anyOf: ['source:file:query', 'message:pending:query', 'message:processed:query', 'message:invalid:query'] }, scope: 'project' } as const;

/**
 * The multipart request's fields and files, each file checked by its content; the first bad file refuses the whole
 * request before anything is stored. Files are read into memory: the server's body limit (a PDF of 50 MB plus the rest)
 * bounds a request.
 */
export async function readUpload(req: FastifyRequest, lang: Language): Promise<{ fields: Record<string, string>; files: CheckedFile[] }> {
  if (!req.isMultipart()) throw new AppError('UNSUPPORTED_MEDIA_TYPE', { type: req.headers['content-type'] ?? '' });
  const fields: Record<string, string> = {};
  const raw: { name: string; bytes: Buffer }[] = [];
  for await (const part of req.parts({ limits: { fileSize: LIMITS.pdfMaxBytes, files: LIMITS.fileCountMax } })) {
    if (part.type === 'file') {
      const name = part.filename || part.fieldname;
      let bytes: Buffer;
      try {
        bytes = await part.toBuffer();
      } catch (err) {
        if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge(lang, name, true);
        throw err;
      }
      raw.push({ name, bytes });
    } else {
      fields[part.fieldname] = typeof part.value === 'string' ? part.value : String(part.value);
    }
  }
  const files: CheckedFile[] = [];
  for (const f of raw) files.push(await checkFile(lang, f.name, f.bytes));
  return { fields, files };
}

export function documentRoutes({ database, jobs, config }: AppDeps): RouteSpec[] {
  const store = fileStoreOf(config);
  const deid = new DeidJob(database, jobs, store);
  const svc = new DocumentsService(database.db, store, deid);
  const review = new DocumentsReviewService(database.db, store, svc);
  const pdf = new SubjectPdfService(database, jobs, store, svc);
  const ecrf = new EcrfService(database.db);
  const tags = ['documents'];
  return [
    defineRoute({
      method: 'GET',
      url: '/source/file/type/list',
      guard: READ,
      summary: 'The 8 source document types (spec §3), translated',
      tags,
      response: z.array(sourceFileType),
      handler: ({ ctx }) => {
        const t = translator(ctx.language);
        return Promise.resolve(SOURCE_DOC_TYPES.map((code, i) => ({ value: i + 1, code, label: t(`source.docType.${i + 1}`) })));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/source/file/uploadImgNew',
      guard: UPLOAD,
      summary: "Upload a subject's source documents (multipart: ptsId, visitId?, docType, files): checked by content, all or nothing, then de-identified by a job per file",
      tags,
      bodyType: 'multipart',
      response: sourceFileUploadResult,
      handler: async ({ ctx, req }) => {
        const { fields, files } = await readUpload(req, ctx.language);
        const input = parseInput(sourceFileUploadFields, fields, ctx.language, 'body');
        return { files: await svc.upload(ctx, input, files) };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/tool/ocrTools',
      guard: { permission: { anyOf: ['source:config:query', 'source:config:update', 'source:file:upload'] }, scope: 'project' },
      summary: "Read one image (multipart, PNG/JPG ≤ 2 MB) and show what automatic de-identification would box on it with the project's settings; nothing is stored",
      tags,
      bodyType: 'multipart',
      response: ocrToolResult,
      handler: async ({ ctx, req }) => {
        const { files } = await readUpload(req, ctx.language);
        return ocrTool(ctx.language, files, await deid.options({ subjectId: null, projectId: ctx.project.id, env: ctx.env }));
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/source/file/openStageList',
      guard: READ,
      summary: "The visits (stages) of a subject a source document can be attached to, with planned dates and state",
      tags,
      query: z.object({ ptsId: idSchema }),
      response: z.array(visitSlot.extend({ state: z.string() })),
      handler: async ({ ctx, query }) => {
        // a subject in the caller's scope (404 otherwise), then its schedule without the forms
        await svc.subjectOf(database.db, ctx, query.ptsId);
        return (await ecrf.schedule(ctx, query.ptsId)).map(({ forms: _forms, ...v }) => v);
      },
    }),
    defineRoute({ method: 'POST', url: '/source/file/list', guard: READ, summary: "A subject's source files, newest first (filter by status, document type)", tags, body: sourceFileListRequest, response: sourceFilePage, handler: ({ ctx, body }) => svc.list(ctx, body) }),
    defineRoute({
      method: 'GET',
      url: '/source/file/read',
      guard: READ,
      summary: 'A source file: the de-identified copy, or the original (identifier-holding site roles only; audited)',
      tags,
      query: sourceFileReadRequest,
      response: z.unknown(),
      raw: true,
      handler: async ({ ctx, query, reply }) => {
        const f = await svc.read(ctx, query.id, query.copy);
        await reply.header('content-type', f.mime).header('cache-control', 'no-store').header('content-disposition', contentDisposition(f.name, `source-file-${query.id}${path.extname(f.name)}`)).send(f.bytes);
        return undefined;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/source/file/updateStatus',
      guard: { permission: { anyOf: ['source:file:submit', 'source:file:audit'] }, scope: 'project' },
      summary: 'Submit (1→2), audit passed (2→3) or audit failed (2→-1, reason) — SOURCE_FILE_TRANSITIONS; version-checked',
      tags,
      body: sourceFileStatusRequest,
      response: sourceFileView,
      handler: ({ ctx, body }) => svc.updateStatus(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/source/file/withdrawStatus',
      guard: { permission: { anyOf: ['source:file:withdraw'] }, scope: 'project' },
      summary: 'Withdraw a submitted file (2→1); version-checked',
      tags,
      body: sourceFileWithdrawRequest,
      response: sourceFileView,
      handler: ({ ctx, body }) => svc.withdraw(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/source/file/confirm',
      guard: { permission: { anyOf: ['source:file:submit'] }, scope: 'project' },
      summary: "Confirm an upload waiting for confirmation (the project's fileConfirmConfig): -3 → 0, automatic de-identification starts; version-checked",
      tags,
      body: sourceFileConfirmRequest,
      response: sourceFileView,
      handler: ({ ctx, body }) => svc.confirm(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/source/file/discard',
      guard: { permission: { anyOf: ['source:file:submit'] }, scope: 'project' },
      summary: 'Discard an upload waiting for confirmation (-3 → -99, reason required; the file is kept); version-checked',
      tags,
      body: sourceFileDiscardRequest,
      response: sourceFileView,
      handler: ({ ctx, body }) => svc.discard(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/source/file/redeid',
      guard: { permission: { anyOf: ['source:file:upload', 'isf:file:upload'] }, scope: 'project' },
      summary: 'Run automatic de-identification again from the original with the current desensitization settings (from waiting submit, audit failed or failed; boxes drawn by hand are replaced); version-checked',
      tags,
      body: sourceFileWithdrawRequest,
      response: sourceFileView,
      handler: ({ ctx, body }) => svc.redeid(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/source/file/page',
      guard: LIST,
      summary: "The project's source files in the caller's scope: filter by site, subject, file name, status or message tab, document type, kind; sorted, paged",
      tags,
      body: sourceFileSearchRequest,
      response: sourceFilePage,
      handler: ({ ctx, body }) => review.page(ctx, body),
    }),
    defineRoute({ method: 'POST', url: '/source/file/messageCount', guard: LIST, summary: 'De-identification messages per tab (pending, processed, invalid) in the caller\'s scope', tags, response: sourceFileTabCounts, handler: ({ ctx }) => review.tabCounts(ctx) }),
    defineRoute({
      method: 'GET',
      url: '/source/file/detail',
      guard: READ,
      summary: "A source file with its page sizes and — for callers who may see the original — the text read on its pages",
      tags,
      query: z.object({ id: idSchema }),
      response: sourceFileDetail,
      handler: ({ ctx, query }) => review.detail(ctx, query.id),
    }),
    defineRoute({
      method: 'GET',
      url: '/source/file/pageImage',
      guard: READ,
      summary: 'One page as an image: the de-identified copy, or the original (identifier-holding site roles only; audited); width = thumbnail (JPEG)',
      tags,
      query: sourceFilePageRequest,
      response: z.unknown(),
      raw: true,
      handler: async ({ ctx, query, reply }) => {
        const img = await review.pageImage(ctx, query);
        await reply.header('content-type', img.mime).header('cache-control', 'no-store').send(img.bytes);
        return undefined;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/source/file/saveBoxes',
      // an ISF document's boxes: isf:file:upload (checked per file in the service)
      guard: { permission: { anyOf: ['source:file:upload', 'isf:file:upload'] }, scope: 'project' },
      summary: 'Manual de-identification: the boxes (replacing the file\'s) and text masks; the copy is redacted again from the original; version-checked, audited',
      tags,
      bodyType: 'json',
      body: sourceFileSaveBoxesRequest,
      response: sourceFileDetail,
      handler: ({ ctx, body }) => review.saveBoxes(ctx, body),
    }),
    // PDF synthesis: the subject's de-identified pages in one PDF (a job; one at a time per subject)
    defineRoute({ method: 'POST', url: '/project/manage/synthesisPdf', guard: READ, summary: "Start combining a subject's de-identified source files into one PDF (refused while one runs: 'PDF synthesis in progress')", tags, body: subjectPdfRequest, response: subjectPdfView, handler: ({ ctx, body }) => pdf.start(ctx, body.ptsId) }),
    defineRoute({ method: 'POST', url: '/project/manage/queryProcessBarPdf', guard: READ, summary: "A subject's latest PDF synthesis and its progress", tags, body: subjectPdfRequest, response: processBarPdfResult, handler: ({ ctx, body }) => pdf.status(ctx, body.ptsId) }),
    defineRoute({
      method: 'GET',
      url: '/project/manage/downloadPdf',
      guard: READ,
      summary: 'The combined PDF of a finished synthesis (de-identified pages only)',
      tags,
      query: subjectPdfDownloadRequest,
      response: z.unknown(),
      raw: true,
      handler: async ({ ctx, query, reply }) => {
        const f = await pdf.download(ctx, query.id);
        await reply.header('content-type', 'application/pdf').header('cache-control', 'no-store').header('content-disposition', contentDisposition(f.name, `subject-pdf-${query.id}.pdf`)).send(f.bytes);
        return undefined;
      },
    }),
  ];
}
