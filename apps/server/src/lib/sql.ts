import { sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';

/** A LIKE pattern that matches the text anywhere, with %, _ and \ in it taken literally. */
export function likeOf(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * `(col, …) select * from unnest($1::type[], …)`: the rows of a multi-row insert passed as one array parameter per
 * column, so that a batch of any size is one short statement with a fixed text (prepared once) and the query
 * builder does not walk thousands of parameters. Use after `insert into <table> `.
 */
export function unnestRows(columns: readonly (readonly [PgColumn, string])[], rows: readonly (readonly unknown[])[]): SQL {
  const names = sql.join(
    columns.map(([c]) => sql.identifier(c.name)),
    sql`, `,
  );
  const arrays = sql.join(
    columns.map(([, type], i) => sql`${sql.param(rows.map((r) => r[i] ?? null))}::${sql.raw(type)}[]`),
    sql`, `,
  );
  return sql`(${names}) select * from unnest(${arrays})`;
}

/** The rows of a raw `execute(sql…)` result: both drivers answer `{ rows }` (the Drizzle type says unknown). */
export function rowsOf<T = Record<string, unknown>>(r: unknown): T[] {
  return (r as { rows: T[] }).rows;
}
