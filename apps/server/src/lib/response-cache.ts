/**
 * Answers of read-only routes kept in the API process (issues 16 and 13; docs/decisions.md "Response cache"): a
 * route declared with `cache: true` answers a repeated request from memory instead of reading the database again.
 *
 * What an answer may depend on, and so what its key holds: the route, the caller's access as the guard resolved it
 * (user, login type, environment, project membership and role, site scope and chosen site, the permission set,
 * product, source, organisation), the request's language, and its body and query as received (trimmed; the same
 * request validates to the same input, so a hit needs no validation either). The guard itself always
 * runs first (its own cache, or the database), so an ended session or a revoked permission is refused before the
 * cache is looked at. A cached route must not depend on the clock or write anything.
 *
 * Never stale once the database has said so: every table that an answer could be read from sends NOTIFY
 * esource_data at commit with the table's name (migrations 0050, 0052), and each notification drops the answers read
 * from that table — the tables an answer was read from are recorded while it is computed (lib/read-tables.ts: every
 * statement's text; a call of one of our SQL functions counts as reading everything), so an eCRF save no longer
 * drops the subject list. A notification without a table's name (an older trigger) empties the whole cache. The
 * pooled connections listen too (db/client.ts), so a change made through this process has dropped what it
 * invalidates before the changing request answers; other processes' changes arrive through the dedicated listener
 * (measured in test/response-cache.int.test.ts). While the listener is not listening, every request reads the
 * database. An answer is not kept when, while it was computed, a notification arrived for a table it read (the
 * notifications of the last RECENT are remembered with a sequence number; older ones, or a change of the listener's
 * state, keep it out too): it may have been read before that commit. Entries also go after TTL_MS, and the least
 * recently used beyond MAX_ENTRIES or MAX_BYTES.
 *
 * What is kept is the answer's JSON as the route's serializer wrote it (its envelope included), encoded once, so a
 * hit is sent as it is: no serialising or encoding again.
 */
import { DATA_CHANNEL } from '../db/client';
import { ListeningCache } from './listening-cache';
import type { RequestContext } from './context';
import { readingTables, TABLE_NAMES } from './read-tables';

const TTL_MS = 60_000;
const MAX_ENTRIES = 500;
/** 32 MB of answers (a subject-list page of 50 rows is ≈ 30 KB, of 200 ≈ 120 KB) */
const MAX_BYTES = 32_000_000;
/** a request whose key is longer (an outsized body) is answered but not kept */
const MAX_KEY = 4096;
/** notifications remembered for the answers being computed (a computation that saw more of them is not kept) */
const RECENT = 1024;

interface Entry {
  bytes: Buffer;
  at: number;
  /** the tables the answer was read from; null: any change drops it */
  reads: ReadonlySet<string> | null;
}

export class ResponseCache extends ListeningCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  /** a short name per distinct permission set (the guard shares one Set per cached access row) */
  private readonly pmsNames = new WeakMap<Set<string>, string>();
  private readonly pmsInterned = new Map<string, string>();
  private pmsSeq = 0;
  /** the sequence number of the last notification, and the table each of the last RECENT named ('' for any) */
  private seq = 0;
  private readonly recent: string[] = new Array<string>(RECENT).fill('');
  /** for tests and benchmarks */
  readonly stats = { hits: 0, misses: 0, notifications: 0, lastNotificationAt: 0 };

  constructor(private readonly opts: { ttlMs?: number; maxEntries?: number; maxBytes?: number } = {}) {
    super(DATA_CHANNEL);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The key of a request: the route and everything of the caller's access and request the answer may depend on. */
  keyOf(route: string, ctx: RequestContext, body: unknown, query: unknown): string {
    const p = ctx.project;
    return [
      route,
      ctx.user?.id ?? '',
      ctx.loginType ?? '',
      ctx.env,
      p ? `${p.id}.${p.memberId}.${p.roleId}.${p.siteIds === null ? '*' : p.siteIds.join(',')}` : '',
      ctx.siteId ?? '',
      ctx.language,
      ctx.product ?? '',
      ctx.source ?? '',
      ctx.orgId ?? '',
      this.pmsName(ctx.pms),
      JSON.stringify(body ?? null),
      JSON.stringify(query ?? null),
    ].join('\u0000');
  }

  /**
   * The cached answer (JSON, UTF-8) for this key, or the one `compute` gives (kept only if nothing was notified, and
   * the listener stayed up, while it ran).
   */
  async through(key: string, compute: () => Promise<string | Buffer | ArrayBuffer>): Promise<Buffer> {
    const encoded = async () => {
      const out = await compute();
      return typeof out === 'string' ? Buffer.from(out) : Buffer.isBuffer(out) ? out : Buffer.from(out);
    };
    if (!this.isListening || key.length > MAX_KEY) return encoded();
    const now = Date.now();
    const hit = this.entries.get(key);
    if (hit) {
      if (now - hit.at < (this.opts.ttlMs ?? TTL_MS)) {
        this.stats.hits++;
        // least recently used goes first: a hit moves to the end
        this.entries.delete(key);
        this.entries.set(key, hit);
        return hit.bytes;
      }
      this.drop(key, hit);
    }
    this.stats.misses++;
    const epoch = this.epoch;
    const seq = this.seq;
    const { value: bytes, read } = await readingTables(encoded);
    const reads = read.all ? null : read.tables;
    if (this.isListening && epoch === this.epoch && !this.changedSince(seq, reads)) {
      const old = this.entries.get(key);
      if (old) this.drop(key, old);
      this.entries.set(key, { bytes, at: now, reads });
      this.bytes += bytes.length;
      const max = this.opts.maxEntries ?? MAX_ENTRIES;
      const maxBytes = this.opts.maxBytes ?? MAX_BYTES;
      for (const [oldest, e] of this.entries) {
        if (this.entries.size <= max && this.bytes <= maxBytes) break;
        this.drop(oldest, e);
      }
    }
    return bytes;
  }

  /** Whether a notification since `seq` may concern an answer read from `reads` (null: from anything). */
  private changedSince(seq: number, reads: ReadonlySet<string> | null): boolean {
    if (this.seq === seq) return false;
    if (this.seq - seq > RECENT || reads === null) return true;
    for (let n = seq + 1; n <= this.seq; n++) {
      const table = this.recent[n % RECENT]!;
      if (table === '' || reads.has(table)) return true;
    }
    return false;
  }

  private drop(key: string, e: Entry): void {
    this.entries.delete(key);
    this.bytes -= e.bytes.length;
  }

  private pmsName(pms: Set<string>): string {
    let name = this.pmsNames.get(pms);
    if (name === undefined) {
      const all = [...pms].sort().join(',');
      name = this.pmsInterned.get(all);
      if (name === undefined) {
        // (distinct permission sets are few: one per role, product and project switches); names are never reused
        if (this.pmsInterned.size > 10_000) this.pmsInterned.clear();
        this.pmsInterned.set(all, (name = `p${++this.pmsSeq}`));
      }
      this.pmsNames.set(pms, name);
    }
    return name;
  }

  protected notified(payload: string): void {
    this.stats.notifications++;
    this.stats.lastNotificationAt = performance.now();
    const table = TABLE_NAMES.has(payload) ? payload : '';
    this.seq++;
    this.recent[this.seq % RECENT] = table;
    if (table === '') {
      this.clear();
      return;
    }
    for (const [key, e] of this.entries) if (e.reads === null || e.reads.has(table)) this.drop(key, e);
  }

  protected clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }
}
