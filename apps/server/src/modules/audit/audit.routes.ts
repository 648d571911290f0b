import { and, count, desc, eq, gte, lte, type SQL } from 'drizzle-orm';
import { auditLogPage, auditLogQuery } from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { auditEvents } from '../../db/schema';
import type { z } from 'zod';

type Query = z.output<typeof auditLogQuery>;

export function auditRoutes({ database }: AppDeps): RouteSpec[] {
  const db = database.db;
  async function page(where: SQL | undefined, q: Query) {
    const [total] = await db.select({ n: count() }).from(auditEvents).where(where);
    const rows = await db
      .select()
      .from(auditEvents)
      .where(where)
      .orderBy(desc(auditEvents.id))
      .limit(q.pageSize)
      .offset((q.pageNumber - 1) * q.pageSize);
    return {
      pageNumber: q.pageNumber,
      pageSize: q.pageSize,
      totalCount: total?.n ?? 0,
      content: rows.map(({ createdAt, chainKey: _c, hash: _h, prevHash: _p, ...r }) => ({ ...r, createTime: createdAt.toISOString() })),
    };
  }
  const filters = (q: Query) => [
    q.action ? eq(auditEvents.action, q.action) : undefined,
    q.entity ? eq(auditEvents.entity, q.entity) : undefined,
    q.userId ? eq(auditEvents.userId, q.userId) : undefined,
    q.startTime ? gte(auditEvents.createdAt, q.startTime) : undefined,
    q.endTime ? lte(auditEvents.createdAt, q.endTime) : undefined,
  ];
  return [
    defineRoute({
      method: 'POST',
      url: '/audit/log/v1/listByPage',
      guard: { permission: { anyOf: ['syslog:audit-track:query', 'syslog:audit-supervise-log:query'] }, scope: 'system' },
      summary: 'System audit trail (every chain), newest first',
      tags: ['audit'],
      body: auditLogQuery,
      response: auditLogPage,
      handler: ({ body }) => page(and(...filters(body)), body),
    }),
    defineRoute({
      method: 'POST',
      url: '/project/auditLogs/listByPage',
      guard: { permission: { anyOf: ['syslog:audit-supervise-log:query', 'prolog:audit-action:query'] }, scope: 'project' },
      summary: "The open project's audit trail in this environment, newest first",
      tags: ['audit'],
      body: auditLogQuery,
      response: auditLogPage,
      handler: ({ ctx, body }) =>
        page(and(eq(auditEvents.projectId, ctx.project.id), eq(auditEvents.env, ctx.env), ...filters(body)), body),
    }),
  ];
}
