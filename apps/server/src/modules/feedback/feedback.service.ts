/**
 * Feedback (issue 15 item 5): any logged-in user sends it (at most FEEDBACK_LIMITS.perHour an hour); administrators
 * list, answer, close and reopen it. Every step is one transaction with its audit entry. An answer — and a close, with
 * its note — is also a message to the sender in the message centre, in the environment they sent the feedback from
 * (kind 'feedback', content `feedback:{json}` worded in the reader's language by the web, like query messages).
 * Answer, close and reopen carry the version the administrator saw: when someone else acted meanwhile the step is
 * refused (FEEDBACK_STALE) naming who, what and when.
 */
import type { Readable } from 'node:stream';
import { and, asc, count, desc, eq, gt, ilike, inArray, or, sql, type SQL } from 'drizzle-orm';
import { FEEDBACK_LIMITS } from '@esource/shared';
import type {
  FeedbackDetail,
  FeedbackReply,
  FeedbackReplyKind,
  FeedbackRow,
  FeedbackStatus,
  feedbackAddFields,
  feedbackFilters,
} from '@esource/shared';
import type { z } from 'zod';
import type { Db, Tx } from '../../db/client';
import { feedback, feedbackReplies, messages, users } from '../../db/schema';
import { AppError } from '../../lib/errors';
import { formatTime } from '../../lib/excel';
import { translator } from '../../lib/i18n';
import { likeOf } from '../../lib/sql';
import type { AuthedContext } from '../../lib/context';
import { actorOf, recordAudit } from '../audit/audit.service';
import type { FileStore } from '../documents/file-store';
import type { Screenshot } from './screenshot';
import { streamFeedbackExport } from './feedback.excel';

export type FeedbackFilterValues = z.output<typeof feedbackFilters>;
type FeedbackRecord = typeof feedback.$inferSelect;

/** The caller reads every feedback (the administrators' list), not only their own. */
export const canQueryAll = (ctx: AuthedContext) => ctx.systemPms.has('system:feedback:query');

const EXPORT_BATCH = 1000;
/** by sending time (ties by id, so that pages never overlap) */
const orderOf = (o: 'asc' | 'desc') =>
  o === 'asc' ? [asc(feedback.createdAt), asc(feedback.id)] : [desc(feedback.createdAt), desc(feedback.id)];
/** what a message quotes of the feedback it answers */
const QUOTE_MAX = 120;

export interface AddInput {
  fields: z.output<typeof feedbackAddFields>;
  screenshot: Screenshot | null;
  userAgent: string | undefined;
}

export class FeedbackService {
  constructor(
    private readonly db: Db,
    private readonly store: FileStore,
  ) {}

  // ── sending ──

  /** Minutes until the user may send again, or null when they are under the hourly limit. */
  private async floodWait(db: Db | Tx, userId: number): Promise<number | null> {
    const rows = await db
      .select({
        left: sql<string | number>`extract(epoch from (${feedback.createdAt} + interval '1 hour' - now()))`,
      })
      .from(feedback)
      .where(and(eq(feedback.userId, userId), gt(feedback.createdAt, sql`now() - interval '1 hour'`)))
      .orderBy(desc(feedback.createdAt))
      .limit(FEEDBACK_LIMITS.perHour);
    if (rows.length < FEEDBACK_LIMITS.perHour) return null;
    // the limit-th newest leaves the hour first among those that keep the user at the limit
    return Math.max(1, Math.ceil(Number(rows[rows.length - 1]!.left) / 60));
  }

  private flood(minutes: number): AppError {
    return new AppError('FEEDBACK_FLOOD', { max: FEEDBACK_LIMITS.perHour, minutes });
  }

  /** Refuses a user over the hourly limit before their upload is stored (add checks again, in its transaction). */
  async checkFlood(ctx: AuthedContext): Promise<void> {
    const wait = await this.floodWait(this.db, ctx.user.id);
    if (wait !== null) throw this.flood(wait);
  }

  async add(ctx: AuthedContext, input: AddInput): Promise<FeedbackDetail> {
    const { fields, screenshot } = input;
    const stored = screenshot ? await this.store.put(screenshot.bytes) : null;
    const id = await this.db.transaction(async (tx) => {
      // one sender at a time: two requests of the same user cannot both pass the hourly count
      await tx.select({ id: users.id }).from(users).where(eq(users.id, ctx.user.id)).for('update');
      const wait = await this.floodWait(tx, ctx.user.id);
      if (wait !== null) throw this.flood(wait);
      const [row] = await tx
        .insert(feedback)
        .values({
          userId: ctx.user.id,
          env: ctx.env,
          loginType: ctx.loginType,
          category: fields.category,
          content: fields.content,
          pagePath: fields.pagePath ?? null,
          language: ctx.language,
          userAgent: input.userAgent?.slice(0, 300) ?? null,
          screenshotKey: stored?.key ?? null,
          screenshotType: screenshot?.mime ?? null,
          screenshotSize: stored?.size ?? null,
          updatedBy: ctx.user.id,
        })
        .returning({ id: feedback.id });
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'feedback.add',
          entity: 'feedback',
          entityId: row!.id,
          newValue: {
            category: fields.category,
            content: fields.content,
            pagePath: fields.pagePath ?? null,
            screenshot: stored ? { sha256: stored.key, size: stored.size, type: screenshot!.mime } : null,
          },
        },
      ]);
      return row!.id;
    });
    return (await this.details(eq(feedback.id, id), [asc(feedback.id)], 1, 0))[0]!;
  }

  // ── reading ──

  private static where(f: Omit<FeedbackFilterValues, 'sortOrder'>): SQL | undefined {
    const day = sql`(${feedback.createdAt} at time zone ${f.timeZone})::date`;
    const kw = f.keyword ? likeOf(f.keyword) : null;
    return and(
      f.status ? eq(feedback.status, f.status) : undefined,
      f.category ? eq(feedback.category, f.category) : undefined,
      f.from ? sql`${day} >= ${f.from}::date` : undefined,
      f.to ? sql`${day} <= ${f.to}::date` : undefined,
      kw
        ? or(
            ilike(feedback.content, kw),
            ilike(feedback.pagePath, kw),
            ilike(users.name, kw),
            ilike(users.account, kw),
          )
        : undefined,
    );
  }

  private async rows(
    where: SQL | undefined,
    order: SQL[],
    limit: number,
    offset: number,
  ): Promise<(FeedbackRow & { record: FeedbackRecord })[]> {
    const updater = sql<string | null>`(select u.name from ${users} u where u.id = ${feedback.updatedBy})`;
    const replies = sql<number>`(select count(*)::int from ${feedbackReplies} r where r.feedback_id = ${feedback.id})`;
    const rows = await this.db
      .select({
        f: feedback,
        userName: users.name,
        userAccount: users.account,
        updatedByName: updater,
        replyCount: replies,
      })
      .from(feedback)
      .innerJoin(users, eq(users.id, feedback.userId))
      .where(where)
      .orderBy(...order)
      .limit(limit)
      .offset(offset);
    return rows.map(({ f, userName, userAccount, updatedByName, replyCount }) => ({
      record: f,
      id: f.id,
      category: f.category,
      status: f.status,
      content: f.content,
      pagePath: f.pagePath,
      env: f.env,
      loginType: f.loginType,
      hasScreenshot: f.screenshotKey !== null,
      userId: f.userId,
      userName,
      userAccount,
      createTime: f.createdAt.toISOString(),
      updateTime: f.updatedAt.toISOString(),
      updatedByName: updatedByName ?? null,
      version: f.version,
      replyCount,
    }));
  }

  private async repliesOf(ids: number[]): Promise<Map<number, FeedbackReply[]>> {
    const out = new Map<number, FeedbackReply[]>();
    if (ids.length === 0) return out;
    const rows = await this.db
      .select({ r: feedbackReplies, userName: users.name })
      .from(feedbackReplies)
      .leftJoin(users, eq(users.id, feedbackReplies.userId))
      .where(inArray(feedbackReplies.feedbackId, ids))
      .orderBy(asc(feedbackReplies.id));
    for (const { r, userName } of rows) {
      const list = out.get(r.feedbackId) ?? [];
      list.push({
        id: r.id,
        kind: r.kind,
        content: r.content,
        userName: userName ?? null,
        createTime: r.createdAt.toISOString(),
      });
      out.set(r.feedbackId, list);
    }
    return out;
  }

  private async details(
    where: SQL | undefined,
    order: SQL[],
    limit: number,
    offset: number,
  ): Promise<FeedbackDetail[]> {
    const rows = await this.rows(where, order, limit, offset);
    const replies = await this.repliesOf(rows.map((r) => r.id));
    return rows.map(({ record, ...r }) => ({
      ...r,
      replies: replies.get(r.id) ?? [],
      language: record.language,
      userAgent: record.userAgent,
      screenshotType: record.screenshotType,
      screenshotSize: record.screenshotSize,
    }));
  }

  /** The administrators' list: filters, sending time order, a page. */
  async page(
    f: FeedbackFilterValues,
    pageSize: number,
    offset: number,
  ): Promise<{ total: number; rows: FeedbackRow[] }> {
    const where = FeedbackService.where(f);
    const [total] = await this.db
      .select({ n: count() })
      .from(feedback)
      .innerJoin(users, eq(users.id, feedback.userId))
      .where(where);
    const order = orderOf(f.sortOrder);
    const rows = await this.rows(where, order, pageSize, offset);
    return { total: total?.n ?? 0, rows: rows.map(({ record: _record, ...r }) => r) };
  }

  /** The caller's own feedback with its answers, newest first. */
  async mine(
    ctx: AuthedContext,
    pageSize: number,
    offset: number,
  ): Promise<{ total: number; rows: FeedbackDetail[] }> {
    const where = eq(feedback.userId, ctx.user.id);
    const [total] = await this.db.select({ n: count() }).from(feedback).where(where);
    return { total: total?.n ?? 0, rows: await this.details(where, [desc(feedback.id)], pageSize, offset) };
  }

  /** One feedback for its sender or an administrator; anyone else is answered 404, as if it did not exist. */
  async detail(ctx: AuthedContext, id: number): Promise<FeedbackDetail> {
    const [d] = await this.details(eq(feedback.id, id), [asc(feedback.id)], 1, 0);
    if (!d || (d.userId !== ctx.user.id && !canQueryAll(ctx)))
      throw new AppError('NOT_FOUND', { entity: 'feedback' });
    return d;
  }

  /** The screenshot's bytes for its sender or an administrator (an administrator's look is audited: it may show patients). */
  async screenshot(ctx: AuthedContext, id: number): Promise<Buffer> {
    const [f] = await this.db.select().from(feedback).where(eq(feedback.id, id));
    const own = f?.userId === ctx.user.id;
    if (!f || !f.screenshotKey || (!own && !canQueryAll(ctx)))
      throw new AppError('NOT_FOUND', { entity: 'feedback' });
    let bytes: Buffer;
    try {
      bytes = await this.store.get(f.screenshotKey);
    } catch {
      throw new AppError('NOT_FOUND', { entity: 'feedback' });
    }
    if (!own) {
      await this.db.transaction((tx) =>
        recordAudit(tx, actorOf(ctx), [
          {
            action: 'feedback.screenshot',
            entity: 'feedback',
            entityId: f.id,
            newValue: { sha256: f.screenshotKey },
          },
        ]),
      );
    }
    return bytes;
  }

  // ── administrators' steps ──

  /**
   * One step on a feedback: locks it, refuses a stale version (naming who acted last, how and when) and a step its
   * status does not allow, writes the new status, the thread entry, the sender's message and the audit entry.
   */
  private async step(
    ctx: AuthedContext,
    input: { id: number; version: number; content?: string | undefined },
    kind: FeedbackReplyKind,
  ): Promise<FeedbackDetail> {
    await this.db.transaction(async (tx) => {
      const [f] = await tx.select().from(feedback).where(eq(feedback.id, input.id)).for('update');
      if (!f) throw new AppError('NOT_FOUND', { entity: 'feedback' });
      if (f.version !== input.version) throw await this.stale(tx, ctx, f);
      if (kind === 'reopen' ? f.status !== 'closed' : f.status === 'closed')
        throw new AppError(kind === 'reopen' ? 'FEEDBACK_NOT_CLOSED' : 'FEEDBACK_CLOSED');
      // a reopened feedback is answered again if it ever had an answer
      const status: FeedbackStatus =
        kind === 'answer'
          ? 'answered'
          : kind === 'close'
            ? 'closed'
            : (await this.hadAnswer(tx, f.id))
              ? 'answered'
              : 'open';
      const now = new Date();
      const updated = await tx
        .update(feedback)
        .set({ status, version: f.version + 1, updatedAt: now, updatedBy: ctx.user.id })
        .where(and(eq(feedback.id, f.id), eq(feedback.version, f.version)))
        .returning({ id: feedback.id });
      if (updated.length === 0) throw await this.stale(tx, ctx, f);
      const content = input.content ?? null;
      let messageId: number | null = null;
      if (kind !== 'reopen') {
        const body = {
          f: f.id,
          e: kind,
          cat: f.category,
          quote: f.content.slice(0, QUOTE_MAX),
          text: content ?? '',
        };
        const [m] = await tx
          .insert(messages)
          .values({
            env: f.env,
            userId: f.userId,
            kind: 'feedback',
            senderId: ctx.user.id,
            title: `feedback #${f.id} ${kind}`,
            content: `feedback:${JSON.stringify(body)}`,
          })
          .returning({ id: messages.id });
        messageId = m!.id;
      }
      await tx
        .insert(feedbackReplies)
        .values({ feedbackId: f.id, kind, content, userId: ctx.user.id, messageId, createdAt: now });
      await recordAudit(tx, actorOf(ctx), [
        {
          action: `feedback.${kind}`,
          entity: 'feedback',
          entityId: f.id,
          field: 'status',
          oldValue: f.status,
          newValue: { status, content, messageTo: messageId ? f.userId : null },
        },
      ]);
    });
    return (await this.details(eq(feedback.id, input.id), [asc(feedback.id)], 1, 0))[0]!;
  }

  private async hadAnswer(tx: Tx, id: number): Promise<boolean> {
    const [row] = await tx
      .select({ id: feedbackReplies.id })
      .from(feedbackReplies)
      .where(and(eq(feedbackReplies.feedbackId, id), eq(feedbackReplies.kind, 'answer')))
      .limit(1);
    return row !== undefined;
  }

  /** FEEDBACK_STALE naming who acted last on the feedback, what they did and when. */
  private async stale(tx: Tx, ctx: AuthedContext, f: FeedbackRecord): Promise<AppError> {
    const [now] = await tx.select().from(feedback).where(eq(feedback.id, f.id));
    const cur = now ?? f;
    const [last] = await tx
      .select({ kind: feedbackReplies.kind })
      .from(feedbackReplies)
      .where(eq(feedbackReplies.feedbackId, f.id))
      .orderBy(desc(feedbackReplies.id))
      .limit(1);
    const [u] = cur.updatedBy
      ? await tx.select({ name: users.name }).from(users).where(eq(users.id, cur.updatedBy))
      : [];
    const t = translator(ctx.language);
    return new AppError('FEEDBACK_STALE', {
      user: u?.name ?? '?',
      action: t(`feedback.acted.${last?.kind ?? 'add'}`),
      time: `${formatTime(cur.updatedAt, 'UTC')} UTC`,
    });
  }

  answer(
    ctx: AuthedContext,
    input: { id: number; version: number; content: string },
  ): Promise<FeedbackDetail> {
    return this.step(ctx, input, 'answer');
  }

  close(
    ctx: AuthedContext,
    input: { id: number; version: number; content: string },
  ): Promise<FeedbackDetail> {
    return this.step(ctx, input, 'close');
  }

  reopen(
    ctx: AuthedContext,
    input: { id: number; version: number; content?: string | undefined },
  ): Promise<FeedbackDetail> {
    return this.step(ctx, input, 'reopen');
  }

  // ── export ──

  /** The filtered list as a streamed .xlsx (at most FEEDBACK_LIMITS.exportMax rows), audited with its filters. */
  async export(ctx: AuthedContext, f: FeedbackFilterValues): Promise<Readable> {
    const where = FeedbackService.where(f);
    const [n] = await this.db
      .select({ n: count() })
      .from(feedback)
      .innerJoin(users, eq(users.id, feedback.userId))
      .where(where);
    const total = Math.min(n?.n ?? 0, FEEDBACK_LIMITS.exportMax);
    await this.db.transaction((tx) =>
      recordAudit(tx, actorOf(ctx), [
        { action: 'feedback.export', entity: 'feedback', newValue: total, reason: JSON.stringify(f) },
      ]),
    );
    const order = orderOf(f.sortOrder);
    const batches = async function* (this: FeedbackService) {
      for (let offset = 0; offset < total; offset += EXPORT_BATCH) {
        const rows = await this.details(where, order, Math.min(EXPORT_BATCH, total - offset), offset);
        if (rows.length === 0) return;
        yield rows;
      }
    }.call(this);
    return streamFeedbackExport(ctx.language, f.timeZone, batches);
  }
}
