/**
 * The dictionary term a generated candidate's code or name matches exactly (code, zh / en term or synonym, case-
 * insensitively, on the kind's active version), for many candidates in one query per dictionary: the coding's first
 * suggestion, which the reviewer may keep or change.
 */
import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { rowsOf } from '../../lib/sql';
import { KEY, normKey } from '../dictionaries/dictionary-keys';
import { versionFor } from '../dictionaries/dictionaries.search';

type Kind = 'diagnosis' | 'drug' | 'surgery';

/** texts → the first matching term (by the key kind's rank: code, zh, en, synonym) */
export async function bestTerms(db: DbOrTx, kind: Kind, texts: readonly string[]): Promise<Map<string, { code: string; term: string }>> {
  const out = new Map<string, { code: string; term: string }>();
  const keys = [...new Set(texts.map(normKey).filter(Boolean))];
  if (!keys.length) return out;
  const v = await versionFor(db, kind);
  if (!v) return out;
  const rows = rowsOf<{ key: string; code: string; term_zh: string | null; term_en: string | null }>(
    await db.execute(sql`select distinct on (k.key) k.key, t.code, t.term_zh, t.term_en
      from dictionary_keys k join dictionary_terms t on t.id = k.term_id
      where k.dictionary_id = ${v.id} and k.kind in (${KEY.code}, ${KEY.zh}, ${KEY.en}, ${KEY.synonym}) and k.key = any(${sql.param(keys)}::text[])
      order by k.key, k.kind, t.row_no`),
  );
  const byKey = new Map(rows.map((r) => [r.key, { code: r.code, term: r.term_zh ?? r.term_en ?? r.code }]));
  for (const t of texts) {
    const hit = byKey.get(normKey(t));
    if (hit) out.set(t, hit);
  }
  return out;
}
