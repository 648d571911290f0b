/**
 * Routes of SDV and SDR (issue 13 item 1; spec §7 /crf/report/deleteItemMark and saveItemCertified, /project/verification).
 * Read: verification:sdv:query or verification:sdr:query; mark and remove: verification:sdv:check / sdr:check (per
 * kind, in the service); a site's or a subject's risk level: research:page:update.
 */
import { z } from 'zod';
import { markDeleteRequest, markSaveRequest, markSaveResult, marksRequest, markView, siteRiskRequest, subjectRiskRequest, subjectRiskRow, verificationPage, verificationPageRequest } from '@esource/shared';
import type { AppDeps } from '../../app-deps';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { VerificationService } from './verification.service';

const READ = { permission: { anyOf: ['verification:sdv:query', 'verification:sdr:query'] }, scope: 'project' } as const;
const CHECK = { permission: { anyOf: ['verification:sdv:check', 'verification:sdr:check'] }, scope: 'project' } as const;
const RISK = { permission: { anyOf: ['research:page:update'] }, scope: 'project' } as const;

export function verificationRoutes({ database }: AppDeps): RouteSpec[] {
  const svc = new VerificationService(database.db);
  const tags = ['verification'];
  return [
    defineRoute({
      method: 'POST',
      url: '/crf/report/saveItemMark',
      guard: CHECK,
      summary: 'SDV: mark the items of completed forms as verified (all items with a value, or the listed ones); SDR: mark forms as reviewed',
      tags,
      bodyType: 'json',
      body: markSaveRequest,
      response: markSaveResult,
      handler: ({ ctx, body }) => svc.saveMarks(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/crf/report/deleteItemMark',
      guard: CHECK,
      summary: 'Remove SDV/SDR marks, with the reason (audited)',
      tags,
      bodyType: 'json',
      body: markDeleteRequest,
      response: z.object({ removed: z.number().int() }),
      handler: ({ ctx, body }) => svc.deleteMarks(ctx, body),
    }),
    defineRoute({ method: 'GET', url: '/crf/report/marks', guard: READ, summary: "A form's active SDV/SDR marks and the marks lost since (value changed)", tags, query: marksRequest, response: z.array(markView), handler: ({ ctx, query }) => svc.marks(ctx, query.instanceId) }),
    defineRoute({
      method: 'POST',
      url: '/verification/page',
      guard: READ,
      summary: "Completed forms of the caller's sites with their SDV/SDR progress; by default those the site's risk level selects and not yet verified",
      tags,
      bodyType: 'json',
      body: verificationPageRequest,
      response: verificationPage,
      cache: true,
      handler: ({ ctx, body }) => svc.page(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/verification/risk',
      guard: RISK,
      summary: "A site's risk level (1 high, 2 middle, 3 low): the share of its forms that need SDV",
      tags,
      bodyType: 'json',
      body: siteRiskRequest,
      response: z.null(),
      handler: async ({ ctx, body }) => {
        await svc.setRisk(ctx, body.siteId, body.riskLevel);
        return null;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/verification/subjectRisk',
      guard: RISK,
      summary: "A subject's own risk level (1 high, 2 middle, 3 low), overriding its site's for its forms; null inherits the site's again (reason optional, audited)",
      tags,
      bodyType: 'json',
      body: subjectRiskRequest,
      response: z.null(),
      handler: async ({ ctx, body }) => {
        await svc.setSubjectRisk(ctx, body);
        return null;
      },
    }),
    defineRoute({ method: 'GET', url: '/verification/subjectRisk/list', guard: RISK, summary: "The caller's subjects with a risk level of their own (at most 500)", tags, response: z.array(subjectRiskRow), handler: ({ ctx }) => svc.subjectRisks(ctx) }),
  ];
}
