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

export class PreparingClient extends pg.Client {
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
