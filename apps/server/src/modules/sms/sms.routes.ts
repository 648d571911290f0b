/**
 * The development SMS outbox (/system/smsOutbox): the messages the outbox provider kept, newest first, paged, filtered
 * by phone number, for system administrators (system:config:query). With SMS_PROVIDER=http nothing is kept here; the
 * page says which provider is configured.
 */
import { count, desc, eq, like } from 'drizzle-orm';
import { smsOutboxPage, smsOutboxQuery } from '@esource/shared';
import type { AppDeps } from '../../app-deps';
import { smsOutbox, users } from '../../db/schema';
import { offsetOf, pageOf } from '../../lib/page';
import { defineRoute, type RouteSpec } from '../../lib/route';

export function smsRoutes({ database, config }: AppDeps): RouteSpec[] {
  const db = database.db;
  return [
    defineRoute({
      method: 'GET',
      url: '/system/sms/outbox',
      guard: { permission: { anyOf: ['system:config:query'] }, scope: 'system' },
      summary:
        'The development SMS outbox: messages newest first, paged; phone filters by the start of the number',
      tags: ['sms'],
      query: smsOutboxQuery,
      response: smsOutboxPage,
      handler: async ({ query }) => {
        // digits only (the schema): a prefix match needs no escaping
        const where = query.phone ? like(smsOutbox.phone, `${query.phone}%`) : undefined;
        const [total] = await db.select({ n: count() }).from(smsOutbox).where(where);
        const rows = await db
          .select({
            id: smsOutbox.id,
            phone: smsOutbox.phone,
            template: smsOutbox.template,
            body: smsOutbox.body,
            language: smsOutbox.language,
            userId: smsOutbox.userId,
            userName: users.name,
            createdAt: smsOutbox.createdAt,
          })
          .from(smsOutbox)
          .leftJoin(users, eq(users.id, smsOutbox.userId))
          .where(where)
          .orderBy(desc(smsOutbox.id))
          .limit(query.pageSize)
          .offset(offsetOf(query));
        return {
          ...pageOf(
            query,
            total?.n ?? 0,
            rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() })),
          ),
          provider: config.sms.kind,
        };
      },
    }),
  ];
}
