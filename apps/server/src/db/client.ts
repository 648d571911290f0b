/**
 * Opens the one PostgreSQL database: embedded PGlite (persisted under dataDir, or in memory for tests) when no
 * DATABASE_URL is set, otherwise a node-postgres pool. Applies the migrations and gives a Drizzle handle plus
 * a raw `executeSql` for pg-boss.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import type { ExtractTablesWithRelations } from 'drizzle-orm';
import * as schema from './schema';
import { SERVER_ROOT } from '../config/config';
import type { PoolListens } from './prepared-client';
import { recordStatement } from '../lib/read-tables';

/** Every statement's text to the tables-read recorder (lib/read-tables.ts: a cached answer's dependencies). */
const statementLogger = { logQuery: (query: string) => recordStatement(query) };

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Either the database or an open transaction: repositories take this so a service can compose them. */
export type DbOrTx = Db | Tx;

export interface SqlResult {
  rows: Record<string, unknown>[];
  rowCount?: number | null;
}

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  /** raw SQL, parameters as $1…; several statements allowed when there are no parameters */
  executeSql(text: string, values?: unknown[]): Promise<SqlResult>;
  /**
   * The same, as the tables' owner (DATABASE_URL) on the PostgreSQL server: for pg-boss only, whose queues are
   * tables it creates. On PGlite there is one user and this is executeSql. The application's own queries (db,
   * executeSql) run as the esource_app role, which cannot change the audit trail (app-role.ts).
   */
  ownerExecuteSql(text: string, values?: unknown[]): Promise<SqlResult>;
  /**
   * LISTEN on a channel (the guard's cache, issue 16 item 1): `onNotify` gets each payload; `onState(true)` once
   * listening, `onState(false)` when the connection is lost (on the PostgreSQL server a connection of its own,
   * opened again every second until it listens again). Resolves after the first attempt; returns the stop.
   */
  listen(channel: string, onNotify: (payload: string) => void, onState: (listening: boolean) => void): Promise<() => Promise<void>>;
  /** how another process connects as the application (the PostgreSQL server only: a study export's child process) */
  appConnection?: { connectionString: string; options?: string };
  close(): Promise<void>;
}

/** The guard cache's NOTIFY channel (migration 0044's triggers; modules/auth/access-cache.ts). */
export const ACCESS_CHANNEL = 'esource_access';
/** The response cache's NOTIFY channel: any write to data an answer may be read from (migration 0050; lib/response-cache.ts). */
export const DATA_CHANNEL = 'esource_data';

export const MIGRATIONS_FOLDER = path.join(SERVER_ROOT, 'drizzle');

export async function openDatabase(opts: {
  databaseUrl?: string | undefined;
  /** the application's own login (not superuser, not owner); unset = the owner's URL with role=esource_app */
  databaseAppUrl?: string | undefined;
  production?: boolean;
  dataDir: string;
  /** an in-memory database starts from this dump of a migrated one (Config.pgliteTemplate) */
  pgliteTemplate?: string | undefined;
  /** whether the pooled connections listen to the response cache's channel too (off: RESPONSE_CACHE=0, a worker) */
  responseCache?: boolean;
  role?: string;
}): Promise<Database> {
  if (opts.databaseUrl) {
    const { default: pg } = await import('pg');
    const { drizzle } = await import('drizzle-orm/node-postgres');
    const { migrate } = await import('drizzle-orm/node-postgres/migrator');
    const { PreparingClient } = await import('./prepared-client');
    const { APP_ROLE, checkAppConnection, ensureAppRole } = await import('./app-role');
    if (opts.production && !opts.databaseAppUrl) {
      throw new Error(
        `DATABASE_APP_URL is required in production: the application must not connect as the tables' owner (a login role in ${APP_ROLE}, docs/security.md)`,
      );
    }
    // The owner migrates, grants the application role its rights, and runs pg-boss (whose queues are DDL).
    const ownerPool = new pg.Pool({ connectionString: opts.databaseUrl, max: 3 });
    // development without an app login: every connection starts as the role (a superuser could SET ROLE back)
    const appLogin = { connectionString: opts.databaseAppUrl ?? opts.databaseUrl, ...(opts.databaseAppUrl ? {} : { options: `-c role=${APP_ROLE}` }) };
    // Every pooled connection listens to the guard cache's and the response cache's channels as well. PostgreSQL sends a listening session its
    // own transaction's notifications at commit, before the COMMIT's answer: a request that changed what the guard
    // reads has had its notification handled before it can answer, so the user's next request sees the change (read
    // your own writes in this process). The dedicated connection of listen() carries the other processes'
    // notifications and says whether the channel is up.
    const poolListens: PoolListens = { channels: opts.responseCache !== false && opts.role !== 'worker' ? [ACCESS_CHANNEL, DATA_CHANNEL] : [ACCESS_CHANNEL], handlers: new Map() };
    const pool = new pg.Pool({ ...appLogin, max: Number(process.env.PG_POOL_MAX ?? 10), Client: PreparingClient, poolListens } as ConstructorParameters<typeof pg.Pool>[0]);
    // An idle pooled connection the server ends (restart, pg_terminate_backend, a dropped database) emits 'error' on
    // its pool; unhandled, that would end the process. The pool drops the connection and opens another when needed.
    for (const p of [pool, ownerPool]) p.on('error', (err) => console.warn(`[db] idle connection closed by the server: ${err.message}`));
    try {
      await migrate(drizzle(ownerPool, { schema }), { migrationsFolder: MIGRATIONS_FOLDER });
      await ensureAppRole(ownerPool);
      const who = await checkAppConnection(pool);
      if (!opts.databaseAppUrl) {
        console.warn(
          `[db] DATABASE_APP_URL unset: the application runs as role ${APP_ROLE} on the owner's connection (${who.sessionUser}); ` +
            'a session user who is superuser can leave that role. Production requires DATABASE_APP_URL (docs/security.md).',
        );
      }
    } catch (err) {
      await Promise.allSettled([pool.end(), ownerPool.end()]);
      throw err;
    }
    const db = drizzle(pool, { schema, logger: statementLogger }) as unknown as Db;
    const run = (p: InstanceType<typeof pg.Pool>) => async (text: string, values?: unknown[]) => {
      recordStatement(text);
      const r = await p.query(text, values);
      return { rows: r.rows as Record<string, unknown>[], rowCount: r.rowCount };
    };
    const listeners = new Set<() => Promise<void>>();
    const listen: Database['listen'] = async (channel, onNotify, onState) => {
      if (!/^[a-z_]+$/.test(channel)) throw new Error(`bad channel name ${channel}`);
      let onPool = poolListens.handlers.get(channel);
      if (!onPool) poolListens.handlers.set(channel, (onPool = new Set()));
      onPool.add(onNotify);
      let stopped = false;
      let current: InstanceType<typeof pg.Client> | null = null;
      let retry: NodeJS.Timeout | null = null;
      const connect = async () => {
        // (named, so that pg_stat_activity tells the listeners apart from the pool's connections)
        const c = new pg.Client({ ...appLogin, keepAlive: true, application_name: `esource listen ${channel}` });
        current = c;
        let lost = false;
        const drop = (why: string) => {
          if (lost || stopped) return;
          lost = true;
          current = null;
          onState(false);
          console.warn(`[db] ${channel} listener lost (${why}); connecting again`);
          void c.end().catch(() => undefined);
          retry = setTimeout(() => void connect(), 1000);
          retry.unref();
        };
        c.on('notification', (m) => {
          if (m.channel === channel) onNotify(m.payload ?? '');
        });
        c.on('error', (err) => drop(err.message));
        c.on('end', () => drop('connection ended'));
        try {
          await c.connect();
          await c.query(`listen ${channel}`);
          if (!lost && !stopped) onState(true);
        } catch (err) {
          drop((err as Error).message);
        }
        // a connection that died without a word (a silent network drop) would lose notifications until TCP noticed:
        // ask every 5 s; no answer within 5 s counts as lost (the cache is bypassed until the listener is back)
        const beat = setInterval(() => {
          if (lost || stopped) return clearInterval(beat);
          const late = setTimeout(() => drop('no answer to the heartbeat'), 5000);
          late.unref();
          c.query('select 1').then(
            () => clearTimeout(late),
            (err: unknown) => {
              clearTimeout(late);
              drop((err as Error).message);
            },
          );
        }, 5000);
        beat.unref();
      };
      const stop = async () => {
        stopped = true;
        listeners.delete(stop);
        onPool.delete(onNotify);
        if (retry) clearTimeout(retry);
        onState(false);
        await current?.end().catch(() => undefined);
        current = null;
      };
      listeners.add(stop);
      await connect();
      return stop;
    };
    return {
      kind: 'postgres',
      db,
      executeSql: run(pool),
      ownerExecuteSql: run(ownerPool),
      listen,
      appConnection: appLogin,
      close: async () => {
        await Promise.all([...listeners].map((stop) => stop()));
        await Promise.all([pool.end(), ownerPool.end()]);
      },
    };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  // pg_trgm ships with PGlite but is loadable only when passed here: the subject-number search's trigram index
  // (migrations 0029 and 0031) then exists on the embedded database too
  const { pg_trgm } = await import('@electric-sql/pglite/contrib/pg_trgm');
  let client: InstanceType<typeof PGlite>;
  if (opts.dataDir.startsWith('memory://')) {
    const template = opts.pgliteTemplate && fs.existsSync(opts.pgliteTemplate) ? opts.pgliteTemplate : undefined;
    client = new PGlite({
      extensions: { pg_trgm },
      ...(template ? { loadDataDir: new Blob([fs.readFileSync(template)]) } : {}),
    });
  } else {
    const dir = path.resolve(opts.dataDir, 'pg');
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    client = new PGlite(dir, { extensions: { pg_trgm } });
  }
  await client.waitReady;
  const raw = drizzle(client, { schema, logger: statementLogger });
  await migrate(raw, { migrationsFolder: MIGRATIONS_FOLDER });
  const executeSql = async (text: string, values?: unknown[]): Promise<SqlResult> => {
    recordStatement(text);
    if (values && values.length > 0) {
      const r = await client.query<Record<string, unknown>>(text, values);
      return { rows: r.rows, rowCount: r.affectedRows ?? null };
    }
    const results = await client.exec(text);
    const last = results[results.length - 1];
    return { rows: (last?.rows ?? []), rowCount: last?.affectedRows ?? null };
  };
  // PGlite is one user in this process: no role can be taken away from it; the anchor file is the protection here
  return {
    kind: 'pglite',
    db: raw as unknown as Db,
    executeSql,
    ownerExecuteSql: executeSql,
    // one connection in this process: listening never stops until closed; a notification reaches the callback
    // while the committing statement's answer is read, before the caller's await returns
    listen: async (channel, onNotify, onState) => {
      const unlisten = await client.listen(channel, onNotify);
      onState(true);
      return async () => {
        onState(false);
        if (!client.closed) await unlisten().catch(() => undefined);
      };
    },
    close: () => client.close(),
  };
}
