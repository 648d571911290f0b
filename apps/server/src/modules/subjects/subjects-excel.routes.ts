/**
 * Subject Excel routes (issue 5): POST /project/managePts/importPts is the spec's; the template
 * (GET /project/managePts/importTemplate) and the export (GET /project/manage/ptsExport) are ours
 * (docs/decisions.md). Routes parse and authorize; SubjectsExcelService does the work.
 */
import { z } from 'zod';
import { SUBJECT_IMPORT_LIMITS, subjectExportQuery, subjectImportResponse } from '@esource/shared';
import type { AppDeps } from '../../app-deps';
import { contentDisposition, downloadStamp, readUpload, XLSX_MIME } from '../../lib/excel';
import { translator } from '../../lib/i18n';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { SubjectsExcelService } from './subjects.excel';

const tags = ['subjects'];
const importGuard = { permission: { anyOf: ['patient:page:import'] }, scope: 'project' } as const;

export function subjectExcelRoutes({ database }: AppDeps): RouteSpec[] {
  const svc = new SubjectsExcelService(database.db);
  return [
    defineRoute({
      method: 'GET',
      url: '/project/managePts/importTemplate',
      guard: importGuard,
      summary: 'Subject import template (.xlsx): headers in the request language, an example row and a notes sheet',
      tags,
      response: z.null(),
      raw: true,
      handler: async ({ ctx, reply }) => {
        const buf = await svc.template(ctx);
        const name = translator(ctx.language)('subjectsExcel.templateFileName');
        void reply
          .header('content-type', XLSX_MIME)
          .header('content-disposition', contentDisposition(`${name}.xlsx`, 'subject-import-template.xlsx'))
          .header('cache-control', 'no-store')
          .send(buf);
        return null;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/project/managePts/importPts',
      guard: importGuard,
      summary: "Import subjects from one .xlsx (≤ 5 MB) at the caller's sites, all or nothing; every bad row is named",
      tags,
      bodyType: 'multipart',
      response: subjectImportResponse,
      handler: async ({ ctx, req }) => {
        const buf = await readUpload(req, ctx.language, SUBJECT_IMPORT_LIMITS.maxBytes);
        return svc.importWorkbook(ctx, buf);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/project/manage/ptsExport',
      guard: { permission: { anyOf: ['patient:page:export'] }, scope: 'project' },
      summary: "The subject list with the list's filters as .xlsx (streamed): identifiers masked as the list masks them",
      tags,
      query: subjectExportQuery,
      response: z.null(),
      raw: true,
      handler: async ({ ctx, query, reply }) => {
        const stream = await svc.export(ctx, query);
        const name = `${translator(ctx.language)('subjectsExcel.fileName')}-${downloadStamp()}.xlsx`;
        void reply
          .header('content-type', XLSX_MIME)
          .header('content-disposition', contentDisposition(name, `subjects-${downloadStamp()}.xlsx`))
          .header('cache-control', 'no-store')
          .send(stream);
        return null;
      },
    }),
  ];
}
