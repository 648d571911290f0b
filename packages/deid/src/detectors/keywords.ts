import { escapeRegExp, foldOcrZero, foldWidth } from '../normalize.js';
import { span } from '../spans.js';
import type { DeidSpan, DetectorContext } from '../types.js';

/** Finds the project's desensitization keywords: exact text, case-insensitive for Latin letters. */
export function detectKeywords(ctx: DetectorContext, keywords: readonly string[]): DeidSpan[] {
  const list = keywords.map((k) => foldOcrZero(foldWidth(k)).trim()).filter((k) => k.length > 0);
  if (list.length === 0) return [];
  // longest first, so "协和医院" wins over "协和" at the same place
  const re = new RegExp(list.sort((a, b) => b.length - a.length).map(escapeRegExp).join('|'), 'gi');
  return [...ctx.text.matchAll(re)].map((m) => span(ctx.text, m.index, m.index + m[0].length, 'keyword', 'keyword.project'));
}
