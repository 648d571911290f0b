import { z } from 'zod';
import { and, count, desc, eq, inArray, sql } from 'drizzle-orm';
import { badgeInfoResponse, progressItem, progressListRequest, progressReadRequest } from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { messages, progressItems } from '../../db/schema';

export function progressRoutes({ database }: AppDeps): RouteSpec[] {
  const db = database.db;
  return [
    defineRoute({
      method: 'POST',
      url: '/proProgressDisplay/list',
      guard: { permission: 'any', scope: 'project' },
      summary: 'Unread progress items of the caller in this project and environment, of one type',
      tags: ['progress'],
      bodyType: 'json',
      body: progressListRequest,
      response: z.array(progressItem),
      handler: async ({ ctx, body }) => {
        const rows = await db
          .select()
          .from(progressItems)
          .where(
            and(
              eq(progressItems.userId, ctx.user.id),
              eq(progressItems.env, ctx.env),
              eq(progressItems.projectId, ctx.project.id),
              eq(progressItems.type, body.type),
              eq(progressItems.isRead, false),
            ),
          )
          .orderBy(desc(progressItems.id))
          .limit(200);
        return rows.map((r) => ({
          id: r.id,
          type: r.type,
          status: r.status,
          displayInformation: r.displayInformation,
          ptsNo: r.ptsNo,
          ptsId: r.ptsId,
          designVersionId: r.designVersionId,
          extraInfoMap: r.extraInfo ?? null,
          createTime: r.createdAt.toISOString(),
          updateTime: r.updatedAt.toISOString(),
        }));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/proProgressDisplay/updateIsReadByIdList',
      guard: { permission: 'any', scope: 'project' },
      summary: 'Mark the caller\'s progress items read (sent when the notice is closed)',
      tags: ['progress'],
      body: progressReadRequest,
      response: z.object({ updated: z.number().int() }),
      handler: async ({ ctx, body }) => {
        if (body.idList.length === 0) return { updated: 0 };
        const rows = await db
          .update(progressItems)
          .set({ isRead: true, updatedAt: new Date() })
          .where(
            and(
              inArray(progressItems.id, body.idList),
              eq(progressItems.userId, ctx.user.id),
              eq(progressItems.env, ctx.env),
              eq(progressItems.projectId, ctx.project.id),
            ),
          )
          .returning({ id: progressItems.id });
        return { updated: rows.length };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/message/manager/badgeInfo',
      guard: { permission: 'any', scope: 'system' },
      summary: 'Unread and total messages of the caller in this environment',
      tags: ['messages'],
      response: badgeInfoResponse,
      handler: async ({ ctx }) => {
        const [r] = await db
          .select({
            total: count(),
            unread: sql<number>`count(*) filter (where not ${messages.isRead})`.mapWith(Number),
          })
          .from(messages)
          .where(and(eq(messages.userId, ctx.user.id), eq(messages.env, ctx.env)));
        return { unread: r?.unread ?? 0, total: r?.total ?? 0 };
      },
    }),
  ];
}
