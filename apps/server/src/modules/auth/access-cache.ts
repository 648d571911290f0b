/**
 * The guard's access answers kept in the process (issue 16 item 1; docs/decisions.md "Guard cache"): the row
 * loadAccess reads for (token, environment header, project), so that a request with a known session needs no
 * round trip before its handler. authorize() runs every check on the cached row exactly as on a loaded one.
 *
 * Never stale once the database has said so: triggers (migration 0044) send NOTIFY esource_access at commit,
 * 's:<token hash>' when a session changes and '*' when a user, role, role permission, membership, membership site
 * or project changes; each API process listens and drops the entries concerned. Its pooled connections listen too
 * (db/client.ts), so a change made by this process has reached the cache before the changing request answers. While the listener is not
 * listening (not yet connected, connection lost) the cache is bypassed and emptied. A row loaded while a
 * notification arrived is not kept (the generation counter), since it may have been read before that commit.
 * Entries also go after TTL_MS, and the oldest sessions' entries go when there are more than MAX_ENTRIES.
 */
import type { Env } from '@esource/shared';
import { ACCESS_CHANNEL, type DbOrTx } from '../../db/client';
import { ListeningCache } from '../../lib/listening-cache';
import { loadAccess, type AccessRow } from './auth.repo';

export { ACCESS_CHANNEL };
const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

export type AccessLoader = (db: DbOrTx, tokenHash: string, envHeader: Env | null, proId: number | null) => Promise<AccessRow | null>;

interface Entry {
  row: AccessRow;
  at: number;
}

/** A cached row is shared by the requests that read it: nothing may change it (a change would throw). */
function freeze(row: AccessRow): AccessRow {
  Object.freeze(row.systemPms);
  if (row.project) {
    Object.freeze(row.project.pms);
    Object.freeze(row.project.siteIds);
    Object.freeze(row.project);
  }
  return Object.freeze(row);
}

export class AccessCache extends ListeningCache {
  /** token hash → (env header | proId) → entry; the outer map's order is the order sessions were first cached */
  private readonly byToken = new Map<string, Map<string, Entry>>();
  private size = 0;
  /** for tests and benchmarks: hits, loads, notifications received and when the last one came (performance.now()) */
  readonly stats = { hits: 0, loads: 0, notifications: 0, lastNotificationAt: 0 };

  constructor(private readonly opts: { ttlMs?: number; maxEntries?: number } = {}) {
    super(ACCESS_CHANNEL);
  }

  readonly load: AccessLoader = async (db, tokenHash, envHeader, proId) => {
    if (!this.isListening) return loadAccess(db, tokenHash, envHeader, proId);
    const key = `${envHeader ?? ''}|${proId ?? ''}`;
    const now = Date.now();
    const hit = this.byToken.get(tokenHash)?.get(key);
    if (hit && now - hit.at < (this.opts.ttlMs ?? TTL_MS)) {
      this.stats.hits++;
      return hit.row;
    }
    const generation = this.generation;
    const row = await loadAccess(db, tokenHash, envHeader, proId);
    this.stats.loads++;
    if (!row) return null;
    freeze(row);
    // kept only if nothing was notified (or lost) since before the statement ran: it may predate that commit
    if (this.isListening && generation === this.generation) this.put(tokenHash, key, { row, at: now });
    return row;
  };

  private put(tokenHash: string, key: string, entry: Entry): void {
    let group = this.byToken.get(tokenHash);
    if (!group) this.byToken.set(tokenHash, (group = new Map<string, Entry>()));
    if (!group.has(key)) this.size++;
    group.set(key, entry);
    const max = this.opts.maxEntries ?? MAX_ENTRIES;
    for (const [oldest, g] of this.byToken) {
      if (this.size <= max) break;
      this.byToken.delete(oldest);
      this.size -= g.size;
    }
  }

  protected notified(payload: string): void {
    this.stats.notifications++;
    this.stats.lastNotificationAt = performance.now();
    if (!payload.startsWith('s:')) return this.clear();
    const group = this.byToken.get(payload.slice(2));
    if (group) {
      this.byToken.delete(payload.slice(2));
      this.size -= group.size;
    }
  }

  protected clear(): void {
    this.byToken.clear();
    this.size = 0;
  }
}
