/**
 * Center Application (module 9, PRO only): a hospital user applies for their organisation to join a project
 * as a site; a reviewer with apply:ing:audit passes it (the site is created in PRO) or does not, with a reason.
 * Each list needs its own permission (apply:ing / apply:pass / apply:unpass : query).
 */
import { and, count, desc, eq, ilike, isNull, or, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import {
  CENTER_APPLY_STATUS,
  can,
  centerApplyPage,
  centerApplyPageRequest,
  centerApplyRequest,
  centerApplyReview,
  centerApplyRow,
  type Permission,
} from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { likeOf } from '../../lib/sql';
import type { AppDeps } from '../../app-deps';
import type { AuthedContext } from '../../lib/context';
import { centerApplications, organizations, projects, sites, users } from '../../db/schema';
import { AppError } from '../../lib/errors';
import { actorOf, recordAudit } from '../audit/audit.service';
import type { Db, Tx } from '../../db/client';
import { offsetOf, pageOf } from '../../lib/page';

const applicant = alias(users, 'applicant');
const reviewer = alias(users, 'reviewer');
const LIST_PERMISSION: Record<number, Permission> = { 0: 'apply:ing:query', 1: 'apply:pass:query', 2: 'apply:unpass:query' };

function pro(ctx: AuthedContext) {
  if (ctx.env !== 'PRO') throw new AppError('ENV_FORBIDDEN', { env: ctx.env });
}

async function rows(db: Db | Tx, where: ReturnType<typeof and>, limit: number, offset: number) {
  const r = await db
    .select({
      a: centerApplications,
      projectNo: projects.no,
      projectName: projects.name,
      orgName: organizations.name,
      applicantName: applicant.name,
      reviewerName: reviewer.name,
    })
    .from(centerApplications)
    .innerJoin(projects, eq(projects.id, centerApplications.projectId))
    .innerJoin(organizations, eq(organizations.id, centerApplications.orgId))
    .innerJoin(applicant, eq(applicant.id, centerApplications.applicantUserId))
    .leftJoin(reviewer, eq(reviewer.id, centerApplications.reviewerUserId))
    .where(where)
    .orderBy(desc(centerApplications.id))
    .limit(limit)
    .offset(offset);
  return r.map(({ a, ...x }) => ({
    id: a.id,
    projectId: a.projectId,
    orgId: a.orgId,
    status: a.status,
    applicantUserId: a.applicantUserId,
    note: a.note,
    reviewReason: a.reviewReason,
    reviewTime: a.reviewedAt?.toISOString() ?? null,
    siteId: a.siteId,
    createTime: a.createdAt.toISOString(),
    ...x,
  }));
}

export function centerApplyRoutes({ database }: AppDeps): RouteSpec[] {
  const db = database.db;
  return [
    defineRoute({
      method: 'POST',
      url: '/centerApply/page',
      guard: { permission: { anyOf: ['apply:ing:query', 'apply:pass:query', 'apply:unpass:query'] }, scope: 'system' },
      summary: 'Centre applications of one status (each list needs its own permission); PRO only',
      tags: ['centre applications'],
      body: centerApplyPageRequest,
      response: centerApplyPage,
      handler: async ({ ctx, body }) => {
        pro(ctx);
        if (!can(ctx.systemPms, { anyOf: [LIST_PERMISSION[body.status]!] })) throw new AppError('FORBIDDEN');
        const kw = body.keyword ? likeOf(body.keyword) : null;
        const where = and(
          eq(centerApplications.env, 'PRO'),
          eq(centerApplications.status, body.status),
          kw ? or(ilike(projects.no, kw), ilike(projects.name, kw), ilike(organizations.name, kw)) : undefined,
        );
        const [total] = await db
          .select({ n: count() })
          .from(centerApplications)
          .innerJoin(projects, eq(projects.id, centerApplications.projectId))
          .innerJoin(organizations, eq(organizations.id, centerApplications.orgId))
          .where(where);
        return pageOf(body, total?.n ?? 0, await rows(db, where, body.pageSize, offsetOf(body)));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/centerApply/apply',
      guard: { permission: 'any', scope: 'system' },
      summary: "Apply for the caller's organisation to join a project (by number or uuid) as a site; PRO only",
      tags: ['centre applications'],
      body: centerApplyRequest,
      response: centerApplyRow,
      handler: ({ ctx, body }) =>
        db.transaction(async (tx) => {
          pro(ctx);
          if (!ctx.user.orgId) throw new AppError('INVALID_REFERENCE', { field: 'orgId' });
          const [p] = await tx
            .select()
            .from(projects)
            .where(and(or(sql`lower(${projects.no}) = lower(${body.projectNo})`, sql`${projects.uuidNo}::text = ${body.projectNo}`), isNull(projects.deletedAt)));
          if (!p) throw new AppError('NOT_FOUND', { entity: 'project' });
          const [site] = await tx.select({ id: sites.id }).from(sites).where(and(eq(sites.projectId, p.id), eq(sites.env, 'PRO'), eq(sites.orgId, ctx.user.orgId)));
          const [open] = await tx
            .select({ id: centerApplications.id })
            .from(centerApplications)
            .where(and(eq(centerApplications.projectId, p.id), eq(centerApplications.orgId, ctx.user.orgId), eq(centerApplications.status, 0)));
          if (site || open) throw new AppError('DUPLICATE', { field: 'projectNo', value: body.projectNo });
          const [a] = await tx
            .insert(centerApplications)
            .values({ env: 'PRO', projectId: p.id, orgId: ctx.user.orgId, applicantUserId: ctx.user.id, note: body.note ?? null })
            .returning();
          await recordAudit(tx, actorOf(ctx), [
            { action: 'centerApply.apply', entity: 'application', entityId: a!.id, projectId: p.id, env: 'PRO', newValue: `org ${ctx.user.orgId}`, reason: body.note ?? null },
          ]);
          return (await rows(tx, eq(centerApplications.id, a!.id), 1, 0))[0]!;
        }),
    }),
    defineRoute({
      method: 'POST',
      url: '/centerApply/audit',
      guard: { permission: { allOf: ['apply:ing:audit'] }, scope: 'system' },
      summary: 'Pass (creating the PRO site) or refuse an application, with a reason',
      tags: ['centre applications'],
      body: centerApplyReview,
      response: centerApplyRow,
      handler: ({ ctx, body }) =>
        db.transaction(async (tx) => {
          pro(ctx);
          const [a] = await tx.select().from(centerApplications).where(eq(centerApplications.id, body.id));
          if (!a) throw new AppError('NOT_FOUND', { entity: 'application' });
          // separation of duties: whoever applied cannot also decide (even with the audit permission)
          if (a.applicantUserId === ctx.user.id) throw new AppError('OWN_APPLICATION');
          if (a.status !== CENTER_APPLY_STATUS.ing) throw new AppError('CONFLICT', { detail: 'conflict.alreadyReviewed' });
          let siteId: number | null = null;
          if (body.pass) {
            const [org] = await tx.select().from(organizations).where(eq(organizations.id, a.orgId));
            const [n] = await tx.select({ n: count() }).from(sites).where(and(eq(sites.projectId, a.projectId), eq(sites.env, 'PRO')));
            const siteNo = body.siteNo ?? String((n?.n ?? 0) + 1).padStart(2, '0');
            const [dup] = await tx.select({ id: sites.id }).from(sites).where(and(eq(sites.projectId, a.projectId), eq(sites.env, 'PRO'), eq(sites.siteNo, siteNo)));
            if (dup) throw new AppError('DUPLICATE', { field: 'siteNo', value: siteNo });
            const [s] = await tx.insert(sites).values({ env: 'PRO', projectId: a.projectId, orgId: a.orgId, siteNo, name: org!.name }).returning();
            siteId = s!.id;
          }
          const status = body.pass ? CENTER_APPLY_STATUS.pass : CENTER_APPLY_STATUS.unpass;
          await tx
            .update(centerApplications)
            .set({ status, reviewerUserId: ctx.user.id, reviewReason: body.reason, reviewedAt: new Date(), siteId, updatedAt: new Date() })
            .where(eq(centerApplications.id, a.id));
          await recordAudit(tx, actorOf(ctx), [
            { action: 'centerApply.review', entity: 'application', entityId: a.id, projectId: a.projectId, env: 'PRO', field: 'status', oldValue: a.status, newValue: status, reason: body.reason },
          ]);
          return (await rows(tx, eq(centerApplications.id, a.id), 1, 0))[0]!;
        }),
    }),
  ];
}

