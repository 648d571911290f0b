/**
 * What happens to every HL7 v2 message the MLLP listener frames (issue 11 item 1, "HL7 v2 over MLLP"):
 *
 * 1. The exact bytes are inserted into hl7_messages (status 0, received) and committed FIRST. Frames arriving
 *    within the same turn of the event loop share one insert statement (one commit), which is what makes
 *    ≥ 1,000 messages/s possible; nothing is acknowledged before its row is committed.
 * 2. Then it is decoded (MSH-18 character set, byte-order mark stripped), parsed (packages/interop parseHl7), routed
 *    by MSH-3/MSH-4 (sending application/facility) to an enabled 'hl7v2' connection of the environment MSH-11 names
 *    (P → PRO, T → UAT, D → DEV), and its records ingested in ONE transaction with the row's update to status 1
 *    (stored, records count). AA is sent only after that commit.
 * 3. Anything else is a dead letter (status 2) with error_code / error_detail, answered AR (unparseable: no MSH,
 *    wrong or unsupported character set, too large, not framed) or AE (unknown sender, processing failed). Never
 *    dropped. A replay (status 2 → 3 when it succeeds) re-runs step 2; records are keyed by external id, so a
 *    replay never stores a record twice.
 * 4. A row left at status 0 (the process died between commit and processing) is processed at the next start
 *    (recover()). The row lock in step 2 keeps two processes from handling the same message twice.
 */
import { queueCandidates } from '../safety/candidate-queue';
import { and, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client';
import { hl7Messages, projects, sourceConnections } from '../../db/schema';
import { rowsOf, unnestRows } from '../../lib/sql';
import { ingest, type StoreConnection } from '../sources/source-store';
import { buildAck, decodeHl7, Hl7Error, readHl7Header, type Hl7AckCode as AckCode, type Hl7Header } from '@esource/interop';
import { parseForIngest, ParseFailure, type ParsedForIngest } from './hl7-parse';

export const HL7_STATUS = { received: 0, stored: 1, deadLetter: 2, replayed: 3 } as const;

export interface Hl7Outcome {
  id: number;
  status: number;
  ackCode: AckCode;
  errorCode: string | null;
  detail: string | null;
  records: number;
}

/** MSH-11 processing id → the study environment whose connections receive it. */
export function envOfProcessingId(p: string): 'PRO' | 'UAT' | 'DEV' {
  const c = p.trim().toUpperCase()[0];
  return c === 'T' ? 'UAT' : c === 'D' ? 'DEV' : 'PRO';
}

/** Reasons a message never made it past the framing: stored as received, then a dead letter. */
export type FrameProblem = { code: 'TOO_LARGE' | 'NOT_FRAMED' | 'INCOMPLETE'; detail: string };

interface Pending {
  raw: Buffer;
  remote: string;
  header: Hl7Header | null;
  problem: FrameProblem | null;
  resolve: (id: number) => void;
  reject: (err: unknown) => void;
}

const cut = (s: string | undefined | null, n: number) => (s ? s.slice(0, n) : null);

type ProcessMode = { mode: 'live' | 'recover' | 'replay'; userId?: number };

/** A decoded, parsed and routed message, ready to be committed. */
interface Ready {
  id: number;
  header: Hl7Header;
  parsed: ParsedForIngest;
  conn: RoutedConnection;
}

const ROUTE_TTL_MS = 2000;

export class Hl7Intake {
  private queue: Pending[] = [];
  private flushing = false;
  private scheduled = false;
  private readyQueue: { ready: Ready; resolve: (o: Hl7Outcome) => void; reject: (err: unknown) => void }[] = [];
  private readyScheduled = false;
  private readyFlushing = false;
  private readonly routes = new Map<string, { conn: RoutedConnection | null; until: number }>();

  constructor(
    private readonly db: Db,
    private readonly opts: { maxBatch?: number } = {},
  ) {}

  /**
   * Stores the bytes (committed before this resolves), processes them and gives the outcome and the ACK to send.
   * Throws only when the bytes could not be stored at all (then the caller answers AR: nothing was kept).
   */
  async receive(raw: Buffer, remote: string, problem: FrameProblem | null = null): Promise<{ outcome: Hl7Outcome; ack: string }> {
    const id = await this.store(raw, remote, readHl7Header(raw), problem);
    let outcome: Hl7Outcome;
    if (problem) outcome = { id, status: HL7_STATUS.deadLetter, ackCode: 'AR', errorCode: problem.code, detail: problem.detail, records: 0 };
    else {
      try {
        outcome = await this.processLive(id, raw);
      } catch (err) {
        // stored (status 0) but neither processed nor marked: processed at the next start (recover)
        const detail = serverFault(id, 'kept, not processed yet', err);
        outcome = { id, status: HL7_STATUS.received, ackCode: 'AE', errorCode: 'PROCESSING', detail, records: 0 };
      }
    }
    const error = outcome.errorCode ? { code: outcome.errorCode, message: outcome.detail ?? '' } : undefined;
    return { outcome, ack: buildAck(raw, outcome.ackCode, outcome.detail ?? undefined, { error }) };
  }

  /** Inserts the received bytes (status 0, or 2 with the framing problem) in the next batch; resolves with the id once committed. */
  store(raw: Buffer, remote: string, header: Hl7Header | null, problem: FrameProblem | null): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ raw, remote, header, problem, resolve, reject });
      this.schedule();
    });
  }

  private schedule() {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, this.opts.maxBatch ?? 200);
        try {
          // one short statement per batch whatever its size: one array parameter per column
          const rows = rowsOf<{ id: number | string }>(
            await this.db.execute(sql`
              insert into hl7_messages ${unnestRows(
                [
                  [hl7Messages.raw, 'bytea'],
                  [hl7Messages.remote, 'varchar'],
                  [hl7Messages.status, 'smallint'],
                  [hl7Messages.ackCode, 'varchar'],
                  [hl7Messages.errorCode, 'varchar'],
                  [hl7Messages.errorDetail, 'varchar'],
                  [hl7Messages.processedAt, 'timestamptz'],
                  [hl7Messages.controlId, 'varchar'],
                  [hl7Messages.messageType, 'varchar'],
                  [hl7Messages.sendingApp, 'varchar'],
                  [hl7Messages.sendingFacility, 'varchar'],
                ],
                batch.map((p) => [
                  p.raw,
                  cut(p.remote, 100),
                  p.problem ? HL7_STATUS.deadLetter : HL7_STATUS.received,
                  p.problem ? 'AR' : null,
                  p.problem?.code ?? null,
                  cut(p.problem?.detail, 1000),
                  p.problem ? new Date().toISOString() : null,
                  cut(p.header?.controlId, 200),
                  cut(p.header?.messageType, 20),
                  cut(p.header?.sendingApp, 200),
                  cut(p.header?.sendingFacility, 200),
                ]),
              )}
              returning id`),
          );
          // one statement: ids are drawn in the order of the unnest rows
          const ids = rows.map((r) => Number(r.id)).sort((a, b) => a - b);
          batch.forEach((p, i) => p.resolve(ids[i]!));
        } catch (err) {
          for (const p of batch) p.reject(err);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /**
   * Decodes, parses, routes and ingests a stored message in one transaction with its status update.
   * mode 'live' and 'recover' handle only a message still at status 0; 'replay' only a dead letter (status 2).
   */
  async process(id: number, raw: Buffer, o: ProcessMode): Promise<Hl7Outcome> {
    const ready = await this.prepare(id, raw, o);
    if ('status' in ready) return ready;
    try {
      return (await this.commitReady([ready], o))[0]!;
    } catch (err) {
      return await this.deadLetter(id, ready.header, 'PROCESSING', serverFault(id, 'processing failed', err), 'AE', o, ready.conn);
    }
  }

  /**
   * Live messages: prepared one by one, then committed in batches (the messages of every connection that are
   * ready in the same turn of the event loop share one transaction). A batch that fails is retried message by
   * message, so that one bad message cannot fail the others.
   */
  private async processLive(id: number, raw: Buffer): Promise<Hl7Outcome> {
    const o: ProcessMode = { mode: 'live' };
    const ready = await this.prepare(id, raw, o);
    if ('status' in ready) return ready;
    return new Promise<Hl7Outcome>((resolve, reject) => {
      this.readyQueue.push({ ready, resolve, reject });
      if (this.readyScheduled) return;
      this.readyScheduled = true;
      setImmediate(() => void this.flushReady());
    });
  }

  private async flushReady(): Promise<void> {
    this.readyScheduled = false;
    if (this.readyFlushing) return; // the running flush drains what was queued meanwhile
    this.readyFlushing = true;
    const o: ProcessMode = { mode: 'live' };
    try {
      while (this.readyQueue.length > 0) {
        const batch = this.readyQueue.splice(0, this.opts.maxBatch ?? 200);
        try {
          const outcomes = await this.commitReady(
            batch.map((b) => b.ready),
            o,
          );
          batch.forEach((b, i) => b.resolve(outcomes[i]!));
        } catch {
          for (const b of batch) {
            try {
              b.resolve((await this.commitReady([b.ready], o))[0]!);
            } catch (err) {
              try {
                b.resolve(await this.deadLetter(b.ready.id, b.ready.header, 'PROCESSING', serverFault(b.ready.id, 'processing failed', err), 'AE', o, b.ready.conn));
              } catch (err2) {
                b.reject(err2);
              }
            }
          }
        }
      }
    } finally {
      this.readyFlushing = false;
    }
  }

  /** Decode, route, parse: a dead letter (its outcome) or what commitReady needs. */
  private async prepare(id: number, raw: Buffer, o: ProcessMode): Promise<Hl7Outcome | Ready> {
    // the MSH fields are read from the bytes (Latin-1) before decoding: a known sender's failures (bad charset,
    // bad bytes, unparseable) belong to its project
    const header = readHl7Header(raw);
    const env = envOfProcessingId(header?.processingId ?? '');
    let conn: RoutedConnection | null = null;
    let routeError: Error | null = null;
    if (header) {
      try {
        conn = await this.route(header, env, o.mode === 'live');
      } catch (err) {
        routeError = err as Error;
      }
    }
    const fail = (code: string, detail: string, ackCode: AckCode) => this.deadLetter(id, header, code, detail, ackCode, o, conn);
    let text: string;
    try {
      text = decodeHl7(raw);
    } catch (err) {
      if (err instanceof Hl7Error) return fail(err.code, err.message, err.ackCode);
      throw err;
    }
    if (routeError) return fail('PROCESSING', serverFault(id, 'routing failed', routeError), 'AE');
    let parsed;
    try {
      parsed = parseForIngest(text, conn?.config, conn?.timeZone);
    } catch (err) {
      if (err instanceof ParseFailure) return fail(err.code, err.detail, err.ackCode);
      throw err;
    }
    // parsed: the message has an MSH (else NO_MSH above)
    if (!conn || !header) {
      return fail('UNKNOWN_SENDER', `no enabled HL7 v2 connection of ${env} for sending application '${header?.sendingApp ?? ''}' / facility '${header?.sendingFacility ?? ''}'`, 'AE');
    }
    return { id, header, parsed, conn };
  }

  /**
   * Routing of live messages is cached for ROUTE_TTL_MS (a connection added or changed takes effect within that
   * time; a message refused meanwhile is a dead letter to replay); recovery and replay always look it up.
   */
  private async route(h: Hl7Header, env: string, cached: boolean): Promise<RoutedConnection | null> {
    const key = `${env}\u0000${h.sendingApp.toLowerCase()}\u0000${h.sendingFacility.toLowerCase()}`;
    const now = Date.now();
    const hit = cached ? this.routes.get(key) : undefined;
    if (hit && hit.until > now) return hit.conn;
    const conn = await routeOf(this.db, h, env);
    if (this.routes.size > 1000) this.routes.clear();
    this.routes.set(key, { conn, until: now + ROUTE_TTL_MS });
    return conn;
  }

  /**
   * One transaction: the rows still waiting (status 0; a dead letter for a replay) are marked stored first (that
   * update takes their row locks, so a second process cannot handle them too), then the records of those messages
   * are ingested (per connection one `ingest` call). Nothing is visible before the commit; a failure rolls both back.
   */
  private async commitReady(list: Ready[], o: ProcessMode): Promise<Hl7Outcome[]> {
    const touched = new Set<number>();
    const out = await this.db.transaction(async (tx) => {
      const status = o.mode === 'replay' ? HL7_STATUS.replayed : HL7_STATUS.stored;
      const from = o.mode === 'replay' ? HL7_STATUS.deadLetter : HL7_STATUS.received;
      const countOf = (r: Ready) => new Set(r.parsed.records.map((x) => x.externalId)).size;
      // the header columns (control id, type, sender) were written with the bytes, from the same MSH line
      const marked = rowsOf<{ id: number | string }>(
        await tx.execute(sql`
          update hl7_messages m set
            status = ${status}, ack_code = 'AA', error_code = null, error_detail = null, records = u.records,
            connection_id = u.connection_id, project_id = u.project_id, env = u.env, processed_at = now()
            ${o.mode === 'replay' ? sql`, replayed_by = ${o.userId ?? null}, replayed_at = now()` : sql``}
          from unnest(
            ${sql.param(list.map((r) => r.id))}::bigint[], ${sql.param(list.map(countOf))}::int[],
            ${sql.param(list.map((r) => r.conn.id))}::int[], ${sql.param(list.map((r) => r.conn.projectId))}::int[],
            ${sql.param(list.map((r) => r.conn.env))}::varchar[]
          ) as u(id, records, connection_id, project_id, env)
          where m.id = u.id and m.status = ${from}
          returning m.id`),
      );
      const done = new Set(marked.map((r) => Number(r.id)));
      const todo = list.filter((r) => done.has(r.id));
      const byConn = new Map<number, Ready[]>();
      for (const r of todo) byConn.set(r.conn.id, [...(byConn.get(r.conn.id) ?? []), r]);
      for (const group of byConn.values()) {
        const r = await ingest(tx, {
          connection: group[0]!.conn,
          patients: group.flatMap((r) => (r.parsed.patient ? [r.parsed.patient] : [])),
          records: group.flatMap((r) => r.parsed.records),
        });
        for (const id of r.subjectIds) touched.add(id);
      }
      // rare: a message another process handled meanwhile (or gone) — answer with what it became
      const others = list.filter((r) => !done.has(r.id));
      const current = new Map<number, LockedRow>();
      if (others.length > 0) {
        const rows = rowsOf<{ id: number | string; status: number | string; ack_code: string | null; error_code: string | null; error_detail: string | null; records: number | string }>(
          await tx.execute(
            sql`select id, status, ack_code, error_code, error_detail, records from hl7_messages where id = any(${sql.param(others.map((r) => r.id))}::bigint[])`,
          ),
        );
        for (const r of rows) {
          current.set(Number(r.id), {
            id: Number(r.id),
            status: Number(r.status),
            ackCode: r.ack_code,
            errorCode: r.error_code,
            errorDetail: r.error_detail,
            records: Number(r.records),
          });
        }
      }
      return list.map((r): Hl7Outcome => {
        if (done.has(r.id)) return { id: r.id, status, ackCode: 'AA', errorCode: null, detail: null, records: countOf(r) };
        const c = current.get(r.id);
        return c ? outcomeOf(c) : { id: r.id, status: -1, ackCode: 'AE', errorCode: 'GONE', detail: 'the message row is gone', records: 0 };
      });
    });
    // the safety candidates of the subjects these messages reached, in the background after the commit
    if (touched.size) queueCandidates(this.db, touched);
    return out;
  }

  private async deadLetter(
    id: number,
    header: Hl7Header | null,
    code: string,
    detail: string,
    ackCode: AckCode,
    o: ProcessMode,
    conn?: StoreConnection | null,
  ): Promise<Hl7Outcome> {
    return this.db.transaction(async (tx) => {
      const current = await lockRow(tx, id);
      if (current && !allowed(current.status, o.mode) && current.status !== HL7_STATUS.deadLetter) return outcomeOf(current);
      await tx
        .update(hl7Messages)
        .set({
          status: HL7_STATUS.deadLetter,
          ackCode,
          errorCode: code.slice(0, 60),
          errorDetail: detail.slice(0, 1000),
          processedAt: new Date(),
          ...headerCols(header),
          // a message from a known sender that fails is that project's dead letter (its data manager sees and replays it)
          ...(conn ? { connectionId: conn.id, projectId: conn.projectId, env: conn.env } : {}),
          ...(o.mode === 'replay' ? { replayedBy: o.userId ?? null, replayedAt: new Date() } : {}),
        })
        .where(eq(hl7Messages.id, id));
      return { id, status: HL7_STATUS.deadLetter, ackCode, errorCode: code, detail, records: 0 };
    });
  }

  /** Processes every message left at status 0 (received, never processed: the process died). Returns how many. */
  async recover(): Promise<number> {
    let n = 0;
    let last = 0;
    for (;;) {
      const rows = await this.db
        .select({ id: hl7Messages.id, raw: hl7Messages.raw })
        .from(hl7Messages)
        .where(and(eq(hl7Messages.status, HL7_STATUS.received), sql`${hl7Messages.id} > ${last}`))
        .orderBy(hl7Messages.id)
        .limit(100);
      if (rows.length === 0) return n;
      for (const r of rows) {
        last = r.id;
        await this.process(last, r.raw, { mode: 'recover' });
        n++;
      }
    }
  }

  /** Waits until queued inserts are committed (shutdown). */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.flushing || this.readyQueue.length > 0 || this.readyFlushing) await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * A failure of ours (database, code), not of the message: the library's text goes to the server log only; the row,
 * the ACK sent to the hospital and the screen get a fixed line (the screen shows the translated PROCESSING reason).
 */
function serverFault(id: number, what: string, err: unknown): string {
  console.warn(`[mllp] message ${id}: ${what}: ${(err as Error).message}`);
  return `${what} (server error, see the server log; the message is kept and can be replayed)`;
}

function headerCols(h: Hl7Header | null) {
  if (!h) return {};
  return {
    controlId: cut(h.controlId, 200),
    messageType: cut(h.messageType, 20),
    sendingApp: cut(h.sendingApp, 200),
    sendingFacility: cut(h.sendingFacility, 200),
  };
}

function allowed(status: number | undefined, mode: 'live' | 'recover' | 'replay'): boolean {
  if (status === undefined) return false;
  return mode === 'replay' ? status === HL7_STATUS.deadLetter : status === HL7_STATUS.received;
}

interface LockedRow {
  id: number;
  status: number;
  ackCode: string | null;
  errorCode: string | null;
  errorDetail: string | null;
  records: number;
}

async function lockRow(tx: Tx, id: number): Promise<LockedRow | null> {
  const rows = rowsOf<{ id: number | string; status: number | string; ack_code: string | null; error_code: string | null; error_detail: string | null; records: number | string }>(
    await tx.execute(sql`select id, status, ack_code, error_code, error_detail, records from hl7_messages where id = ${id} for update`),
  );
  const r = rows[0];
  return r
    ? { id: Number(r.id), status: Number(r.status), ackCode: r.ack_code, errorCode: r.error_code, errorDetail: r.error_detail, records: Number(r.records) }
    : null;
}

function outcomeOf(r: LockedRow): Hl7Outcome {
  const stored = r.status === HL7_STATUS.stored || r.status === HL7_STATUS.replayed;
  return {
    id: r.id,
    status: r.status,
    ackCode: stored ? 'AA' : ((r.ackCode as AckCode | null) ?? 'AE'),
    errorCode: r.errorCode,
    detail: r.errorDetail,
    records: r.records,
  };
}

/**
 * The connection a message is for: an enabled, live 'hl7v2' connection of the environment whose config.sendingApp
 * equals MSH-3 and whose config.sendingFacility (when set) equals MSH-4 (first components, case-insensitive); one
 * naming the facility wins over one that does not.
 */
export type RoutedConnection = StoreConnection & { config: Record<string, unknown>; /** the project's IANA time zone: times without an offset are read in it */ timeZone: string };

export async function routeOf(tx: Tx | Db, h: Hl7Header, env: string): Promise<RoutedConnection | null> {
  if (!h.sendingApp) return null;
  const fac = sql`coalesce(${sourceConnections.config}->>'sendingFacility', '')`;
  const rows = await tx
    .select({
      id: sourceConnections.id,
      env: sourceConnections.env,
      projectId: sourceConnections.projectId,
      siteId: sourceConnections.siteId,
      config: sourceConnections.config,
      timeZone: projects.timezone,
    })
    .from(sourceConnections)
    .innerJoin(projects, eq(projects.id, sourceConnections.projectId))
    .where(
      and(
        eq(sourceConnections.kind, 'hl7v2'),
        eq(sourceConnections.enabled, true),
        sql`${sourceConnections.deletedAt} is null`,
        eq(sourceConnections.env, env),
        sql`lower(trim(${sourceConnections.config}->>'sendingApp')) = ${h.sendingApp.toLowerCase()}`,
        sql`(trim(${fac}) = '' or lower(trim(${fac})) = ${h.sendingFacility.toLowerCase()})`,
      ),
    )
    .orderBy(sql`(trim(${fac}) <> '') desc`, sourceConnections.id)
    .limit(1);
  return rows[0] ?? null;
}
