/**
 * Routes of the safety review (issue 13 items 3, 4; spec §7 selection/list, selection/source/list and link;
 * /project/clinical /2 /3, /project/ae/6, cm/9, pr/13, mh/14, hiss/15). Read: clinical:judge:query; judge, link and
 * generate: clinical:judge:update. Every call is scoped to the caller's project, environment and sites.
 */
import ExcelJS from 'exceljs';
import { z } from 'zod';
import {
  candidateCounts,
  candidateLinkRequest,
  candidateListRequest,
  candidatePage,
  candidateSource,
  candidateSourceRequest,
  candidateView,
  generateRequest,
  generateResult,
  generateStatus,
  idSchema,
  judgeRequest,
  judgementHistoryRow,
  medicationSubjectsPage,
  medicationSubjectsRequest,
  type CandidateView,
} from '@esource/shared';
import type { AppDeps } from '../../app-deps';
import { contentDisposition, downloadStamp, safeRow } from '../../lib/excel';
import { translator } from '../../lib/i18n';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { SafetyService } from './safety.service';

const READ = { permission: { anyOf: ['clinical:judge:query'] }, scope: 'project' } as const;
const WRITE = { permission: { allOf: ['clinical:judge:update'] }, scope: 'project' } as const;
/** rows in one export file at most */
export const CANDIDATE_EXPORT_MAX = 50_000;

function termOf(c: CandidateView, en: boolean): string {
  const f = c.fields as { term?: string } | null;
  return f?.term ?? (c.detail.ctcaeTerm ? (en ? c.detail.ctcaeTerm.en : c.detail.ctcaeTerm.zh) : c.term);
}

export function safetyRoutes({ database, jobs, config }: AppDeps): RouteSpec[] {
  const svc = new SafetyService(database.db);
  const tags = ['safety'];
  return [
    defineRoute({ method: 'POST', url: '/selection/list', guard: READ, summary: 'Candidates for AE/CM/PR/MH/HISS judgement in the caller\'s scope (to judge, judged, per category, filters)', tags, body: candidateListRequest, response: candidatePage, handler: ({ ctx, body }) => svc.list(ctx, body) }),
    defineRoute({ method: 'POST', url: '/selection/medication/subjects', guard: READ, summary: 'Per subject: its medications (CM) by judgement, its judged AEs, its latest start (/project/medication)', tags, body: medicationSubjectsRequest, response: medicationSubjectsPage, handler: ({ ctx, body }) => svc.medicationSubjects(ctx, body) }),
    defineRoute({ method: 'POST', url: '/selection/count', guard: READ, summary: 'Candidates to judge per category, judged, and judged ones whose source changed', tags, response: candidateCounts, handler: ({ ctx }) => svc.counts(ctx) }),
    defineRoute({ method: 'GET', url: '/selection/detail', guard: READ, summary: 'One candidate', tags, query: z.object({ id: idSchema }), response: candidateView, handler: ({ ctx, query }) => svc.detail(ctx, query.id) }),
    defineRoute({ method: 'GET', url: '/selection/history', guard: READ, summary: 'Every judgement of a candidate, newest first', tags, query: z.object({ id: idSchema }), response: z.array(judgementHistoryRow), handler: ({ ctx, query }) => svc.history(ctx, query.id) }),
    defineRoute({ method: 'POST', url: '/selection/source/list', guard: READ, summary: 'The source records a candidate links to (lab results graded)', tags, bodyType: 'json', body: candidateSourceRequest, response: z.array(candidateSource), handler: ({ ctx, body }) => svc.sources(ctx, body.id) }),
    defineRoute({ method: 'POST', url: '/selection/link', guard: WRITE, summary: 'Link (or unlink) another source record of the subject to a candidate', tags, bodyType: 'json', body: candidateLinkRequest, response: z.array(candidateSource), handler: ({ ctx, body }) => svc.link(ctx, body) }),
    defineRoute({ method: 'POST', url: '/selection/judge', guard: WRITE, summary: 'Judge a candidate yes (with the category\'s fields; written into its log form) or no, at the version seen; a change needs a reason', tags, bodyType: 'json', body: judgeRequest, response: candidateView, handler: ({ ctx, body }) => svc.judge(ctx, body) }),
    defineRoute({ method: 'POST', url: '/selection/generate', guard: WRITE, summary: 'Generate the candidates of one subject, or of every subject in scope, from their source records', tags, bodyType: 'json', body: generateRequest, response: generateResult, handler: ({ ctx, body }) => svc.generate(ctx, body.ptsId, { jobs, syncMax: config.safetyGenerateSyncMax }) }),
    defineRoute({ method: 'GET', url: '/selection/generate/status', guard: WRITE, summary: 'The progress of a generation that was queued (its progress item, the caller\'s own)', tags, query: z.object({ id: idSchema }), response: generateStatus, handler: ({ ctx, query }) => svc.generateStatus(ctx, query.id) }),
    defineRoute({
      method: 'GET',
      url: '/selection/export',
      guard: READ,
      summary: 'The candidates of the list\'s filters as an Excel file (at most 50,000 rows)',
      tags,
      query: candidateListRequest,
      response: z.unknown(),
      raw: true,
      handler: async ({ ctx, query, reply }) => {
        const t = translator(ctx.language);
        const en = ctx.language === 'en_US';
        const rows = await svc.all(ctx, query, CANDIDATE_EXPORT_MAX);
        const wb = new ExcelJS.Workbook();
        const ws = wb.addWorksheet(t('safety.sheet'));
        ws.columns = [
          { header: t('safety.col.id'), key: 'id', width: 8 },
          { header: t('safety.col.category'), key: 'category', width: 10 },
          { header: t('safety.col.subject'), key: 'subject', width: 14 },
          { header: t('safety.col.site'), key: 'site', width: 22 },
          { header: t('safety.col.term'), key: 'term', width: 36 },
          { header: t('safety.col.coded'), key: 'coded', width: 36 },
          { header: t('safety.col.start'), key: 'start', width: 12 },
          { header: t('safety.col.end'), key: 'end', width: 12 },
          { header: t('safety.col.grade'), key: 'grade', width: 8 },
          { header: t('safety.col.serious'), key: 'serious', width: 8 },
          { header: t('safety.col.origin'), key: 'origin', width: 12 },
          { header: t('safety.col.status'), key: 'status', width: 12 },
          { header: t('safety.col.judgedBy'), key: 'by', width: 16 },
          { header: t('safety.col.judgedAt'), key: 'at', width: 20 },
          { header: t('safety.col.reason'), key: 'reason', width: 30 },
        ];
        ws.getRow(1).font = { bold: true };
        for (const c of rows) {
          const f = (c.fields ?? {}) as { coded?: { code: string; term: string }; onset?: string; start?: string; date?: string; end?: string; grade?: number; serious?: boolean };
          ws.addRow(
            safeRow({
              id: c.id,
              category: c.category.toUpperCase(),
              subject: c.ptsNo,
              site: c.siteName,
              term: termOf(c, en),
              coded: f.coded ? `${f.coded.code} ${f.coded.term}` : '',
              start: f.onset ?? f.start ?? f.date ?? c.startDate ?? '',
              end: f.end ?? c.endDate ?? '',
              grade: f.grade ?? c.detail.grade ?? '',
              serious: f.serious === undefined ? '' : t(f.serious ? 'safety.yes' : 'safety.no'),
              origin: t(`safety.origin.${c.origin}`),
              status: t(`safety.status.${c.status}`),
              by: c.judgedBy ?? '',
              at: c.judgedAt ?? '',
              reason: c.reason ?? '',
            }),
          );
        }
        const buf = Buffer.from(await wb.xlsx.writeBuffer());
        const name = `safety-${downloadStamp()}.xlsx`;
        await reply.header('content-type', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet').header('content-disposition', contentDisposition(name, name)).send(buf);
        return undefined;
      },
    }),
  ];
}
