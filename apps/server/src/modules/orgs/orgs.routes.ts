/**
 * Organisation dictionary (hospitals and the central office; name ≤ 30) and the department dictionary under
 * each organisation. System scope. Deleting one in use (by sites, users or departments) is refused.
 */
import { z } from 'zod';
import { and, asc, count, eq, ilike, ne, or, sql } from 'drizzle-orm';
import { deptInput, deptRow, idRequest, idSchema, intSchema, orgInput, orgPage, orgPageRequest, orgRow } from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { departments, organizations, sites, users } from '../../db/schema';
import { AppError } from '../../lib/errors';
import { actorOf, diffEntries, recordAudit } from '../audit/audit.service';
import type { Tx } from '../../db/client';
import { likeOf } from '../../lib/sql';
import { translator } from '../../lib/i18n';
import { offsetOf, pageOf } from '../../lib/page';

const ORG_FIELDS = ['name', 'code', 'address', 'status'] as const;
const DEPT_FIELDS = ['orgId', 'name', 'code', 'status'] as const;

async function assertOrgNameFree(tx: Tx, name: string, exceptId: number | null) {
  const [dup] = await tx
    .select({ id: organizations.id })
    .from(organizations)
    .where(and(sql`lower(${organizations.name}) = lower(${name})`, exceptId ? ne(organizations.id, exceptId) : undefined));
  if (dup) throw new AppError('DUPLICATE', { field: 'name', value: name });
}

export function orgRoutes({ database }: AppDeps): RouteSpec[] {
  const db = database.db;
  const toRow = (o: typeof organizations.$inferSelect, deptCount: number) => ({
    id: o.id,
    name: o.name,
    code: o.code,
    address: o.address,
    status: o.status,
    deptCount,
    createTime: o.createdAt.toISOString(),
  });
  return [
    defineRoute({
      method: 'POST',
      url: '/org/info/page',
      guard: { permission: { anyOf: ['system:org:query', 'project:info:add'] }, scope: 'system' },
      summary: 'Organisation dictionary: search and paging',
      tags: ['organisations'],
      body: orgPageRequest,
      response: orgPage,
      handler: async ({ body }) => {
        const where = body.keyword
          ? or(ilike(organizations.name, likeOf(body.keyword)), ilike(organizations.code, likeOf(body.keyword)))
          : undefined;
        const [total] = await db.select({ n: count() }).from(organizations).where(where);
        const rows = await db
          .select({
            o: organizations,
            // qualified by hand: drizzle renders a lone column of the main table unqualified ("id"), which inside the
            // subquery would mean the department's own id (every organisation then counted 1)
            deptCount: sql<number>`(select count(*) from departments d where d.org_id = "organizations"."id")`.mapWith(Number),
          })
          .from(organizations)
          .where(where)
          .orderBy(asc(organizations.name))
          .limit(body.pageSize)
          .offset(offsetOf(body));
        return pageOf(
          body,
          total?.n ?? 0,
          rows.map((r) => toRow(r.o, r.deptCount)),
        );
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/org/info/add',
      guard: { permission: { anyOf: ['system:org:add'] }, scope: 'system' },
      summary: 'Add an organisation',
      tags: ['organisations'],
      body: orgInput,
      response: orgRow,
      handler: ({ ctx, body }) =>
        db.transaction(async (tx) => {
          await assertOrgNameFree(tx, body.name, null);
          const [o] = await tx.insert(organizations).values(body).returning();
          await recordAudit(tx, actorOf(ctx), diffEntries({ action: 'org.add', entity: 'organization', entityId: o!.id }, null, o!, ORG_FIELDS));
          return toRow(o!, 0);
        }),
    }),
    defineRoute({
      method: 'POST',
      url: '/org/info/update',
      guard: { permission: { anyOf: ['system:org:update'] }, scope: 'system' },
      summary: 'Update an organisation',
      tags: ['organisations'],
      body: orgInput.extend({ id: idSchema, status: intSchema(0, 1).optional() }),
      response: orgRow,
      handler: ({ ctx, body }) =>
        db.transaction(async (tx) => {
          const { id, ...input } = body;
          const [before] = await tx.select().from(organizations).where(eq(organizations.id, id));
          if (!before) throw new AppError('NOT_FOUND', { entity: 'organization' });
          await assertOrgNameFree(tx, input.name, id);
          const [after] = await tx
            .update(organizations)
            .set({ ...input, updatedAt: new Date() })
            .where(eq(organizations.id, id))
            .returning();
          await recordAudit(tx, actorOf(ctx), diffEntries({ action: 'org.update', entity: 'organization', entityId: id }, before, after!, ORG_FIELDS));
          const [d] = await tx.select({ n: count() }).from(departments).where(eq(departments.orgId, id));
          return toRow(after!, d?.n ?? 0);
        }),
    }),
    defineRoute({
      method: 'POST',
      url: '/org/info/delete',
      guard: { permission: { anyOf: ['system:org:delete'] }, scope: 'system' },
      summary: 'Delete an organisation that no site, user or department uses',
      tags: ['organisations'],
      body: idRequest,
      response: z.null(),
      handler: ({ ctx, body }) =>
        db.transaction(async (tx) => {
          const [before] = await tx.select().from(organizations).where(eq(organizations.id, body.id));
          if (!before) throw new AppError('NOT_FOUND', { entity: 'organization' });
          const [s] = await tx.select({ n: count() }).from(sites).where(eq(sites.orgId, body.id));
          const [u] = await tx.select({ n: count() }).from(users).where(eq(users.orgId, body.id));
          const [d] = await tx.select({ n: count() }).from(departments).where(eq(departments.orgId, body.id));
          const t = translator(ctx.language);
          const uses = [
            s!.n && t('conflict.sitesCount', { count: s!.n }),
            u!.n && t('conflict.usedBy', { count: u!.n }),
            d!.n && t('conflict.departmentsCount', { count: d!.n }),
          ].filter(Boolean);
          if (uses.length) throw new AppError('IN_USE', { entity: 'organization', detail: uses.join(', ') });
          await tx.delete(organizations).where(eq(organizations.id, body.id));
          await recordAudit(tx, actorOf(ctx), [{ action: 'org.delete', entity: 'organization', entityId: body.id, oldValue: before.name }]);
          return null;
        }),
    }),
    defineRoute({
      method: 'GET',
      url: '/org/dept/list',
      guard: { permission: { anyOf: ['system:dept:query', 'system:org:query', 'system:user:query'] }, scope: 'system' },
      summary: 'Departments of an organisation',
      tags: ['organisations'],
      query: z.object({ orgId: idSchema }),
      response: z.array(deptRow),
      handler: async ({ query }) =>
        db
          .select({ id: departments.id, orgId: departments.orgId, name: departments.name, code: departments.code, status: departments.status })
          .from(departments)
          .where(eq(departments.orgId, query.orgId))
          .orderBy(asc(departments.name)),
    }),
    defineRoute({
      method: 'POST',
      url: '/org/dept/add',
      guard: { permission: { anyOf: ['system:dept:add'] }, scope: 'system' },
      summary: 'Add a department to an organisation',
      tags: ['organisations'],
      body: deptInput,
      response: deptRow,
      handler: ({ ctx, body }) =>
        db.transaction(async (tx) => {
          const [org] = await tx.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, body.orgId));
          if (!org) throw new AppError('INVALID_REFERENCE', { field: 'orgId' });
          const [dup] = await tx
            .select({ id: departments.id })
            .from(departments)
            .where(and(eq(departments.orgId, body.orgId), sql`lower(${departments.name}) = lower(${body.name})`));
          if (dup) throw new AppError('DUPLICATE', { field: 'name', value: body.name });
          const [d] = await tx.insert(departments).values(body).returning();
          await recordAudit(tx, actorOf(ctx), diffEntries({ action: 'dept.add', entity: 'department', entityId: d!.id }, null, d!, DEPT_FIELDS));
          return { id: d!.id, orgId: d!.orgId, name: d!.name, code: d!.code, status: d!.status };
        }),
    }),
    defineRoute({
      method: 'POST',
      url: '/org/dept/update',
      guard: { permission: { anyOf: ['system:dept:update'] }, scope: 'system' },
      summary: 'Rename a department',
      tags: ['organisations'],
      body: z.object({ id: idSchema, name: z.string().min(1).max(50), code: z.string().max(50).optional() }),
      response: deptRow,
      handler: ({ ctx, body }) =>
        db.transaction(async (tx) => {
          const [before] = await tx.select().from(departments).where(eq(departments.id, body.id));
          if (!before) throw new AppError('NOT_FOUND', { entity: 'department' });
          const [dup] = await tx
            .select({ id: departments.id })
            .from(departments)
            .where(and(eq(departments.orgId, before.orgId), sql`lower(${departments.name}) = lower(${body.name})`, ne(departments.id, body.id)));
          if (dup) throw new AppError('DUPLICATE', { field: 'name', value: body.name });
          const [d] = await tx
            .update(departments)
            .set({ name: body.name, code: body.code ?? before.code, updatedAt: new Date() })
            .where(eq(departments.id, body.id))
            .returning();
          await recordAudit(tx, actorOf(ctx), diffEntries({ action: 'dept.update', entity: 'department', entityId: body.id }, before, d!, DEPT_FIELDS));
          return { id: d!.id, orgId: d!.orgId, name: d!.name, code: d!.code, status: d!.status };
        }),
    }),
    defineRoute({
      method: 'POST',
      url: '/org/dept/delete',
      guard: { permission: { anyOf: ['system:dept:delete'] }, scope: 'system' },
      summary: 'Delete a department no user belongs to',
      tags: ['organisations'],
      body: idRequest,
      response: z.null(),
      handler: ({ ctx, body }) =>
        db.transaction(async (tx) => {
          const [before] = await tx.select().from(departments).where(eq(departments.id, body.id));
          if (!before) throw new AppError('NOT_FOUND', { entity: 'department' });
          const [u] = await tx.select({ n: count() }).from(users).where(eq(users.deptId, body.id));
          if (u!.n) throw new AppError('IN_USE', { entity: 'department', detail: 'conflict.usedBy', count: u!.n });
          await tx.delete(departments).where(eq(departments.id, body.id));
          await recordAudit(tx, actorOf(ctx), [{ action: 'dept.delete', entity: 'department', entityId: body.id, oldValue: before.name }]);
          return null;
        }),
    }),
  ];
}
