/**
 * Sites (research centres): a project × organisation in one environment, with site number, principal
 * investigator and status. Lists show only the sites the caller may see.
 */
import { z } from 'zod';
import { and, asc, eq, inArray, ne } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { siteDetailRow, siteInput, siteSchedule, siteUpdate } from '@esource/shared';
import { DesignService } from '../design/design.service';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { forms, organizations, projectMembers, sites, stages, users } from '../../db/schema';
import { AppError } from '../../lib/errors';
import { actorOf, diffEntries, recordAudit } from '../audit/audit.service';
import type { ProjectScopedContext } from '../../lib/context';
import type { Tx } from '../../db/client';

const SITE_FIELDS = ['orgId', 'siteNo', 'name', 'piUserId', 'status'] as const;
const pi = alias(users, 'pi');

export function siteRoutes({ database, hooks }: AppDeps): RouteSpec[] {
  const db = database.db;
  const design = new DesignService(db, hooks.collectingChecks);
  const list = (ctx: ProjectScopedContext, only: number | null, tx: typeof db | Tx = db) => {
    const p = ctx.project;
    return tx
      .select({
        id: sites.id,
        siteNo: sites.siteNo,
        name: sites.name,
        orgId: sites.orgId,
        orgName: organizations.name,
        status: sites.status,
        piUserId: sites.piUserId,
        piName: pi.name,
        riskLevel: sites.riskLevel,
      })
      .from(sites)
      .innerJoin(organizations, eq(organizations.id, sites.orgId))
      .leftJoin(pi, eq(pi.id, sites.piUserId))
      .where(
        and(
          eq(sites.projectId, p.id),
          eq(sites.env, ctx.env),
          only !== null ? eq(sites.id, only) : undefined,
          ctx.siteId !== null ? eq(sites.id, ctx.siteId) : undefined,
          p.siteIds !== null ? inArray(sites.id, p.siteIds.length ? p.siteIds : [-1]) : undefined,
        ),
      )
      .orderBy(asc(sites.siteNo));
  };

  /** The PI must be an active member of this project in this environment. */
  async function checkRefs(tx: Tx, ctx: ProjectScopedContext, orgId: number | null, piUserId: number | undefined) {
    if (orgId !== null) {
      const [o] = await tx.select({ id: organizations.id, name: organizations.name }).from(organizations).where(eq(organizations.id, orgId));
      if (!o) throw new AppError('INVALID_REFERENCE', { field: 'orgId' });
    }
    if (piUserId !== undefined) {
      const [m] = await tx
        .select({ id: projectMembers.id })
        .from(projectMembers)
        .where(
          and(
            eq(projectMembers.projectId, ctx.project.id),
            eq(projectMembers.env, ctx.env),
            eq(projectMembers.userId, piUserId),
            eq(projectMembers.status, 1),
          ),
        );
      if (!m) throw new AppError('INVALID_REFERENCE', { field: 'piUserId' });
    }
  }

  async function assertFree(tx: Tx, ctx: ProjectScopedContext, siteNo: string, orgId: number | null, exceptId: number | null) {
    const same = (col: typeof sites.siteNo | typeof sites.orgId, v: string | number) =>
      tx
        .select({ id: sites.id })
        .from(sites)
        .where(and(eq(sites.projectId, ctx.project.id), eq(sites.env, ctx.env), eq(col, v), exceptId ? ne(sites.id, exceptId) : undefined));
    if ((await same(sites.siteNo, siteNo)).length) throw new AppError('DUPLICATE', { field: 'siteNo', value: siteNo });
    if (orgId !== null && (await same(sites.orgId, orgId)).length) throw new AppError('DUPLICATE', { field: 'orgId', value: orgId });
  }

  return [
    defineRoute({
      method: 'GET',
      url: '/pro/site/schedule/get',
      guard: { permission: { anyOf: ['research:page:query', 'patient:page:query'] }, scope: 'site' },
      summary: "A site's visit schedule: the visit plan in force in this environment (site in proSiteId)",
      tags: ['sites'],
      response: siteSchedule,
      handler: async ({ ctx }) => {
        const [site] = await list(ctx, ctx.siteId);
        if (!site) throw new AppError('NOT_FOUND', { entity: 'site' });
        const plan = await design.enabledVersionVisits(ctx);
        if (!plan.version) return { site, ...plan, stages: [], forms: [] };
        // the visits name stages and forms by id: the names come with them, so a reader needs no design permission
        const versionId = plan.version.id;
        const [st, fs] = await Promise.all([
          db
            .select({ id: stages.id, name: stages.name, sortOrder: stages.sortOrder })
            .from(stages)
            .where(eq(stages.versionId, versionId))
            .orderBy(asc(stages.sortOrder), asc(stages.id)),
          db
            .select({ id: forms.id, code: forms.code, name: forms.name, nameEn: forms.nameEn })
            .from(forms)
            .where(eq(forms.versionId, versionId))
            .orderBy(asc(forms.sortOrder), asc(forms.code)),
        ]);
        return { site, ...plan, stages: st, forms: fs };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/site/list',
      guard: { permission: { anyOf: ['research:page:query'] }, scope: 'project' },
      summary: 'Sites of the project in this environment that the caller may see',
      tags: ['sites'],
      response: z.array(siteDetailRow),
      handler: ({ ctx }) => list(ctx, null),
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/site/add',
      guard: { permission: { anyOf: ['research:page:add'] }, scope: 'project' },
      summary: 'Add a site (project × organisation) in this environment',
      tags: ['sites'],
      body: siteInput,
      response: siteDetailRow,
      handler: ({ ctx, body }) =>
        db.transaction(async (tx) => {
          await checkRefs(tx, ctx, body.orgId, body.piUserId);
          await assertFree(tx, ctx, body.siteNo, body.orgId, null);
          const [org] = await tx.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, body.orgId));
          const [s] = await tx
            .insert(sites)
            .values({
              env: ctx.env,
              projectId: ctx.project.id,
              orgId: body.orgId,
              siteNo: body.siteNo,
              name: body.name || org!.name,
              piUserId: body.piUserId ?? null,
            })
            .returning();
          await recordAudit(
            tx,
            actorOf(ctx),
            diffEntries({ action: 'site.add', entity: 'site', entityId: s!.id, projectId: ctx.project.id, siteId: s!.id }, null, s!, SITE_FIELDS),
          );
          const [row] = await list({ ...ctx, siteId: null, project: { ...ctx.project, siteIds: null } }, s!.id, tx);
          return row!;
        }),
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/site/update',
      guard: { permission: { anyOf: ['research:page:update'] }, scope: 'project' },
      summary: 'Update a site: number, name, principal investigator, status',
      tags: ['sites'],
      body: siteUpdate,
      response: siteDetailRow,
      handler: ({ ctx, body }) =>
        db.transaction(async (tx) => {
          const [before] = await tx
            .select()
            .from(sites)
            .where(and(eq(sites.id, body.id), eq(sites.projectId, ctx.project.id), eq(sites.env, ctx.env)));
          if (!before) throw new AppError('NOT_FOUND', { entity: 'site' });
          if (ctx.project.siteIds !== null && !ctx.project.siteIds.includes(before.id)) throw new AppError('SITE_FORBIDDEN');
          await checkRefs(tx, ctx, null, body.piUserId);
          await assertFree(tx, ctx, body.siteNo, null, body.id);
          const [after] = await tx
            .update(sites)
            .set({
              siteNo: body.siteNo,
              name: body.name || before.name,
              piUserId: body.piUserId ?? before.piUserId,
              status: body.status ?? before.status,
              updatedAt: new Date(),
            })
            .where(eq(sites.id, body.id))
            .returning();
          await recordAudit(
            tx,
            actorOf(ctx),
            diffEntries({ action: 'site.update', entity: 'site', entityId: body.id, projectId: ctx.project.id, siteId: body.id }, before, after!, SITE_FIELDS),
          );
          const [row] = await list({ ...ctx, siteId: null }, body.id, tx);
          return row!;
        }),
    }),
  ];
}
