/**
 * Routes of the study reports (issue 14 item 5, spec §7): the filter options, eCRF completion, missing data and
 * data consistency, each with its Excel export. Guards use the report permissions (report:crf:*, report:crf-missing:*,
 * report:data-consistency:*); every call is scoped to the caller's project, environment and sites. Exports are POSTs
 * of the same filters (spec: /dataConsistencyReport/export is a POST) answered with a streamed .xlsx.
 */
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import {
  consistencyExportRequest,
  consistencyPage,
  consistencyRequest,
  crfMissingExportRequest,
  crfMissingPage,
  crfMissingRequest,
  crfReport,
  crfReportRequest,
  reportOptions,
  reportOptionsRequest,
  type CrfMissingRow,
  type Permission,
} from '@esource/shared';
import type { AppDeps } from '../../app-deps';
import type { ProjectScopedContext } from '../../lib/context';
import { contentDisposition, downloadStamp, XLSX_MIME } from '../../lib/excel';
import { translator } from '../../lib/i18n';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { actorOf, recordAudit } from '../audit/audit.service';
import { projectZone } from '../prefill/prefill-engine';
import { ConsistencyReport } from './reports-consistency';
import { MissingReport } from './reports-missing';
import {
  completionWorkbook,
  consistencyWorkbook,
  filterNames,
  missingWorkbook,
  type FilterNames,
} from './reports.excel';
import { ReportsService, subjectWhere } from './reports.service';

const guard = (...anyOf: Permission[]) => ({ permission: { anyOf }, scope: 'project' }) as const;
const tags = ['reports'];

export function reportRoutes({ database }: AppDeps): RouteSpec[] {
  const db = database.db;
  const reports = new ReportsService(db);
  const missing = new MissingReport(db, reports);
  const consistency = new ConsistencyReport(db);

  /** The export's filters by name and who exported what (the audit trail keeps every export of study data). */
  const prepare = async (
    ctx: ProjectScopedContext,
    kind: 'crf' | 'crf-missing' | 'data-consistency',
    f: Parameters<typeof filterNames>[2],
    figures: [string, string | number][] = [],
  ) => {
    const t = translator(ctx.language);
    const options = await reports.options(ctx);
    const names: FilterNames = {
      project: ctx.project.name,
      env: ctx.env,
      values: filterNames(t, options, f),
      figures,
    };
    await db.transaction((tx) =>
      recordAudit(tx, actorOf(ctx), [
        { action: `report.${kind}.export`, entity: 'report', projectId: ctx.project.id, newValue: f },
      ]),
    );
    return { names, tz: await projectZone(db, ctx.project.id) };
  };
  const send = (
    ctx: ProjectScopedContext,
    reply: FastifyReply,
    key: 'crf' | 'missing' | 'consistency',
    stream: NodeJS.ReadableStream,
  ) => {
    const name = `${translator(ctx.language)(`reports.fileName.${key}`)}-${downloadStamp()}.xlsx`;
    void reply
      .header('content-type', XLSX_MIME)
      .header('content-disposition', contentDisposition(name, `${key}-report-${downloadStamp()}.xlsx`))
      .header('cache-control', 'no-store')
      .send(stream);
    return null;
  };

  return [
    defineRoute({
      method: 'POST',
      url: '/visual/report/pts/options',
      guard: guard('report:crf:query', 'report:crf-missing:query', 'report:data-consistency:query'),
      summary:
        "The reports' filter options: the caller's sites, the design versions in use, their visits and forms (by code) with the forms' items",
      tags,
      bodyType: 'json',
      body: reportOptionsRequest,
      response: reportOptions,
      cache: true,
      handler: ({ ctx, body }) => reports.options(ctx, body.versionId),
    }),
    defineRoute({
      method: 'POST',
      url: '/visual/report/crfReport',
      guard: guard('report:crf:query'),
      summary:
        'eCRF completion by site, visit or form: forms expected, not started, draft, completed, certified, and the completion rate',
      tags,
      bodyType: 'json',
      body: crfReportRequest,
      response: crfReport,
      cache: true,
      handler: ({ ctx, body }) => reports.completion(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/visual/report/crfReport/export',
      guard: guard('report:crf:export'),
      summary:
        'eCRF completion of the filters as .xlsx (streamed): by site, by visit, by form, and the filters',
      tags,
      bodyType: 'json',
      body: crfReportRequest,
      response: z.null(),
      raw: true,
      handler: async ({ ctx, body, reply }) => {
        const site = await reports.completionBy(ctx, body, 'site');
        const visit = await reports.completionBy(ctx, body, 'visit');
        const form = await reports.completionBy(ctx, body, 'form');
        const t = translator(ctx.language);
        const { names } = await prepare(ctx, 'crf', body, [
          [t('reports.filter.subjects'), site.totals.subjects],
          [t('reports.filter.expected'), site.totals.expected],
          [t('reports.filter.rate'), `${(site.totals.rate * 100).toFixed(1)}%`],
        ]);
        return send(ctx, reply, 'crf', completionWorkbook(ctx.language, { site, visit, form }, names));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/visual/report/crfReportMissing',
      guard: guard('report:crf-missing:query'),
      summary:
        'Required items left empty (and shown by their display condition) in saved forms: a sorted page and the summary by form and item',
      tags,
      bodyType: 'json',
      body: crfMissingRequest,
      response: crfMissingPage,
      cache: true,
      handler: ({ ctx, body }) => missing.page(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/visual/report/crfReportMissing/export',
      guard: guard('report:crf-missing:export'),
      summary:
        'Every missing item of the filters as .xlsx (streamed, by subject number), the summary by item, and the filters',
      tags,
      bodyType: 'json',
      body: crfMissingExportRequest,
      response: z.null(),
      raw: true,
      handler: async ({ ctx, body, reply }) => {
        const chunks = missing.exportChunks(ctx, body);
        // the summary first: a refused filter is an error answer, not a broken download
        const first = await chunks.next();
        const summary = first.done ? undefined : first.value.summary;
        const t = translator(ctx.language);
        const { names, tz } = await prepare(ctx, 'crf-missing', body, [
          [t('reports.filter.formsChecked'), summary?.formsChecked ?? 0],
          [t('reports.filter.formsWithMissing'), summary?.formsWithMissing ?? 0],
          [t('reports.filter.missing'), summary?.missing ?? 0],
        ]);
        async function* rest(): AsyncGenerator<CrfMissingRow[]> {
          for await (const c of chunks) yield c.rows;
        }
        return send(
          ctx,
          reply,
          'missing',
          missingWorkbook(
            ctx.language,
            tz,
            summary ?? { formsChecked: 0, formsWithMissing: 0, missing: 0, byForm: [], byItem: [] },
            rest(),
            names,
          ),
        );
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/dataConsistencyReport/list',
      guard: guard('report:data-consistency:query'),
      summary:
        'Pre-filled eCRF values that no longer agree with their source record (edited since, or the source changed or was deleted): a sorted page',
      tags,
      bodyType: 'json',
      body: consistencyRequest,
      response: consistencyPage,
      cache: true,
      handler: ({ ctx, body }) => consistency.page(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/dataConsistencyReport/export',
      guard: guard('report:data-consistency:export'),
      summary:
        'Every listed value of the filters as .xlsx (streamed, by subject number) with both values, and the filters',
      tags,
      bodyType: 'json',
      body: consistencyExportRequest,
      response: z.null(),
      raw: true,
      handler: async ({ ctx, body, reply }) => {
        // a site out of reach is refused before the download starts
        subjectWhere(ctx, body);
        const { names, tz } = await prepare(ctx, 'data-consistency', body);
        return send(
          ctx,
          reply,
          'consistency',
          consistencyWorkbook(ctx.language, tz, consistency.exportChunks(ctx, body), names),
        );
      },
    }),
  ];
}
