/**
 * Routes of the signal report (issue 13 item 6, /project/signalReport): the report and its terms table
 * (clinical:signal:query), and the Excel workbook of the same filters — by term, by period, by site, and the filters
 * used (clinical:signal:export). Every call is scoped to the caller's project, environment and sites.
 */
import ExcelJS from 'exceljs';
import { z } from 'zod';
import { SIGNAL_GRADES, signalReport, signalRequest, signalTermPage, signalTermsRequest, type SignalPeriodRow } from '@esource/shared';
import type { AppDeps } from '../../app-deps';
import { contentDisposition, downloadStamp, safeRow } from '../../lib/excel';
import { translator } from '../../lib/i18n';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { SignalService } from './signal.service';

const READ = { permission: { allOf: ['clinical:signal:query'] }, scope: 'project' } as const;
const EXPORT = { permission: { allOf: ['clinical:signal:export'] }, scope: 'project' } as const;
/** terms in one export file at most */
export const SIGNAL_EXPORT_MAX_TERMS = 50_000;

type T = ReturnType<typeof translator>;

/** '2024-03', '2024-Q1', '2024'; a year-only bucket of a month or quarter series says the month is not known. */
export function periodLabel(t: T, r: Pick<SignalPeriodRow, 'period' | 'precision'>, period: string): string {
  return r.precision === 'year' && period !== 'year' ? t('signal.yearOnly', { year: r.period }) : r.period;
}

const gradeColumns = (t: T) => SIGNAL_GRADES.map((g) => ({ header: t('signal.col.grade', { grade: g }), key: `g${g}`, width: 10 }));
const gradeValues = (grades: number[]) => Object.fromEntries(grades.map((n, i) => [`g${i + 1}`, n]));

export function signalRoutes({ database }: AppDeps): RouteSpec[] {
  const svc = new SignalService(database.db);
  const tags = ['signal'];
  return [
    defineRoute({
      method: 'POST',
      url: '/report/signal',
      guard: READ,
      summary: 'Judged AEs in the caller\'s scope counted per period × grade and × seriousness, top terms, per site, and totals (filters: site, onset range, grade ≥, serious, related)',
      tags,
      bodyType: 'json',
      body: signalRequest,
      response: signalReport,
      handler: ({ ctx, body }) => svc.report(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/report/signal/terms',
      guard: READ,
      summary: 'A page of the signal report\'s terms (events by grade, serious, subjects, first and last onset), sorted',
      tags,
      bodyType: 'json',
      body: signalTermsRequest,
      response: signalTermPage,
      handler: ({ ctx, body }) => svc.terms(ctx, body),
    }),
    defineRoute({
      method: 'GET',
      url: '/report/signal/export',
      guard: EXPORT,
      summary: 'The signal report of the filters as an Excel workbook: by term, by period, by site, and the filters',
      tags,
      query: signalRequest,
      response: z.unknown(),
      raw: true,
      handler: async ({ ctx, query, reply }) => {
        const t = translator(ctx.language);
        const report = await svc.report(ctx, query);
        const terms = await svc.allTerms(ctx, query, SIGNAL_EXPORT_MAX_TERMS);
        const wb = new ExcelJS.Workbook();
        const bold = (ws: ExcelJS.Worksheet) => {
          ws.getRow(1).font = { bold: true };
          ws.views = [{ state: 'frozen', ySplit: 1 }];
        };

        const byTerm = wb.addWorksheet(t('signal.sheet.terms'));
        byTerm.columns = [
          { header: t('signal.col.term'), key: 'term', width: 36 },
          { header: t('signal.col.code'), key: 'code', width: 14 },
          { header: t('signal.col.events'), key: 'events', width: 10 },
          { header: t('signal.col.subjects'), key: 'subjects', width: 10 },
          { header: t('signal.col.serious'), key: 'serious', width: 10 },
          { header: t('signal.col.severe'), key: 'severe', width: 10 },
          ...gradeColumns(t),
          { header: t('signal.col.maxGrade'), key: 'maxGrade', width: 10 },
          { header: t('signal.col.firstOnset'), key: 'first', width: 12 },
          { header: t('signal.col.lastOnset'), key: 'last', width: 12 },
        ];
        bold(byTerm);
        for (const r of terms) {
          byTerm.addRow(
            safeRow({
              term: r.term,
              code: r.code ?? '',
              events: r.events,
              subjects: r.subjects,
              serious: r.serious,
              severe: r.severe,
              ...gradeValues(r.grades),
              maxGrade: r.maxGrade,
              first: r.firstOnset ?? '',
              last: r.lastOnset ?? '',
            }),
          );
        }

        const byPeriod = wb.addWorksheet(t('signal.sheet.periods'));
        byPeriod.columns = [
          { header: t(`signal.period.${query.period}`), key: 'period', width: 20 },
          { header: t('signal.col.events'), key: 'events', width: 10 },
          { header: t('signal.col.subjects'), key: 'subjects', width: 10 },
          { header: t('signal.col.serious'), key: 'serious', width: 10 },
          { header: t('signal.col.nonSerious'), key: 'nonSerious', width: 12 },
          ...gradeColumns(t),
        ];
        bold(byPeriod);
        for (const r of report.periods) {
          byPeriod.addRow(
            safeRow({ period: periodLabel(t, r, query.period), events: r.events, subjects: r.subjects, serious: r.serious, nonSerious: r.events - r.serious, ...gradeValues(r.grades) }),
          );
        }

        const bySite = wb.addWorksheet(t('signal.sheet.sites'));
        bySite.columns = [
          { header: t('signal.col.site'), key: 'site', width: 28 },
          { header: t('signal.col.events'), key: 'events', width: 10 },
          { header: t('signal.col.subjects'), key: 'subjects', width: 10 },
          { header: t('signal.col.serious'), key: 'serious', width: 10 },
          { header: t('signal.col.severe'), key: 'severe', width: 10 },
          ...gradeColumns(t),
        ];
        bold(bySite);
        for (const r of report.sites) {
          bySite.addRow(safeRow({ site: r.siteName, events: r.events, subjects: r.subjects, serious: r.serious, severe: r.severe, ...gradeValues(r.grades) }));
        }

        // what the numbers are of: a workbook passed on without its filters would be misread
        const about = wb.addWorksheet(t('signal.sheet.filters'));
        about.columns = [
          { header: t('signal.col.filter'), key: 'k', width: 26 },
          { header: t('signal.col.value'), key: 'v', width: 40 },
        ];
        bold(about);
        const site = query.siteId === undefined ? t('signal.all') : (report.sites.find((s) => s.siteId === query.siteId)?.siteName ?? String(query.siteId));
        const yesNo = (b: boolean) => t(b ? 'signal.yes' : 'signal.no');
        for (const [k, v] of [
          ['project', ctx.project.name],
          ['env', ctx.env],
          ['site', site],
          ['onsetFrom', query.onsetFrom ?? ''],
          ['onsetTo', query.onsetTo ?? ''],
          ['period', t(`signal.period.${query.period}`)],
          ['minGrade', query.minGrade ?? t('signal.all')],
          ['seriousOnly', yesNo(query.seriousOnly)],
          ['relatedOnly', yesNo(query.relatedOnly)],
          ['termBy', t(`signal.termBy.${query.termBy}`)],
          ['events', report.totals.events],
          ['subjects', report.totals.subjects],
          ['generated', new Date().toISOString()],
        ] as const) {
          about.addRow(safeRow({ k: t(`signal.filter.${k}`), v }));
        }

        const buf = Buffer.from(await wb.xlsx.writeBuffer());
        const name = `signal-report-${downloadStamp()}.xlsx`;
        await reply.header('content-type', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet').header('content-disposition', contentDisposition(name, name)).send(buf);
        return undefined;
      },
    }),
  ];
}
