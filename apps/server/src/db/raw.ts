/**
 * Statements written as plain SQL text with $n parameters, sent to the driver as they are (issue 16: the eCRF
 * save's and the audit trail's statements). The query builder rebuilt each such statement from its parts on every
 * call — a fifth of the API's CPU during saves — although its text never changes; here the text is a constant
 * and only the parameters are computed.
 *
 * Both drivers answer { rows } with their own parsing of the types: json and jsonb as objects, int4 as numbers,
 * text as strings. Select only such columns (no int8: node-postgres gives a string, PGlite a bigint; no
 * timestamps: cast them to text), or a whole row as JSON read back with `rowFromJson`.
 */
import { getTableColumns, type Table } from 'drizzle-orm';
import type { DbOrTx } from './client';
import { recordStatement } from '../lib/read-tables';

type Queryable = { query(text: string, params?: unknown[]): Promise<{ rows: unknown[] }> };

/** The rows of one statement, through the driver's client of this database or transaction (its connection). */
export async function rawRows<T>(db: DbOrTx, text: string, params: readonly unknown[]): Promise<T[]> {
  // a cached answer records the tables it read (lib/read-tables.ts), whichever way its statements are sent
  recordStatement(text);
  const client = (db as unknown as { session: { client: Queryable } }).session.client;
  return (await client.query(text, params as unknown[])).rows as T[];
}

const columnsOf = new WeakMap<Table, [key: string, name: string, map: (v: unknown) => unknown][]>();

/**
 * A table's row given as JSON by `row_to_json(t)` (keys are the columns' names), as the query builder would have
 * given it: each column's key, and its value through the column's own mapping (timestamps as Date, …). Not for tables
 * with bytea (JSON gives it as hex text) or numeric beyond a double's precision (JSON.parse rounds it); the save's
 * four tables have neither.
 */
export function rowFromJson<T extends Table>(table: T, json: Record<string, unknown> | null): T['$inferSelect'] | null {
  if (!json) return null;
  let cols = columnsOf.get(table);
  if (!cols) {
    cols = Object.entries(getTableColumns(table)).map(([key, c]) => [key, c.name, (v: unknown) => c.mapFromDriverValue(v)]);
    columnsOf.set(table, cols);
  }
  const out: Record<string, unknown> = {};
  for (const [key, name, map] of cols) {
    const v = json[name];
    out[key] = v === null || v === undefined ? null : map(v);
  }
  return out;
}
