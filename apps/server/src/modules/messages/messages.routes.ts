/**
 * The message centre: the caller's own messages in the request's environment (the same rows the badge counts,
 * POST /message/manager/badgeInfo). Every read and write is scoped to the recipient: another user's message id
 * answers 404, as if it did not exist.
 */
import { z } from 'zod';
import { and, count, desc, eq, ilike, inArray, or, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import {
  messageIdRequest,
  messageListRequest,
  messagePage,
  messageReadRequest,
  messageReadResponse,
  messageRow,
  type MessageRow,
} from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { likeOf } from '../../lib/sql';
import { offsetOf, pageOf } from '../../lib/page';
import { AppError } from '../../lib/errors';
import type { AuthedContext } from '../../lib/context';
import type { AppDeps } from '../../app-deps';
import type { Db } from '../../db/client';
import { messages, projects, users } from '../../db/schema';

const sender = alias(users, 'sender');

/** A time zone PostgreSQL and Intl both know, else UTC (the date filter's days are the user's days). */
function zoneOf(tz: string | undefined): string {
  if (!tz) return 'UTC';
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return tz;
  } catch {
    return 'UTC';
  }
}

const mine = (ctx: AuthedContext) => and(eq(messages.userId, ctx.user.id), eq(messages.env, ctx.env));

async function unreadOf(db: Db, ctx: AuthedContext): Promise<number> {
  const [r] = await db.select({ n: count() }).from(messages).where(and(mine(ctx), eq(messages.isRead, false)));
  return r?.n ?? 0;
}

async function rowsOf(db: Db, where: SQL | undefined, limit: number, offset: number): Promise<MessageRow[]> {
  const rows = await db
    .select({ m: messages, projectNo: projects.no, projectName: projects.name, senderName: sender.name, senderAccount: sender.account })
    .from(messages)
    .leftJoin(projects, eq(projects.id, messages.projectId))
    .leftJoin(sender, eq(sender.id, messages.senderId))
    .where(where)
    .orderBy(desc(messages.id))
    .limit(limit)
    .offset(offset);
  return rows.map(({ m, projectNo, projectName, senderName, senderAccount }) => ({
    id: m.id,
    kind: m.kind,
    title: m.title,
    content: m.content,
    isRead: m.isRead,
    createTime: m.createdAt.toISOString(),
    readTime: m.readAt?.toISOString() ?? null,
    projectId: m.projectId,
    projectNo: projectNo ?? null,
    projectName: projectName ?? null,
    senderName: senderName ?? null,
    senderAccount: senderAccount ?? null,
  }));
}

export function messageRoutes({ database }: AppDeps): RouteSpec[] {
  const db = database.db;
  return [
    defineRoute({
      method: 'POST',
      url: '/message/manager/list',
      guard: { permission: 'any', scope: 'system' },
      summary: "The caller's messages in this environment: read state, kind, sending days and keyword filters, paged",
      tags: ['messages'],
      body: messageListRequest,
      response: messagePage,
      handler: async ({ ctx, body }) => {
        const tz = zoneOf(body.timeZone);
        const day = sql`(${messages.createdAt} at time zone ${tz})::date`;
        const kw = body.keyword ? likeOf(body.keyword) : null;
        const where = and(
          mine(ctx),
          body.isRead === undefined ? undefined : eq(messages.isRead, body.isRead),
          body.kind ? eq(messages.kind, body.kind) : undefined,
          body.from ? sql`${day} >= ${body.from}::date` : undefined,
          body.to ? sql`${day} <= ${body.to}::date` : undefined,
          kw ? or(ilike(messages.title, kw), ilike(messages.content, kw)) : undefined,
        );
        const [total] = await db.select({ n: count() }).from(messages).where(where);
        const page = pageOf(body, total?.n ?? 0, await rowsOf(db, where, body.pageSize, offsetOf(body)));
        return { ...page, unread: await unreadOf(db, ctx) };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/message/manager/detail',
      guard: { permission: 'any', scope: 'system' },
      summary: 'One of the caller\'s messages (404 for anyone else\'s)',
      tags: ['messages'],
      query: messageIdRequest,
      response: messageRow,
      handler: async ({ ctx, query }) => {
        const [row] = await rowsOf(db, and(mine(ctx), eq(messages.id, query.id)), 1, 0);
        if (!row) throw new AppError('NOT_FOUND', { entity: 'message' });
        return row;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/message/manager/read',
      guard: { permission: 'any', scope: 'system' },
      summary: "Mark some of the caller's messages read; an id that is not theirs answers 404 and nothing changes",
      tags: ['messages'],
      body: messageReadRequest,
      response: messageReadResponse,
      handler: async ({ ctx, body }) => {
        const ids = [...new Set(body.idList)];
        if (ids.length === 0) return { updated: 0, unread: await unreadOf(db, ctx) };
        const updated = await db.transaction(async (tx) => {
          const own = await tx.select({ id: messages.id }).from(messages).where(and(mine(ctx), inArray(messages.id, ids)));
          if (own.length !== ids.length) throw new AppError('NOT_FOUND', { entity: 'message' });
          const rows = await tx
            .update(messages)
            .set({ isRead: true, readAt: new Date() })
            .where(and(mine(ctx), inArray(messages.id, ids), eq(messages.isRead, false)))
            .returning({ id: messages.id });
          return rows.length;
        });
        return { updated, unread: await unreadOf(db, ctx) };
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/message/manager/readAll',
      guard: { permission: 'any', scope: 'system' },
      summary: "Mark every unread message of the caller in this environment read",
      tags: ['messages'],
      response: z.object({ updated: z.number().int(), unread: z.number().int() }),
      handler: async ({ ctx }) => {
        const rows = await db
          .update(messages)
          .set({ isRead: true, readAt: new Date() })
          .where(and(mine(ctx), eq(messages.isRead, false)))
          .returning({ id: messages.id });
        return { updated: rows.length, unread: await unreadOf(db, ctx) };
      },
    }),
  ];
}
