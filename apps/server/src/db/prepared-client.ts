/**
 * A node-postgres client that runs every parameterised statement as a named prepared statement (the name is a
 * hash of its text), so that PostgreSQL parses and plans each distinct statement once per connection instead of
 * on every call. The guard's access query and the list queries run on every request; their planning cost more
 * than their execution. Statements without parameters (migrations, DDL, several statements at once) are sent
 * as they are.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';

const names = new Map<string, string>();
const MAX_NAMES = 5000;

function nameOf(text: string): string {
  let n = names.get(text);
  if (!n) {
    n = `es_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`;
    if (names.size >= MAX_NAMES) names.clear();
    names.set(text, n);
  }
  return n;
}

type QueryConfigLike = { text: string; values?: unknown[]; name?: string };

/**
 * Channels every pooled connection LISTENs to from the moment it connects, and who is told of their notifications
 * (db/client.ts: read your own writes for the guard's cache). One per pool, passed in the pool's options.
 */
export interface PoolListens {
  channels: readonly string[];
  handlers: Map<string, Set<(payload: string) => void>>;
}

export class PreparingClient extends pg.Client {
  private readonly listens: PoolListens | undefined;

  constructor(config?: pg.ClientConfig & { poolListens?: PoolListens }) {
    super(config);
    const listens = (this.listens = config?.poolListens);
    if (listens?.channels.length)
      this.on('notification', (m) => {
        // only this session's own notifications (those of its commits, received before the COMMIT's answer); the
        // others reach every listening connection and are the dedicated listener's: handling them here too would
        // repeat each one once per pooled connection, at whatever moment each connection reads it
        if ((m as { processId?: number }).processId !== (this as unknown as { processID: number | null }).processID) return;
        for (const fn of listens.handlers.get(m.channel) ?? []) fn(m.payload ?? '');
      });
  }

  // connected, then listening on the pool's channels before the pool hands the connection out (one statement at a
  // time); pg's connect() takes a callback (the pool's way) or returns a promise
  override connect(...args: unknown[]): never {
    const callback = args[0] as ((err: Error | null, c?: pg.Client) => void) | undefined;
    const ready = (async () => {
      await super.connect();
      for (const ch of this.listens?.channels ?? []) await super.query(`listen ${ch}`);
      return this;
    })();
    if (!callback) return ready as never;
    ready.then((c) => callback(null, c), (err: unknown) => callback(err as Error));
    return undefined as never;
  }

  // pg's query() has many overloads; this one only adds a name to parameterised calls and passes the rest on
  override query(...args: unknown[]): never {
    const [first, second] = args;
    if (typeof first === 'string' && Array.isArray(second) && second.length > 0) {
      args = [{ text: first, values: second, name: nameOf(first) }, ...args.slice(2)];
    } else if (
      first &&
      typeof first === 'object' &&
      typeof (first as QueryConfigLike).text === 'string' &&
      !(first as QueryConfigLike).name &&
      typeof (first as { submit?: unknown }).submit !== 'function'
    ) {
      const c = first as QueryConfigLike;
      const values = Array.isArray(second) ? second : c.values;
      if (values && values.length > 0) args = [{ ...c, name: nameOf(c.text) }, ...args.slice(1)];
    }
    return (super.query as (...a: unknown[]) => never)(...args);
  }
}
