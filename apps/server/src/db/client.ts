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
  close(): Promise<void>;
}

export const MIGRATIONS_FOLDER = path.join(SERVER_ROOT, 'drizzle');

export async function openDatabase(opts: { databaseUrl?: string | undefined; dataDir: string }): Promise<Database> {
  if (opts.databaseUrl) {
    const { default: pg } = await import('pg');
    const { drizzle } = await import('drizzle-orm/node-postgres');
    const { migrate } = await import('drizzle-orm/node-postgres/migrator');
    const { PreparingClient } = await import('./prepared-client');
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: Number(process.env.PG_POOL_MAX ?? 10), Client: PreparingClient });
    const db = drizzle(pool, { schema }) as unknown as Db;
    await migrate(drizzle(pool, { schema }), { migrationsFolder: MIGRATIONS_FOLDER });
    return {
      kind: 'postgres',
      db,
      executeSql: async (text, values) => {
        const r = await pool.query(text, values);
        return { rows: r.rows as Record<string, unknown>[], rowCount: r.rowCount };
      },
      close: () => pool.end(),
    };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  let client: InstanceType<typeof PGlite>;
  if (opts.dataDir.startsWith('memory://')) {
    client = new PGlite();
  } else {
    const dir = path.resolve(opts.dataDir, 'pg');
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    client = new PGlite(dir);
  }
  await client.waitReady;
  const raw = drizzle(client, { schema });
  await migrate(raw, { migrationsFolder: MIGRATIONS_FOLDER });
  return {
    kind: 'pglite',
    db: raw as unknown as Db,
    executeSql: async (text, values) => {
      if (values && values.length > 0) {
        const r = await client.query<Record<string, unknown>>(text, values);
        return { rows: r.rows, rowCount: r.affectedRows ?? null };
      }
      const results = await client.exec(text);
      const last = results[results.length - 1];
      return { rows: (last?.rows ?? []), rowCount: last?.affectedRows ?? null };
    },
    close: () => client.close(),
  };
}
