/**
 * Anchors of the audit chains (security issue: deleting the last rows of a chain, or a whole chain, went
 * unnoticed because nothing recorded each chain's head).
 *
 * A checkpoint records the heads (chain, last seq, last hash) of the chains that moved since the previous
 * checkpoint, the number of chains and rows the anchors vouch for, a digest of the full set of heads, and
 * `mac` = HMAC(anchor key, prev_mac ‖ checkpoint), so checkpoints form a chain of their own. Each checkpoint is
 * written twice: to the append-only table audit_checkpoints and, as one signed line chained to the previous line,
 * to a JSON-lines file outside the database (AUDIT_ANCHOR_FILE, default <DATA_DIR>/audit-anchors.jsonl).
 *
 * What must always hold: a checkpoint never moves a chain's anchor backwards or onto another hash (a truncated or
 * rewritten chain stays reported until someone looks), and verification reads every checkpoint ever written, from
 * the file and from the table, so that losing the table's rows or the file's lines is itself reported.
 */
import { createHash, createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { asc, desc, sql } from 'drizzle-orm';
import type { Config } from '../../config/config';
import type { Db, DbOrTx } from '../../db/client';
import { auditCheckpoints, auditEvents } from '../../db/schema';
import { chainSecret, GENESIS_HASH, verifyAuditChains, type ChainBreak, type VerifyResult } from './audit.service';

export type Head = [chainKey: string, seq: number, hash: string];

export interface Checkpoint {
  createdAt: string;
  reason: string;
  chains: number;
  rowCount: number;
  heads: Head[];
  digest: string;
  prevMac: string;
  mac: string;
}

/** file line: the checkpoint, the previous line's mac and this line's mac */
interface FileLine {
  cp: Checkpoint;
  prevLine: string;
  lineMac: string;
}

/** The anchors' key, derived from the chain key so that one secret serves both and neither is reused as is. */
function anchorKey(): Buffer {
  return createHmac('sha256', chainSecret()).update('esource-audit-anchor-v1').digest();
}

function checkpointMac(c: Omit<Checkpoint, 'mac'>): string {
  const canonical = JSON.stringify([c.prevMac, c.createdAt, c.reason, c.chains, c.rowCount, c.heads, c.digest]);
  return createHmac('sha256', anchorKey()).update(canonical).digest('hex');
}

function lineMacOf(prevLine: string, cp: Checkpoint): string {
  return createHmac('sha256', anchorKey()).update(prevLine).update('\n').update(JSON.stringify(cp)).digest('hex');
}

/** SHA-256 over the full set of heads, sorted by chain. */
function digestOf(heads: Map<string, { seq: number; hash: string }>): string {
  const h = createHash('sha256');
  for (const k of [...heads.keys()].sort()) {
    const v = heads.get(k)!;
    h.update(`${k}\t${v.seq}\t${v.hash}\n`);
  }
  return h.digest('hex');
}

/** The anchor file's path: AUDIT_ANCHOR_FILE, or audit-anchors.jsonl in the data folder (none in memory). */
export function auditAnchorFilePath(config: Pick<Config, 'auditAnchorFile' | 'dataDir'>): string | null {
  if (config.auditAnchorFile) return path.resolve(config.auditAnchorFile);
  if (config.dataDir.startsWith('memory://')) return null;
  return path.resolve(config.dataDir, 'audit-anchors.jsonl');
}

/** The current head of every chain in the table. */
async function currentHeads(db: DbOrTx): Promise<Map<string, { seq: number; hash: string }>> {
  const rows = await db
    .selectDistinctOn([auditEvents.chainKey], { k: auditEvents.chainKey, seq: auditEvents.seq, hash: auditEvents.hash })
    .from(auditEvents)
    .orderBy(auditEvents.chainKey, desc(auditEvents.seq));
  return new Map(rows.map((x) => [x.k, { seq: x.seq, hash: x.hash }]));
}

/** Every anchored (chain, seq) → hash, and per chain the highest anchored seq. */
export interface AnchorIndex {
  bySeq: Map<string, Map<number, string>>;
  heads: Map<string, { seq: number; hash: string }>;
}

function indexOf(checkpoints: Checkpoint[]): AnchorIndex {
  const idx: AnchorIndex = { bySeq: new Map(), heads: new Map() };
  for (const cp of checkpoints) {
    for (const [k, seq, hash] of cp.heads) {
      let m = idx.bySeq.get(k);
      if (!m) idx.bySeq.set(k, (m = new Map<number, string>()));
      m.set(seq, hash);
      const h = idx.heads.get(k);
      if (!h || seq > h.seq) idx.heads.set(k, { seq, hash });
    }
  }
  return idx;
}

function rowToCheckpoint(r: typeof auditCheckpoints.$inferSelect): Checkpoint {
  return {
    createdAt: r.createdAt.toISOString(),
    reason: r.reason,
    chains: r.chains,
    rowCount: r.rowCount,
    heads: r.heads,
    digest: r.digest,
    prevMac: r.prevMac,
    mac: r.mac,
  };
}

function readLines(file: string): string[] {
  if (!fs.existsSync(file)) return [];
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
}

export interface CheckpointResult {
  /** null when no chain moved since the previous checkpoint */
  checkpoint: Checkpoint | null;
  /** chains that went backwards, vanished or changed their head: not anchored, named here */
  refused: string[];
}

/**
 * Writes one checkpoint of the chains that moved since the previous one, to the table and the anchor file, under
 * a lock so that two workers cannot fork the checkpoint chain. Never anchors a head that is lower than, or differs
 * at the same seq from, what was anchored before.
 */
export async function writeCheckpoint(db: Db, opts: { file: string | null; reason: string }): Promise<CheckpointResult> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext('audit_checkpoints'))`);
    const rows = await tx.select().from(auditCheckpoints).orderBy(asc(auditCheckpoints.id));
    const previous = rows.map(rowToCheckpoint);
    const anchored = indexOf(previous).heads;
    const heads = await currentHeads(tx);
    const refused: string[] = [];
    const delta: Head[] = [];
    for (const [k, h] of heads) {
      const a = anchored.get(k);
      if (!a || h.seq > a.seq) delta.push([k, h.seq, h.hash]);
      else if (h.seq < a.seq) refused.push(`${k}: head seq ${h.seq} below the anchored ${a.seq}`);
      else if (h.hash !== a.hash) refused.push(`${k}: head hash at seq ${h.seq} differs from the anchored one`);
    }
    for (const k of anchored.keys()) if (!heads.has(k)) refused.push(`${k}: chain missing (anchored up to seq ${anchored.get(k)!.seq})`);
    if (delta.length === 0) return { checkpoint: null, refused };
    delta.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
    const merged = new Map(anchored);
    for (const [k, seq, hash] of delta) merged.set(k, { seq, hash });
    let rowCount = 0;
    for (const v of merged.values()) rowCount += v.seq;
    const body = {
      createdAt: new Date().toISOString(),
      reason: opts.reason,
      chains: merged.size,
      rowCount,
      heads: delta,
      digest: digestOf(merged),
      prevMac: previous[previous.length - 1]?.mac ?? GENESIS_HASH,
    };
    const cp: Checkpoint = { ...body, mac: checkpointMac(body) };
    await tx.insert(auditCheckpoints).values({ ...cp, createdAt: new Date(cp.createdAt) });
    if (opts.file) {
      // inside the transaction: a line whose row did not commit shows as "table lost a checkpoint" (loud, never silent)
      const lines = readLines(opts.file);
      const last = lines.length ? (JSON.parse(lines[lines.length - 1]!) as FileLine).lineMac : GENESIS_HASH;
      const line: FileLine = { cp, prevLine: last, lineMac: lineMacOf(last, cp) };
      fs.mkdirSync(path.dirname(opts.file), { recursive: true });
      fs.appendFileSync(opts.file, `${JSON.stringify(line)}\n`, { mode: 0o600 });
    }
    return { checkpoint: cp, refused };
  });
}

export interface AuditTrailReport extends VerifyResult {
  /** problems of the anchors themselves (signatures, lost checkpoints, lines) */
  anchorProblems: string[];
  /** worth knowing, not a break */
  notes: string[];
  checkpoints: { table: number; file: number | null };
}

/** Checks a list of checkpoints: each signature, and that each follows the previous one. */
function checkCheckpointChain(list: Checkpoint[], where: string, problems: string[]): void {
  let prev = GENESIS_HASH;
  list.forEach((cp, i) => {
    const { mac, ...body } = cp;
    if (checkpointMac(body) !== mac) problems.push(`${where}: checkpoint ${i + 1} (${cp.createdAt}) has an invalid signature`);
    else if (cp.prevMac !== prev) problems.push(`${where}: checkpoint ${i + 1} (${cp.createdAt}) does not follow the one before it (checkpoints missing)`);
    prev = mac;
  });
}

/**
 * Verifies the audit trail against its anchors: every chain's rows (verifyAuditChains), every anchored hash still
 * in place, no chain shorter than its checkpoint, no anchored chain missing, and the checkpoint table and the
 * anchor file each intact and in agreement (the table must hold every checkpoint of the file).
 */
export async function verifyAuditTrail(db: Db, opts: { file: string | null; chainKey?: string }): Promise<AuditTrailReport> {
  const anchorProblems: string[] = [];
  const notes: string[] = [];
  const table = (await db.select().from(auditCheckpoints).orderBy(asc(auditCheckpoints.id))).map(rowToCheckpoint);
  checkCheckpointChain(table, 'checkpoint table', anchorProblems);
  if (table.length) {
    const idx = indexOf(table);
    const lastDigest = digestOf(idx.heads);
    if (lastDigest !== table[table.length - 1]!.digest) anchorProblems.push('checkpoint table: the heads do not add up to the last checkpoint\'s digest (checkpoints missing)');
  }

  let fileCps: Checkpoint[] | null = null;
  if (opts.file) {
    fileCps = [];
    const lines = readLines(opts.file);
    if (!fs.existsSync(opts.file) && table.length) anchorProblems.push(`anchor file ${opts.file} is missing but the table holds ${table.length} checkpoint(s)`);
    let prevLine = GENESIS_HASH;
    lines.forEach((text, i) => {
      let line: FileLine;
      try {
        line = JSON.parse(text) as FileLine;
      } catch {
        anchorProblems.push(`anchor file line ${i + 1}: not JSON`);
        return;
      }
      if (lineMacOf(line.prevLine, line.cp) !== line.lineMac) anchorProblems.push(`anchor file line ${i + 1}: invalid signature`);
      else if (line.prevLine !== prevLine) anchorProblems.push(`anchor file line ${i + 1}: does not follow the line before it (lines missing)`);
      else {
        const { mac, ...body } = line.cp;
        if (checkpointMac(body) !== mac) anchorProblems.push(`anchor file line ${i + 1}: checkpoint has an invalid signature`);
        else fileCps!.push(line.cp);
      }
      prevLine = line.lineMac;
    });
    const inTable = new Set(table.map((c) => c.mac));
    const inFile = new Set(fileCps.map((c) => c.mac));
    for (const cp of fileCps) {
      if (!inTable.has(cp.mac)) anchorProblems.push(`checkpoint table lost the checkpoint of ${cp.createdAt} (${cp.heads.length} head(s)) that the anchor file holds`);
    }
    const tableOnly = table.filter((c) => !inFile.has(c.mac)).length;
    if (tableOnly) notes.push(`${tableOnly} checkpoint(s) of the table are not in this anchor file (written by another host, or without a file)`);
  } else {
    notes.push('no anchor file configured: only the checkpoint table anchors the chains (AUDIT_ANCHOR_FILE)');
  }

  // the union: a checkpoint lost from the table still anchors through the file
  const seen = new Set<string>();
  const all: Checkpoint[] = [];
  for (const cp of [...(fileCps ?? []), ...table]) if (!seen.has(cp.mac) && (seen.add(cp.mac), true)) all.push(cp);
  const anchors = indexOf(all);
  const r = await verifyAuditChains(db, { ...(opts.chainKey ? { chainKey: opts.chainKey } : {}), anchors });
  return { ...r, anchorProblems, notes, checkpoints: { table: table.length, file: fileCps ? fileCps.length : null } };
}

/** One line per break, for the CLI and logs. */
export function describeBreak(b: ChainBreak): string {
  switch (b.reason) {
    case 'truncated':
    case 'missing':
      return `BROKEN chain ${b.chainKey}: ${b.detail ?? b.reason}`;
    case 'anchor':
    case 'hash':
    case 'prev-hash':
    case 'sequence':
      return `BROKEN chain ${b.chainKey}: first broken row id=${b.id} seq=${b.seq} (${b.reason} mismatch)${b.detail ? `: ${b.detail}` : ''}`;
  }
}
