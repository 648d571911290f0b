/**
 * Routes of generated files (issue 14 items 6 and 7): POST /print/getByItext starts a subject's casebook (spec §7);
 * the list, one file's state, download and delete serve every kind. Starting needs the kind's permission; the list,
 * state and delete show the caller's own files only; download also serves a colleague's file to whoever holds the
 * kind's permission and reaches the file's site (ExportsService.download).
 */
import { z } from 'zod';
import {
  ANY_EXPORT_PERMISSION,
  casebookRequest,
  exportFileIdRequest,
  exportFileListRequest,
  exportFilePage,
  exportFileView,
  studyExportStart,
} from '@esource/shared';
import type { AppDeps } from '../../app-deps';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { contentDisposition } from '../../lib/excel';
import { fileStoreOf } from '../documents/file-store';
import { ExportsService } from './exports.service';

const CASEBOOK = { permission: { allOf: ['crf:casebook:export'] }, scope: 'project' } as const;
const ANY = { permission: { anyOf: ANY_EXPORT_PERMISSION }, scope: 'project' } as const;
const STUDY = { permission: { allOf: ['crf:result:export'] }, scope: 'project' } as const;

export function exportRoutes({ database, jobs, config }: AppDeps): RouteSpec[] {
  const svc = new ExportsService(database, jobs, fileStoreOf(config));
  const tags = ['exports'];
  return [
    defineRoute({
      method: 'POST',
      url: '/print/getByItext',
      guard: CASEBOOK,
      summary:
        "Start printing a subject's casebook as PDF (blank or filled; item history, signatures, language, visits/forms subset) — a job; answers the generated file (id, status) to poll and download",
      tags,
      body: casebookRequest,
      response: exportFileView,
      handler: ({ ctx, body }) => svc.start(ctx, 'casebook', body),
    }),
    defineRoute({
      method: 'POST',
      url: '/export/study/start',
      guard: STUDY,
      summary:
        "Start a study data export of a design version (CDISC ODM 1.3.2 ClinicalData, Excel one sheet per form, or CDISC Dataset-JSON 1.1 of one form) — a job, streamed in constant memory; answers the generated file to poll and download",
      tags,
      bodyType: 'json',
      body: studyExportStart,
      response: exportFileView,
      handler: ({ ctx, body }) => {
        const { kind, ...params } = body;
        return svc.start(ctx, kind, params);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/export/file/list',
      guard: ANY,
      summary:
        "The caller's generated files in this project and environment, newest first (status, progress, size, kind)",
      tags,
      body: exportFileListRequest,
      response: exportFilePage,
      handler: ({ ctx, body }) => svc.list(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/export/file/get',
      guard: ANY,
      summary: 'One of the caller’s generated files: status and progress',
      tags,
      body: exportFileIdRequest,
      response: exportFileView,
      handler: ({ ctx, body }) => svc.get(ctx, body.id),
    }),
    defineRoute({
      method: 'GET',
      url: '/export/file/download',
      guard: ANY,
      summary:
        "A finished generated file (the creator's, or one in the caller's sites for a holder of the kind's permission); audited",
      tags,
      query: exportFileIdRequest,
      response: z.unknown(),
      raw: true,
      handler: async ({ ctx, query, reply }) => {
        const f = await svc.download(ctx, query.id);
        if (f.size !== null) void reply.header('content-length', f.size);
        await reply
          .header('content-type', f.contentType)
          .header('cache-control', 'no-store')
          .header(
            'content-disposition',
            contentDisposition(f.name, `export-${query.id}${f.name.slice(f.name.lastIndexOf('.'))}`),
          )
          .send(f.stream);
        return undefined;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/export/file/delete',
      guard: ANY,
      summary: 'Delete one of the caller’s generated files (one still being made is cancelled); audited',
      tags,
      body: exportFileIdRequest,
      response: z.null(),
      handler: async ({ ctx, body }) => {
        await svc.remove(ctx, body.id);
        return null;
      },
    }),
  ];
}
