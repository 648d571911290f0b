/**
 * Routes of queries (issue 13, spec §7 eCRF Queries: add, update, detail, list, field/list, export; /project/doubtList).
 * Read: any of doubt:querying|replied|closed:query (each shows its status); raise and reopen: doubt:querying:add;
 * reply: doubt:querying:reply; close: doubt:querying:close; export: doubt:export:export.
 */
import ExcelJS from 'exceljs';
import { z } from 'zod';
import { idSchema, queryAddRequest, queryCounts, queryDetail, queryFieldListRequest, queryFieldMarks, queryListRequest, queryPage, queryUpdateRequest } from '@esource/shared';
import type { AppDeps } from '../../app-deps';
import { contentDisposition, downloadStamp, safeRow } from '../../lib/excel';
import { translator } from '../../lib/i18n';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { QueriesService } from './queries.service';

const READ = { permission: { anyOf: ['doubt:querying:query', 'doubt:replied:query', 'doubt:closed:query'] }, scope: 'project' } as const;
/** rows in one export file at most */
export const QUERY_EXPORT_MAX = 50_000;

export function queryRoutes({ database }: AppDeps): RouteSpec[] {
  const svc = new QueriesService(database.db);
  const tags = ['queries'];
  return [
    defineRoute({
      method: 'POST',
      url: '/crf/query/add',
      guard: { permission: { anyOf: ['doubt:querying:add'] }, scope: 'project' },
      summary: 'Raise a query on an item (ptsId, visitId, formId, variable), a form, a visit or a subject',
      tags,
      bodyType: 'json',
      body: queryAddRequest,
      response: queryDetail,
      handler: ({ ctx, body }) => svc.add(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/query/update',
      guard: { permission: { anyOf: ['doubt:querying:reply', 'doubt:querying:close', 'doubt:querying:add'] }, scope: 'project' },
      summary: "Reply (1→2; may change the item's value with a reason), close (1|2→3) or reopen (3→1, reason) a query; version-checked",
      tags,
      bodyType: 'json',
      body: queryUpdateRequest,
      response: queryDetail,
      handler: ({ ctx, body }) => svc.update(ctx, body),
    }),
    defineRoute({ method: 'GET', url: '/crf/query/detail', guard: READ, summary: 'A query with its thread, the current value and what the caller may do', tags, query: z.object({ id: idSchema }), response: queryDetail, handler: ({ ctx, query }) => svc.detail(ctx, query.id) }),
    defineRoute({ method: 'POST', url: '/crf/query/list', guard: READ, summary: "Queries in the caller's scope (filters: status, site, subject, visit, form, origin, text), newest change first", tags, body: queryListRequest, response: queryPage, cache: true, handler: ({ ctx, body }) => svc.list(ctx, body) }),
    defineRoute({ method: 'POST', url: '/crf/query/count', guard: READ, summary: 'Queries per status in the caller\'s scope (tabs and badge)', tags, response: queryCounts, cache: true, handler: ({ ctx }) => svc.counts(ctx) }),
    defineRoute({ method: 'POST', url: '/crf/query/field/list', guard: READ, summary: 'Open and answered queries of one form instance per item (the form\'s markers)', tags, body: queryFieldListRequest, response: queryFieldMarks, handler: ({ ctx, body }) => svc.fieldMarks(ctx, body.instanceId) }),
    defineRoute({
      method: 'GET',
      url: '/crf/query/export',
      guard: { permission: { allOf: ['doubt:export:export'] }, scope: 'project' },
      summary: 'The queries of the list\'s filters as an Excel file (at most 50,000 rows)',
      tags,
      query: queryListRequest,
      response: z.unknown(),
      raw: true,
      handler: async ({ ctx, query, reply }) => {
        const t = translator(ctx.language);
        const rows = await svc.all(ctx, query, QUERY_EXPORT_MAX);
        const wb = new ExcelJS.Workbook();
        const ws = wb.addWorksheet(t('queries.sheet'));
        ws.columns = [
          { header: t('queries.col.id'), key: 'id', width: 8 },
          { header: t('queries.col.status'), key: 'status', width: 12 },
          { header: t('queries.col.subject'), key: 'subject', width: 14 },
          { header: t('queries.col.site'), key: 'site', width: 22 },
          { header: t('queries.col.visit'), key: 'visit', width: 18 },
          { header: t('queries.col.form'), key: 'form', width: 20 },
          { header: t('queries.col.item'), key: 'item', width: 22 },
          { header: t('queries.col.question'), key: 'question', width: 50 },
          { header: t('queries.col.origin'), key: 'origin', width: 12 },
          { header: t('queries.col.raisedBy'), key: 'by', width: 18 },
          { header: t('queries.col.raisedAt'), key: 'at', width: 20 },
          { header: t('queries.col.lastMessage'), key: 'last', width: 40 },
          { header: t('queries.col.updatedAt'), key: 'updated', width: 20 },
        ];
        ws.getRow(1).font = { bold: true };
        for (const r of rows) {
          ws.addRow(
            safeRow({
              id: r.id,
              status: t(`queries.status.${r.status}`),
              subject: r.ptsNo,
              site: r.siteName,
              visit: r.visitName ?? '',
              form: r.formName ?? '',
              item: r.itemLabel ?? r.variable ?? '',
              question: r.text,
              origin: t(`queries.origin.${r.origin}`),
              by: r.createdBy ?? '',
              at: r.createTime,
              last: r.lastMessage ?? '',
              updated: r.updateTime,
            }),
          );
        }
        const buf = Buffer.from(await wb.xlsx.writeBuffer());
        const name = `queries-${downloadStamp()}.xlsx`;
        await reply.header('content-type', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet').header('content-disposition', contentDisposition(name, name)).send(buf);
        return undefined;
      },
    }),
  ];
}
