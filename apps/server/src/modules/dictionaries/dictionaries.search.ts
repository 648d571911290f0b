/**
 * Dictionary search (issue 13 item 5), for the coding fields and for other modules (findBestTerm, searchTerms).
 *
 * Every match is a prefix range of one key kind in the (dictionary_id, kind, key text_pattern_ops) index: the first
 * `limit × 2` keys of each kind from the text onwards in byte order (`order by key using ~<~`, the index's own order,
 * so nothing is sorted), in one statement: the cost does not grow with the dictionary (a one-letter search of 100,000
 * terms reads at most a few hundred index entries). Results are ranked exact code, exact term or synonym, code
 * prefix, term prefix, later word of the en term, synonym prefix, pinyin; only when that finds fewer than
 * CONTAINS_BELOW terms and none exactly does a contains match scan the version's terms for more.
 */
import { sql } from 'drizzle-orm';
import type { DictionaryKind, DictionaryMatch, DictionarySearchHit } from '@esource/shared';
import type { DbOrTx } from '../../db/client';
import { likeOf, rowsOf } from '../../lib/sql';
import { KEY, normKey, type KeyKind } from './dictionary-keys';

export interface SearchOptions {
  kind: DictionaryKind;
  text: string;
  /** at most this many terms (1–50; default 20) */
  limit?: number;
  /** a version of that kind; absent = the kind's active version */
  dictionaryId?: number;
}

interface VersionRef {
  id: number;
  version: string;
}

interface Candidate {
  id: number;
  code: string;
  termZh: string | null;
  termEn: string | null;
  synonyms: string[];
  kind: KeyKind | 0;
  syn: number | null;
  key: string;
}

/** A contains match (no key). */
const CONTAINS = 0;
/**
 * Fewer prefix matches than this (and none exact) bring in the contains match. It scans the version's terms: about
 * 40 ms for 100,000 on the embedded database when little matches, so a search that the prefixes answer never pays it.
 */
const CONTAINS_BELOW = 5;

/** The version searched: the one named (if it is of that kind) or the kind's active one; null when there is none. */
export async function versionFor(
  db: DbOrTx,
  kind: DictionaryKind,
  dictionaryId?: number,
): Promise<VersionRef | null> {
  const r = rowsOf<{ id: number; version: string }>(
    await db.execute(
      dictionaryId === undefined
        ? sql`select id, version from dictionaries where kind = ${kind} and active limit 1`
        : sql`select id, version from dictionaries where kind = ${kind} and id = ${dictionaryId}`,
    ),
  );
  return r[0] ? { id: r[0].id, version: r[0].version } : null;
}

/** The smallest text greater than every text starting with `prefix`, in byte (= code point) order. */
export function prefixEnd(prefix: string): string {
  const cps = Array.from(prefix);
  const last = cps.pop()!.codePointAt(0)!;
  // skip the surrogate range, which no text holds
  const next = last + 1 === 0xd800 ? 0xe000 : last + 1;
  return cps.join('') + String.fromCodePoint(Math.min(next, 0x10ffff));
}

/** Rank of a candidate: lower is better. */
function rankOf(c: Candidate, q: string): number {
  const exact = c.key === q;
  switch (c.kind) {
    case KEY.code:
      return exact ? 0 : 2;
    case KEY.zh:
    case KEY.en:
      return exact ? 1 : 3;
    case KEY.synonym:
      return exact ? 1 : 5;
    case KEY.enWord:
      return 4;
    case KEY.initials:
    case KEY.pinyin:
      return exact ? 6 : 7;
    case CONTAINS:
      return 8;
  }
}

function matchOf(kind: Candidate['kind']): DictionaryMatch {
  switch (kind) {
    case KEY.code:
      return 'code';
    case KEY.zh:
    case KEY.en:
    case KEY.enWord:
      return 'term';
    case KEY.synonym:
      return 'synonym';
    case KEY.initials:
    case KEY.pinyin:
      return 'pinyin';
    case CONTAINS:
      return 'contains';
  }
}

const toCandidate = (r: Record<string, unknown>): Candidate => ({
  id: Number(r.id),
  code: String(r.code),
  termZh: (r.term_zh as string | null) ?? null,
  termEn: (r.term_en as string | null) ?? null,
  synonyms: (r.synonyms as string[] | null) ?? [],
  kind: Number(r.kind) as KeyKind | 0,
  syn: r.syn === null || r.syn === undefined ? null : Number(r.syn),
  key: (r.key as string | null) ?? '',
});

/** Pinyin keys hold letters and digits only: other texts skip those two probes. */
const PINYIN_QUERY = /^[a-z0-9]+$/;

/**
 * Searches a kind's active version (or the version named) by code, zh or en term, synonym, pinyin initials or full
 * pinyin, best first; a contains match fills up when the prefixes find too few (CONTAINS_BELOW) and nothing exactly.
 * Each term once, with the synonym that matched (by itself or by its pinyin).
 */
export async function searchTerms(db: DbOrTx, o: SearchOptions): Promise<DictionarySearchHit[]> {
  const q = normKey(o.text);
  const limit = Math.max(1, Math.min(o.limit ?? 20, 50));
  if (!q) return [];
  const v = await versionFor(db, o.kind, o.dictionaryId);
  if (!v) return [];
  const hi = prefixEnd(q);
  const per = limit * 2;
  const kinds: KeyKind[] = [KEY.code, KEY.zh, KEY.en, KEY.enWord, KEY.synonym];
  if (PINYIN_QUERY.test(q)) kinds.push(KEY.initials, KEY.pinyin);
  const probes = kinds.map(
    (k) =>
      sql`(select term_id, kind, syn, key from dictionary_keys where dictionary_id = ${v.id} and kind = ${k} and key ~>=~ ${q} and key ~<~ ${hi} order by key using ~<~ limit ${per})`,
  );
  const rows = rowsOf(
    await db.execute(sql`with m as (${sql.join(probes, sql` union all `)})
      select t.id, t.code, t.term_zh, t.term_en, t.synonyms, m.kind, m.syn, m.key from m join dictionary_terms t on t.id = m.term_id`),
  ).map(toCandidate);

  const best = new Map<number, { c: Candidate; rank: number }>();
  const keep = (c: Candidate) => {
    const rank = rankOf(c, q);
    const had = best.get(c.id);
    if (!had || rank < had.rank || (rank === had.rank && c.key.length < had.c.key.length))
      best.set(c.id, { c, rank });
  };
  rows.forEach(keep);

  // the contains match (a scan of the version's terms) only when the prefixes found too few and nothing exactly
  const exact = [...best.values()].some((b) => b.rank <= 1);
  if (!exact && best.size < Math.min(CONTAINS_BELOW, limit)) {
    const found = [...best.keys()];
    const more = rowsOf(
      await db.execute(sql`select id, code, term_zh, term_en, synonyms, 0 as kind, null as syn, search as key from dictionary_terms
        where dictionary_id = ${v.id} and search like ${likeOf(q)}
          ${found.length ? sql`and id <> all(${sql.param(found)}::int[])` : sql``}
        limit ${limit - best.size}`),
    ).map(toCandidate);
    for (const c of more) {
      // which synonym holds the text, when neither the code nor a term does
      const own = [c.code, c.termZh, c.termEn].some((x) => x && normKey(x).includes(q));
      const syn = own ? -1 : c.synonyms.findIndex((s) => normKey(s).includes(q));
      // the contains rank sorts by the length of what matched, shortest first
      keep({
        ...c,
        syn: syn >= 0 ? syn : null,
        key: syn >= 0 ? c.synonyms[syn]! : (c.termZh ?? c.termEn ?? c.code),
      });
    }
  }

  return [...best.values()]
    .sort((a, b) => a.rank - b.rank || a.c.key.length - b.c.key.length || a.c.code.localeCompare(b.c.code))
    .slice(0, limit)
    .map(({ c }) => ({
      id: c.id,
      code: c.code,
      termZh: c.termZh,
      termEn: c.termEn,
      match: matchOf(c.kind),
      synonym:
        c.syn !== null &&
        (c.kind === KEY.synonym || c.kind === KEY.initials || c.kind === KEY.pinyin || c.kind === CONTAINS)
          ? (c.synonyms[c.syn] ?? null)
          : null,
      dictionaryId: v.id,
      version: v.version,
    }));
}

export interface BestTerm {
  code: string;
  termZh: string | null;
  termEn: string | null;
  dictionaryId: number;
  version: string;
}

/**
 * The term of a kind's active version whose code, zh term, en term or a synonym equals the text (letter case, width
 * and spacing ignored), the code first, then the zh term, the en term, a synonym; null when none does. For modules
 * that code what they read (a source record's medication name, an adverse event's term).
 */
export async function findBestTerm(db: DbOrTx, kind: DictionaryKind, text: string): Promise<BestTerm | null> {
  const q = normKey(text);
  if (!q) return null;
  const v = await versionFor(db, kind);
  if (!v) return null;
  const [r] = rowsOf<{ code: string; term_zh: string | null; term_en: string | null }>(
    await db.execute(sql`select t.code, t.term_zh, t.term_en from dictionary_keys k join dictionary_terms t on t.id = k.term_id
      where k.dictionary_id = ${v.id} and k.kind in (${KEY.code}, ${KEY.zh}, ${KEY.en}, ${KEY.synonym}) and k.key = ${q}
      order by k.kind, t.row_no limit 1`),
  );
  return r
    ? { code: r.code, termZh: r.term_zh, termEn: r.term_en, dictionaryId: v.id, version: v.version }
    : null;
}
