/**
 * The HL7 v2 message list (with the dead letters), the raw message as received, replay and the badge count.
 * Scope: a project's messages in the request's environment (project routes), or the messages no project could be
 * found for (system routes, system administrators). A row outside the caller's scope answers 404.
 */
import { and, count, desc, eq, inArray, isNull, like, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { decodeHl7 } from '@esource/interop';
import type { Hl7MessageCount, Hl7MessageDetail, Hl7MessageListRequest, Hl7MessageRow } from '@esource/shared';
import type { z } from 'zod';
import type { hl7MessageListRequest } from '@esource/shared';
import type { Db, DbOrTx } from '../../db/client';
import { hl7Messages, sourceConnections, users } from '../../db/schema';
import type { AuthedContext, ProjectScopedContext } from '../../lib/context';
import { AppError } from '../../lib/errors';
import { offsetOf, pageOf } from '../../lib/page';
import { actorOf, recordAudit } from '../audit/audit.service';
import { HL7_STATUS, type Hl7Intake } from './hl7-intake';

/**
 * Whose messages: a project in one environment, limited to the member's sites (a message of a project belongs to the
 * site of the connection it was routed to), or those with no project (system).
 */
export type Hl7Scope = { projectId: number; env: string; siteIds: number[] | null; siteId: number | null } | { system: true };

export function projectScope(ctx: ProjectScopedContext): Hl7Scope {
  return { projectId: ctx.project.id, env: ctx.env, siteIds: ctx.project.siteIds, siteId: ctx.siteId };
}

const replayer = alias(users, 'replayer');

function scopeWhere(s: Hl7Scope): SQL {
  if ('system' in s) return isNull(hl7Messages.projectId);
  const sites = and(
    s.siteIds === null ? undefined : inArray(sourceConnections.siteId, s.siteIds.length ? s.siteIds : [-1]),
    s.siteId === null ? undefined : eq(sourceConnections.siteId, s.siteId),
  );
  return and(
    eq(hl7Messages.projectId, s.projectId),
    eq(hl7Messages.env, s.env),
    sites ? sql`${hl7Messages.connectionId} in (select ${sourceConnections.id} from ${sourceConnections} where ${sites})` : undefined,
  )!;
}

function zoneOf(tz: string | undefined): string {
  if (!tz) return 'UTC';
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return tz;
  } catch {
    return 'UTC';
  }
}

const likePrefix = (v: string) => `${v.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

const rowColumns = {
  id: hl7Messages.id,
  status: hl7Messages.status,
  ackCode: hl7Messages.ackCode,
  errorCode: hl7Messages.errorCode,
  errorDetail: hl7Messages.errorDetail,
  controlId: hl7Messages.controlId,
  messageType: hl7Messages.messageType,
  sendingApp: hl7Messages.sendingApp,
  sendingFacility: hl7Messages.sendingFacility,
  remote: hl7Messages.remote,
  env: hl7Messages.env,
  connectionId: hl7Messages.connectionId,
  connectionName: sourceConnections.name,
  records: hl7Messages.records,
  size: sql<number>`octet_length(${hl7Messages.raw})::int`,
  receivedAt: hl7Messages.receivedAt,
  processedAt: hl7Messages.processedAt,
  replayedAt: hl7Messages.replayedAt,
  replayedByName: replayer.name,
};

type RawRow = {
  [K in keyof typeof rowColumns]: unknown;
};

function toRow(r: RawRow): Hl7MessageRow {
  const iso = (d: unknown) => (d instanceof Date ? d.toISOString() : typeof d === 'string' ? d : null);
  return {
    id: Number(r.id),
    status: Number(r.status),
    ackCode: (r.ackCode as string | null) ?? null,
    errorCode: (r.errorCode as string | null) ?? null,
    errorDetail: (r.errorDetail as string | null) ?? null,
    controlId: (r.controlId as string | null) ?? null,
    messageType: (r.messageType as string | null) ?? null,
    sendingApp: (r.sendingApp as string | null) ?? null,
    sendingFacility: (r.sendingFacility as string | null) ?? null,
    remote: (r.remote as string | null) ?? null,
    env: (r.env as string | null) ?? null,
    connectionId: r.connectionId == null ? null : Number(r.connectionId),
    connectionName: (r.connectionName as string | null) ?? null,
    records: Number(r.records),
    size: Number(r.size),
    receivedAt: iso(r.receivedAt) ?? '',
    processedAt: iso(r.processedAt),
    replayedAt: iso(r.replayedAt),
    replayedByName: (r.replayedByName as string | null) ?? null,
  };
}

function selectRows(db: DbOrTx) {
  return db
    .select(rowColumns)
    .from(hl7Messages)
    .leftJoin(sourceConnections, eq(sourceConnections.id, hl7Messages.connectionId))
    .leftJoin(replayer, eq(replayer.id, hl7Messages.replayedBy));
}

export async function listMessages(db: Db, scope: Hl7Scope, q: z.output<typeof hl7MessageListRequest>): Promise<{ pageNumber: number; pageSize: number; totalCount: number; content: Hl7MessageRow[] }> {
  const tz = zoneOf(q.timeZone);
  const day = sql`(${hl7Messages.receivedAt} at time zone ${tz})::date`;
  const where = and(
    scopeWhere(scope),
    q.status === undefined ? undefined : eq(hl7Messages.status, q.status),
    q.messageType ? like(hl7Messages.messageType, likePrefix(q.messageType.toUpperCase())) : undefined,
    q.controlId ? eq(hl7Messages.controlId, q.controlId) : undefined,
    q.from ? sql`${day} >= ${q.from}::date` : undefined,
    q.to ? sql`${day} <= ${q.to}::date` : undefined,
  );
  const [total] = await db.select({ n: count() }).from(hl7Messages).where(where);
  const rows = await selectRows(db).where(where).orderBy(desc(hl7Messages.receivedAt), desc(hl7Messages.id)).limit(q.pageSize).offset(offsetOf(q));
  return pageOf(q, total?.n ?? 0, rows.map(toRow));
}
export type { Hl7MessageListRequest };

async function findRow(db: DbOrTx, scope: Hl7Scope, id: number): Promise<Hl7MessageRow> {
  const [r] = await selectRows(db).where(and(scopeWhere(scope), eq(hl7Messages.id, id)));
  if (!r) throw new AppError('NOT_FOUND', { entity: 'hl7Message' });
  return toRow(r);
}

/** The raw bytes as text for display: decoded as declared when possible, else UTF-8 with replacement characters. */
function displayText(bytes: Buffer): { text: string; exact: boolean } {
  try {
    return { text: decodeHl7(bytes), exact: true };
  } catch {
    return { text: new TextDecoder('utf-8').decode(bytes), exact: false };
  }
}

/** The raw message as received, with its segments; reading it is audited (it may identify a patient). */
export async function messageDetail(db: Db, scope: Hl7Scope, id: number, ctx: AuthedContext): Promise<Hl7MessageDetail> {
  return db.transaction(async (tx) => {
    const row = await findRow(tx, scope, id);
    const [m] = await tx.select({ raw: hl7Messages.raw }).from(hl7Messages).where(eq(hl7Messages.id, id));
    const raw = m!.raw;
    await recordAudit(tx, actorOf(ctx), [
      { action: 'hl7.read', entity: 'hl7_message', entityId: id, projectId: 'system' in scope ? null : scope.projectId, ...('system' in scope ? { env: null } : {}) },
    ]);
    const bom = raw[0] === 0xef && raw[1] === 0xbb && raw[2] === 0xbf;
    const { text, exact } = displayText(raw);
    const shown = !exact && bom ? text.replace(/^\uFEFF/, '') : text;
    const cr = /\r(?!\n)/.test(shown);
    const crlf = /\r\n/.test(shown);
    const lf = /(?<!\r)\n/.test(shown);
    const kinds = [cr, crlf, lf].filter(Boolean).length;
    const lineEnds = kinds === 0 ? 'none' : kinds > 1 ? 'mixed' : cr ? 'CR' : crlf ? 'CRLF' : 'LF';
    const segments = shown.split(/\r\n|\r|\n/).filter((s, i, all) => s !== '' || i < all.length - 1);
    return { ...row, text: shown, segments, exact, bom, lineEnds };
  });
}

/** Re-runs the processing of a dead letter (audited). Stored records are keyed by external id: never twice. */
export async function replayMessage(db: Db, intake: Hl7Intake, scope: Hl7Scope, id: number, ctx: AuthedContext): Promise<Hl7MessageRow> {
  const before = await findRow(db, scope, id);
  if (before.status !== HL7_STATUS.deadLetter) throw new AppError('CONFLICT', { detail: 'conflict.hl7NotDeadLetter' });
  const [m] = await db.select({ raw: hl7Messages.raw }).from(hl7Messages).where(eq(hl7Messages.id, id));
  const outcome = await intake.process(id, m!.raw, { mode: 'replay', userId: ctx.user.id });
  // the replay may have routed it to a project: the audit entry goes to the project it landed in
  const [after] = await selectRows(db).where(eq(hl7Messages.id, id));
  const row = toRow(after!);
  await db.transaction(async (tx) => {
    const [p] = await tx.select({ projectId: hl7Messages.projectId }).from(hl7Messages).where(eq(hl7Messages.id, id));
    await recordAudit(tx, actorOf(ctx), [
      {
        action: 'hl7.replay',
        entity: 'hl7_message',
        entityId: id,
        projectId: p?.projectId ?? null,
        field: 'status',
        oldValue: before.status,
        newValue: outcome.status,
        reason: outcome.errorCode ? `${outcome.errorCode}: ${outcome.detail ?? ''}`.slice(0, 500) : null,
      },
    ]);
  });
  return row;
}

export async function countMessages(db: Db, scope: Hl7Scope): Promise<Hl7MessageCount> {
  const rows = await db
    .select({ status: hl7Messages.status, n: count() })
    .from(hl7Messages)
    .where(and(scopeWhere(scope), sql`${hl7Messages.status} in (0, 2)`))
    .groupBy(hl7Messages.status);
  return {
    deadLetters: rows.find((r) => r.status === HL7_STATUS.deadLetter)?.n ?? 0,
    received: rows.find((r) => r.status === HL7_STATUS.received)?.n ?? 0,
  };
}
