/**
 * The audit trail (DESIGN §4): every write records who, when, env, project, site, subject, entity, field, old
 * and new value, reason and request id, in the same transaction as the change. Rows are chained per project
 * with an HMAC-SHA-256 over the previous row's hash and this row's content, so that a changed, removed or
 * forged row breaks the chain; the database refuses UPDATE/DELETE/TRUNCATE on the table.
 */
import { createHmac } from 'node:crypto';
import { asc, eq, gt, and, ilike, inArray, isNotNull, or } from 'drizzle-orm';
import type { AuditChangeRow, UserPickerRow } from '@esource/shared';
import type { Db, Tx } from '../../db/client';
import type { AnchorIndex } from './audit-anchors';
import { auditEvents, organizations, users } from '../../db/schema';
import type { AuthedContext } from '../../lib/context';
import { likeOf } from '../../lib/sql';
import { rawRows } from '../../db/raw';
import { wellFormed } from '../../lib/well-formed';

export const GENESIS_HASH = '0'.repeat(64);

let chainSecretValue: string | null = null;

/**
 * Sets the chain's HMAC key for this process (startServer and audit:verify, from resolveAuditKey in audit-key.ts).
 * There is no built-in fallback: a key in the source is a key everybody has.
 */
export function setAuditChainKey(key: string): void {
  chainSecretValue = key;
}

/** The chain key; throws when none was set, so that nothing is ever chained with a guessable key. */
export function chainSecret(): string {
  if (!chainSecretValue) throw new Error('audit chain key not configured (resolveAuditKey / setAuditChainKey)');
  return chainSecretValue;
}

export interface AuditActor {
  userId: number | null;
  userName: string | null;
  requestId: string | null;
  ip: string | null;
  env: string | null;
}

/** The audit actor of a logged-in request. */
export function actorOf(ctx: AuthedContext): AuditActor {
  return { userId: ctx.user.id, userName: ctx.user.name, requestId: ctx.requestId, ip: ctx.ip, env: ctx.env };
}

/**
 * One item's change inside an action's audit event (a batch save of a form: issue 16 item 3). Values are stored as
 * text, as a single-field row's are.
 */
export interface AuditChange {
  field: string;
  oldValue?: unknown;
  newValue?: unknown;
  reason?: string | null;
  /** the value's entry mode (ENTRY_MODE) */
  entryMode?: number | null;
  /** why the server changed it (e.g. a display condition cleared it) */
  cause?: string | null;
}

/** The changes of a stored row, or null for a single-field row (and for text that is not a list, never thrown). */
export function changesOf(text: string | null): AuditChangeRow[] | null {
  if (!text) return null;
  try {
    const list: unknown = JSON.parse(text);
    return Array.isArray(list) ? (list as AuditChangeRow[]) : null;
  } catch {
    return null;
  }
}

/** The stored text of an action's changes: fixed key order, values as text, so the chain hashes what is read back. */
export function changesText(list: AuditChange[] | undefined): string | null {
  if (!list?.length) return null;
  return JSON.stringify(
    list.map((c): AuditChangeRow => ({
      field: c.field,
      oldValue: asText(c.oldValue),
      newValue: asText(c.newValue),
      reason: c.reason ?? null,
      ...(c.entryMode !== undefined && c.entryMode !== null ? { entryMode: c.entryMode } : {}),
      ...(c.cause ? { cause: c.cause } : {}),
    })),
  );
}

export interface AuditEntry {
  action: string;
  entity: string;
  entityId?: string | number | null;
  field?: string | null;
  oldValue?: unknown;
  newValue?: unknown;
  reason?: string | null;
  projectId?: number | null;
  siteId?: number | null;
  subjectId?: number | null;
  /** overrides the actor's env (e.g. for system events) */
  env?: string | null;
  /** the item changes of one action (one row for the whole action instead of one per item) */
  changes?: AuditChange[];
}

type Row = typeof auditEvents.$inferSelect;
export type Content = Omit<Row, 'id' | 'hash' | 'prevHash'>;

/** Values are stored as text; objects as JSON. */
function asText(v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/** The hash of a row: HMAC over the previous hash and the row's content in a fixed order. */
export function hashRow(prevHash: string, c: Content): string {
  const canonical = JSON.stringify([
    c.chainKey,
    c.seq,
    c.env,
    c.projectId,
    c.siteId,
    c.subjectId,
    c.userId,
    c.userName,
    c.action,
    c.entity,
    c.entityId,
    c.field,
    c.oldValue,
    c.newValue,
    c.reason,
    c.requestId,
    c.ip,
    c.createdAt.toISOString(),
    // rows of one action's changes (migration 0048) hash them too; rows without keep the hash they were written with
    ...(c.changes === null || c.changes === undefined ? [] : [c.changes]),
  ]);
  return createHmac('sha256', chainSecret()).update(prevHash).update('\n').update(canonical).digest('hex');
}

export function chainKeyOf(projectId: number | null | undefined, subjectId?: number | null): string {
  if (!projectId) return 'system';
  // a subject's data has its own chain, so that entry for different subjects does not queue on one lock
  return subjectId ? `project:${projectId}:subject:${subjectId}` : `project:${projectId}`;
}

/**
 * Appends entries to the audit trail inside the caller's transaction. Takes a transaction-scoped advisory lock
 * per chain so that two concurrent writers cannot fork it.
 */
export async function recordAudit(tx: Tx, actor: AuditActor, entries: AuditEntry[]): Promise<void> {
  const rows = await auditRows(tx, actor, entries);
  if (rows.length) await rawRows(tx, AUDIT_INSERT, [JSON.stringify(rows)]);
}

/** The chain's lock and its head in one round trip (migration 0049: the read after the lock, with a new snapshot). */
export const AUDIT_HEAD = 'select seq, hash from audit_chain_head($1::varchar)';

/**
 * The rows of the JSON parameter (keys as the columns; the action and entity as `event` and `target`) appended in one
 * statement of constant text (issue 16: every write's last statement, no longer rebuilt by the query builder on each
 * call).
 */
export const AUDIT_INSERT = `insert into audit_events (chain_key, seq, env, project_id, site_id, subject_id, user_id, user_name, action, entity,
    entity_id, field, old_value, new_value, reason, request_id, ip, created_at, prev_hash, hash, changes)
  select chain_key, seq, env, project_id, site_id, subject_id, user_id, user_name, event, target,
         entity_id, field, old_value, new_value, reason, request_id, ip, created_at, prev_hash, hash, changes
    from json_to_recordset($1::json) as r(chain_key varchar, seq int, env varchar, project_id int, site_id int, subject_id int,
         user_id int, user_name varchar, event varchar, target varchar, entity_id varchar, field varchar, old_value text,
         new_value text, reason text, request_id varchar, ip varchar, created_at timestamptz, prev_hash varchar, hash varchar, changes text)`;

/**
 * The rows that append entries to the trail: locks each chain's head (one round trip per chain) and computes the
 * rows' hashes. Empty when there is nothing to write.
 */
async function auditRows(tx: Tx, actor: AuditActor, entries: AuditEntry[]): Promise<Record<string, unknown>[]> {
  if (entries.length === 0) return [];
  const byChain = new Map<string, AuditEntry[]>();
  for (const e of entries) {
    const k = chainKeyOf(e.projectId, e.subjectId);
    byChain.set(k, [...(byChain.get(k) ?? []), e]);
  }
  const now = new Date();
  const rows: Record<string, unknown>[] = [];
  for (const [chainKey, list] of byChain) {
    const [last] = await rawRows<{ seq: number; hash: string }>(tx, AUDIT_HEAD, [chainKey]);
    let seq = last?.seq ?? 0;
    let prevHash = last?.hash ?? GENESIS_HASH;
    for (const e of list) {
      seq += 1;
      const content: Content = {
        chainKey,
        seq,
        env: e.env !== undefined ? e.env : actor.env,
        projectId: e.projectId ?? null,
        siteId: e.siteId ?? null,
        subjectId: e.subjectId ?? null,
        userId: actor.userId,
        userName: actor.userName,
        action: e.action,
        entity: e.entity,
        // hashed as stored (lib/well-formed.ts: external text may hold a lone surrogate)
        entityId: wellFormed(asText(e.entityId)),
        field: wellFormed(e.field ?? null),
        oldValue: wellFormed(asText(e.oldValue)),
        newValue: wellFormed(asText(e.newValue)),
        reason: wellFormed(e.reason ?? null),
        requestId: actor.requestId,
        ip: actor.ip,
        createdAt: now,
        changes: changesText(e.changes),
      };
      const row = chainedRow(prevHash, content);
      rows.push(row);
      prevHash = row.hash;
    }
  }
  return rows;
}

/**
 * One row of AUDIT_INSERT's JSON parameter: the content as stored, chained to `prevHash` and hashed. (Exported for
 * bench/subjects.bench.ts, which sends the save's statements from a bare client.)
 */
export function chainedRow(prevHash: string, content: Content): Record<string, unknown> & { hash: string } {
  return {
    chain_key: content.chainKey, seq: content.seq, env: content.env, project_id: content.projectId, site_id: content.siteId,
    subject_id: content.subjectId, user_id: content.userId, user_name: content.userName, event: content.action, target: content.entity,
    entity_id: content.entityId, field: content.field, old_value: content.oldValue, new_value: content.newValue, reason: content.reason,
    request_id: content.requestId, ip: content.ip, created_at: content.createdAt.toISOString(), prev_hash: prevHash,
    hash: hashRow(prevHash, content), changes: content.changes,
  };
}

/**
 * One entry per changed field between `before` and `after` (only the listed fields). Used by services so that
 * an update records old and new values field by field.
 */
export function diffEntries<T extends Record<string, unknown>>(
  base: Omit<AuditEntry, 'field' | 'oldValue' | 'newValue'>,
  before: Partial<T> | null,
  after: Partial<T>,
  fields: readonly (keyof T & string)[],
): AuditEntry[] {
  const out: AuditEntry[] = [];
  for (const f of fields) {
    const o = before ? asText(before[f]) : null;
    const n = asText(after[f]);
    if (o !== n) out.push({ ...base, field: f, oldValue: o, newValue: n });
  }
  return out;
}

export interface ChainBreak {
  chainKey: string;
  /** the first broken row; null when rows are missing at the end of the chain or the whole chain is gone */
  id: number | null;
  seq: number;
  /**
   * sequence / prev-hash / hash: a row does not fit its chain; anchor: a row's hash differs from the one a
   * checkpoint recorded; truncated: the chain ends before its anchored head; missing: an anchored chain is gone
   */
  reason: 'hash' | 'prev-hash' | 'sequence' | 'anchor' | 'truncated' | 'missing';
  detail?: string;
}

export interface VerifyResult {
  chains: number;
  rows: number;
  breaks: ChainBreak[];
}

/**
 * Walks every chain in order and names the first broken row of each. With `anchors` (audit-anchors.ts) it also
 * checks every anchored hash and reports chains shorter than their anchor, or gone.
 */
export async function verifyAuditChains(
  db: Db,
  opts: { chainKey?: string; batch?: number; anchors?: AnchorIndex } = {},
): Promise<VerifyResult> {
  const batch = opts.batch ?? 5000;
  const anchors = opts.anchors;
  const keys = opts.chainKey
    ? [opts.chainKey]
    : (await db.selectDistinct({ k: auditEvents.chainKey }).from(auditEvents)).map((r) => r.k);
  const result: VerifyResult = { chains: keys.length, rows: 0, breaks: [] };
  for (const chainKey of keys) {
    let prevHash = GENESIS_HASH;
    let expectedSeq = 1;
    let after = 0;
    let broken = false;
    const anchored = anchors?.bySeq.get(chainKey);
    while (!broken) {
      const rows = await db
        .select()
        .from(auditEvents)
        .where(and(eq(auditEvents.chainKey, chainKey), gt(auditEvents.seq, after)))
        .orderBy(asc(auditEvents.seq))
        .limit(batch);
      if (rows.length === 0) break;
      for (const r of rows) {
        result.rows += 1;
        let reason: ChainBreak['reason'] | null = null;
        if (r.seq !== expectedSeq) reason = 'sequence';
        else if (r.prevHash !== prevHash) reason = 'prev-hash';
        else if (hashRow(prevHash, r) !== r.hash) reason = 'hash';
        else if (anchored?.has(r.seq) && anchored.get(r.seq) !== r.hash) reason = 'anchor';
        if (reason) {
          result.breaks.push({
            chainKey,
            id: r.id,
            seq: r.seq,
            reason,
            ...(reason === 'anchor' ? { detail: 'the row differs from the hash a checkpoint recorded (chain rewritten)' } : {}),
          });
          broken = true;
          break;
        }
        prevHash = r.hash;
        expectedSeq += 1;
        after = r.seq;
      }
    }
    const head = anchors?.heads.get(chainKey);
    if (!broken && head && after < head.seq) {
      result.breaks.push(
        after === 0
          ? { chainKey, id: null, seq: 0, reason: 'missing', detail: `chain missing: its checkpoint anchors ${head.seq} row(s)` }
          : {
              chainKey,
              id: null,
              seq: after,
              reason: 'truncated',
              detail: `chain truncated: ends at seq ${after}, its checkpoint anchors seq ${head.seq} (${head.seq - after} row(s) missing)`,
            },
      );
    }
  }
  if (anchors && !opts.chainKey) {
    const present = new Set(keys);
    for (const [chainKey, head] of anchors.heads) {
      if (present.has(chainKey)) continue;
      result.chains += 1;
      result.breaks.push({ chainKey, id: null, seq: 0, reason: 'missing', detail: `chain missing: its checkpoint anchors ${head.seq} row(s)` });
    }
  }
  return result;
}

/** Where one project's trail in one environment is: the rows /project/auditLogs shows. */
export function projectTrail(projectId: number, env: string) {
  return and(eq(auditEvents.projectId, projectId), eq(auditEvents.env, env));
}

/** The event names that occur in a project's trail in one environment (the project page's event filter). */
export async function projectEventNames(db: Db, projectId: number, env: string): Promise<string[]> {
  const rows = await db
    .selectDistinct({ a: auditEvents.action })
    .from(auditEvents)
    .where(projectTrail(projectId, env))
    .orderBy(asc(auditEvents.action));
  return rows.map((r) => r.a);
}

/**
 * The users who appear in a project's trail in one environment, whose account or name contains the keyword (the
 * project page's user filter). Only people who acted in this trail: a monitor does not browse the user directory.
 */
export async function projectTrailUsers(
  db: Db,
  projectId: number,
  env: string,
  keyword: string | undefined,
  limit: number,
): Promise<UserPickerRow[]> {
  const actors = db
    .selectDistinct({ id: auditEvents.userId })
    .from(auditEvents)
    .where(and(projectTrail(projectId, env), isNotNull(auditEvents.userId)));
  const kw = keyword ? likeOf(keyword) : null;
  return db
    .select({ id: users.id, account: users.account, name: users.name, orgName: organizations.name })
    .from(users)
    .leftJoin(organizations, eq(organizations.id, users.orgId))
    .where(
      and(inArray(users.id, actors), kw ? or(ilike(users.account, kw), ilike(users.name, kw)) : undefined),
    )
    .orderBy(asc(users.name), asc(users.id))
    .limit(limit);
}
