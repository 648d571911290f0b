/**
 * The search keys of a dictionary term (issue 13 item 5), computed once at import: the normalised code, zh term, en
 * term (and each of its later words onwards, so that "hypertension" finds "Essential (primary) hypertension"),
 * synonyms, and the pinyin initials and full pinyin of the zh term and of each zh synonym ("gxy", "gaoxueya" →
 * 高血压). A search normalises its text the same way, so every match is a prefix of one key.
 */
import { pinyin } from 'pinyin-pro';

/** Key kinds (dictionary_keys.kind). */
export const KEY = { code: 1, zh: 2, en: 3, synonym: 4, initials: 5, pinyin: 6, enWord: 7 } as const;
export type KeyKind = (typeof KEY)[keyof typeof KEY];

/** Longest key kept (a btree entry must stay well under PostgreSQL's ~2.7 kB limit; terms are ≤ 300 characters). */
const KEY_MAX = 300;
/** later words of an en term that start a key of their own */
const EN_WORDS_MAX = 6;
/** words no one searches by */
const STOP_WORDS = new Set([
  'and',
  'the',
  'for',
  'with',
  'without',
  'due',
  'not',
  'other',
  'from',
  'into',
  'per',
  'than',
  'via',
]);

/** Text as keys and searches compare it: NFKC (full-width → ASCII, Ⅱ → II), lower case, single spaces, trimmed. */
export function normKey(s: string): string {
  return s.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
}

const HAN = /\p{Script=Han}/u;
const WORD_CHAR = /[\p{L}\p{N}]/u;

/**
 * Pinyin initials and full pinyin of a text with Chinese characters (null without any): each Han character gives its
 * syllable in context (pinyin-pro picks 重症 zhòng, 重复 chóng), other letters and digits are kept, lower case, and
 * the rest (spaces, punctuation) is left out: "2型糖尿病" → { initials: "2xtnb", full: "2xingtangniaobing" }.
 */
export function pinyinKeys(text: string): { initials: string; full: string } | null {
  if (!HAN.test(text)) return null;
  const chars = Array.from(text.normalize('NFKC'));
  const syllables = pinyin(chars.join(''), { toneType: 'none', type: 'array', v: true });
  // pinyin-pro answers one entry per character; should that ever not hold, fall back to character by character
  const per =
    syllables.length === chars.length
      ? syllables
      : chars.map((c) => (HAN.test(c) ? pinyin(c, { toneType: 'none', v: true }) : c));
  let initials = '';
  let full = '';
  chars.forEach((c, i) => {
    if (HAN.test(c)) {
      const s = (per[i] ?? '').toLowerCase().replace(/[^a-z]/g, '');
      if (!s) return;
      initials += s.charAt(0);
      full += s;
    } else if (WORD_CHAR.test(c)) {
      const l = c.toLowerCase();
      initials += l;
      full += l;
    }
  });
  return initials ? { initials: initials.slice(0, KEY_MAX), full: full.slice(0, KEY_MAX) } : null;
}

export interface TermInput {
  code: string;
  termZh: string | null;
  termEn: string | null;
  synonyms: string[];
}

export interface TermKey {
  kind: KeyKind;
  /** the synonym (0-based) the key comes from */
  syn: number | null;
  key: string;
}

/** Every key of a term, without repeats of the same kind and key. */
export function termKeys(t: TermInput): TermKey[] {
  const out: TermKey[] = [];
  const seen = new Set<string>();
  const add = (kind: KeyKind, syn: number | null, raw: string) => {
    const key = raw.slice(0, KEY_MAX);
    if (!key || seen.has(`${kind}:${key}`)) return;
    seen.add(`${kind}:${key}`);
    out.push({ kind, syn, key });
  };
  const addPinyin = (text: string, syn: number | null) => {
    const p = pinyinKeys(text);
    if (!p) return;
    add(KEY.initials, syn, p.initials);
    add(KEY.pinyin, syn, p.full);
  };
  add(KEY.code, null, normKey(t.code));
  if (t.termZh) {
    add(KEY.zh, null, normKey(t.termZh));
    addPinyin(t.termZh, null);
  }
  if (t.termEn) {
    const en = normKey(t.termEn);
    add(KEY.en, null, en);
    // each later word onwards (a word starts at a letter or digit after any other character):
    // "essential (primary) hypertension" → "primary) hypertension", "hypertension"
    // — only words that someone would search by: not "of", "with", "2"
    let words = 0;
    for (const m of en.matchAll(/(?<=[^\p{L}\p{N}])[\p{L}\p{N}]+/gu)) {
      if (m[0].length < 3 || STOP_WORDS.has(m[0]) || /^\p{N}+$/u.test(m[0])) continue;
      add(KEY.enWord, null, en.slice(m.index));
      if (++words >= EN_WORDS_MAX) break;
    }
  }
  t.synonyms.forEach((s, i) => {
    add(KEY.synonym, i, normKey(s));
    addPinyin(s, i);
  });
  return out;
}

/** The contains-match haystack of a term: normalised code, terms and synonyms, one per line. */
export function haystackOf(t: TermInput): string {
  return [t.code, t.termZh, t.termEn, ...t.synonyms]
    .filter((x): x is string => Boolean(x))
    .map(normKey)
    .join('\n');
}
