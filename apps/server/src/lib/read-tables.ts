/**
 * Which tables an answer was read from (issues 16 and 13; docs/decisions.md "Response cache"): while a cached route
 * computes its answer, every statement it sends is recorded here (db/client.ts hands each statement's text to
 * `recordStatement`), and the tables the texts name become the answer's dependencies. A change to any other table
 * then leaves the answer cached: an eCRF save no longer empties the subject list.
 *
 * Over-approximate by construction, never under: any identifier of a statement that is the name of one of our tables
 * counts (a column or alias that happens to share a table's name only costs an early drop), and a statement that calls
 * one of our SQL functions (any but a trigger's, which no statement can call), or whose text could not be seen, depends
 * on everything. A function added by a later migration must be listed in TABLE_READING_FUNCTIONS
 * (test/read-tables.test.ts reads the migrations and fails otherwise).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { getTableName, is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import * as schema from '../db/schema';

/** Our SQL functions (migrations) but the triggers' own: a statement calling one depends on every table. */
export const TABLE_READING_FUNCTIONS: readonly string[] = [
  'audit_chain_head',
  'crf_value_differs',
  'refresh_subject_consistency',
  'refresh_subject_progress',
  'verification_has_value',
  'verification_progress_refresh',
];
/** The names of the schema's tables. */
export const TABLE_NAMES: ReadonlySet<string> = new Set(
  (Object.values(schema) as unknown[]).flatMap((v) => (is(v, PgTable) ? [getTableName(v)] : [])),
);
const READING_FUNCTIONS: ReadonlySet<string> = new Set(TABLE_READING_FUNCTIONS);

/** What one computation read: the tables, or everything. */
export class TablesRead {
  all = false;
  readonly tables = new Set<string>();
}

const current = new AsyncLocalStorage<TablesRead>();
const IDENTIFIER = /[A-Za-z_][A-Za-z0-9_$]*/g;

/** Runs `fn`, recording the tables every statement it sends names. */
export async function readingTables<T>(fn: () => Promise<T>): Promise<{ value: T; read: TablesRead }> {
  const read = new TablesRead();
  const value = await current.run(read, fn);
  return { value, read };
}

/** Called with each statement's text (db/client.ts); records into the computation it belongs to, if any. */
export function recordStatement(text: string | undefined): void {
  const read = current.getStore();
  if (!read || read.all) return;
  if (typeof text !== 'string') {
    read.all = true;
    return;
  }
  for (const m of text.matchAll(IDENTIFIER)) {
    const id = m[0].toLowerCase();
    if (TABLE_NAMES.has(id)) read.tables.add(id);
    else if (READING_FUNCTIONS.has(id)) {
      read.all = true;
      return;
    }
  }
}
