/**
 * The tables an answer was read from (lib/read-tables.ts) and how the response cache uses them
 * (lib/response-cache.ts): a notification drops only the answers read from its table; an answer computed while a
 * notification for one of its tables arrived is not kept; an unknown notification or a call of one of our SQL
 * functions counts as everything.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readingTables, recordStatement, TABLE_NAMES, TABLE_READING_FUNCTIONS } from '../src/lib/read-tables';
import { ResponseCache } from '../src/lib/response-cache';

const MIGRATIONS = path.join(__dirname, '..', 'drizzle');

/** A cache that listens (no database): notifications are handed to it directly. */
function listeningCache() {
  const cache = new ResponseCache();
  const internals = cache as unknown as { setListening(up: boolean): void; onNotify(payload: string): void };
  internals.setListening(true);
  return { cache, notify: (table: string) => internals.onNotify(table) };
}

describe('tables read', () => {
  it('records the tables a statement names, quoted or not, in any case, and nothing outside a computation', async () => {
    recordStatement('select * from subjects');
    const { read, value } = await readingTables(async () => {
      recordStatement('select "subjects"."id", s.name from "subjects" join SITES s on s.id = subjects.site_id where x = $1');
      await new Promise((r) => setTimeout(r, 1));
      recordStatement('select count(*) from crf_instances i');
      return 7;
    });
    expect(value).toBe(7);
    expect(read.all).toBe(false);
    expect([...read.tables].sort()).toEqual(['crf_instances', 'sites', 'subjects']);
  });

  it('counts a call of one of our SQL functions, or an unseen statement, as reading everything', async () => {
    expect((await readingTables(async () => recordStatement('select verification_has_value(v.value) from crf_values v'))).read.all).toBe(true);
    expect((await readingTables(async () => recordStatement(undefined))).read.all).toBe(true);
  });

  it('lists every function of the migrations a statement can call (all but triggers)', () => {
    const text = fs.readdirSync(MIGRATIONS).filter((f) => f.endsWith('.sql')).map((f) => fs.readFileSync(path.join(MIGRATIONS, f), 'utf8')).join('\n');
    const callable = new Set<string>();
    for (const m of text.matchAll(/create\s+(?:or\s+replace\s+)?function\s+([a-z_0-9.]+)\s*\([^)]*\)\s*returns\s+([a-z]+)/gi)) {
      if (m[2]!.toLowerCase() !== 'trigger') callable.add(m[1]!.toLowerCase().replace(/^public\./, ''));
    }
    expect(callable.size).toBeGreaterThan(3);
    expect([...callable].filter((f) => !TABLE_READING_FUNCTIONS.includes(f))).toEqual([]);
    expect(TABLE_NAMES.has('subjects') && TABLE_NAMES.has('crf_values')).toBe(true);
  });
});

describe('the response cache, table by table', () => {
  const compute = (tables: string, text = 'x') => async () => {
    recordStatement(`select 1 from ${tables}`);
    return text;
  };

  it('a notification drops the answers read from its table and keeps the others', async () => {
    const { cache, notify } = listeningCache();
    await cache.through('list', compute('subjects join sites'));
    await cache.through('queries', compute('queries'));
    expect(cache.size).toBe(2);
    notify('crf_values');
    expect(cache.size).toBe(2);
    notify('sites');
    expect(cache.size).toBe(1);
    const misses = cache.stats.misses;
    await cache.through('queries', compute('queries'));
    expect(cache.stats.misses).toBe(misses);
    // a notification that names no table of ours (an older trigger's empty one) empties everything
    notify('');
    expect(cache.size).toBe(0);
  });

  it('an answer read from everything goes with any notification', async () => {
    const { cache, notify } = listeningCache();
    await cache.through('all', async () => {
      recordStatement('select refresh_subject_progress(array[1])');
      return 'x';
    });
    expect(cache.size).toBe(1);
    notify('dictionary_terms');
    expect(cache.size).toBe(0);
  });

  it('keeps no answer computed while a notification for one of its tables arrived, and keeps one when it was for another', async () => {
    const { cache, notify } = listeningCache();
    await cache.through('a', async () => {
      recordStatement('select 1 from subjects');
      notify('subjects');
      return 'stale?';
    });
    expect(cache.size).toBe(0);
    await cache.through('b', async () => {
      notify('subjects');
      recordStatement('select 1 from subjects');
      return 'read after the change, still not kept: the order inside is not known';
    });
    expect(cache.size).toBe(0);
    await cache.through('c', async () => {
      recordStatement('select 1 from queries');
      notify('subjects');
      return 'kept';
    });
    expect(cache.size).toBe(1);
    // more notifications than it remembers while computing: not kept
    await cache.through('d', async () => {
      recordStatement('select 1 from queries');
      for (let i = 0; i < 2000; i++) notify('subjects');
      return 'not kept';
    });
    expect(cache.size).toBe(1);
  });

  it('keeps nothing computed across a change of the listener’s state', async () => {
    const { cache } = listeningCache();
    const internals = cache as unknown as { setListening(up: boolean): void };
    await cache.through('a', async () => {
      recordStatement('select 1 from queries');
      internals.setListening(false);
      internals.setListening(true);
      return 'x';
    });
    expect(cache.size).toBe(0);
  });
});
