import { escapeRegExp, foldOcrZero, foldWidth, isHan } from '../normalize.js';
import { span } from '../spans.js';
import type { DeidSpan, DetectorContext, SubjectIdentifiers } from '../types.js';

// what OCR and typists put between the characters of a number or a name
const GAP = '[\\s\\-‐–—.·_/]*';

// characters OCR reads one for the other in printed numbers and codes (0/O, 1/I/l, 5/S, 8/B)
const CONFUSABLE: readonly string[] = ['0Oo', '1Il|', '5Ss', '8B'];

/** A character of a known value, or any character OCR confuses it with (capitals only for initials). */
function charClass(c: string, capitalsOnly: boolean): string {
  const group = CONFUSABLE.find((g) => g.includes(c));
  if (!group) return escapeRegExp(c);
  const alts = Array.from(group).filter((x) => !capitalsOnly || !/[a-z|]/.test(x));
  return `[${alts.map((x) => (x === '|' ? '\\|' : x)).join('')}]`;
}

/**
 * A pattern for a known value that tolerates separators between its characters, full-width forms and, in a number
 * or code, OCR's usual confusions of digits and letters.
 */
function tolerant(value: string): RegExp | undefined {
  const chars = Array.from(foldOcrZero(foldWidth(value))).filter((c) => /[\p{L}\p{N}]/u.test(c));
  if (chars.length < 2) return undefined;
  // a Latin/digit value must not be part of a longer code; a Han name may sit between other Han characters
  const edge = isHan(chars[0]) ? '' : '(?<![A-Za-z0-9])';
  const tail = isHan(chars.at(-1)) ? '' : '(?![A-Za-z0-9])';
  // initials in capitals (MG, ZWL) are matched in capitals only: in lower case they are units and words (mg, ml)
  const initials = chars.length <= 4 && chars.every((c) => /[A-Z]/.test(c));
  // numbers and codes only: a name's letters are not turned into digits ('Bo' must not find the 80 of a heart rate)
  const code = chars.some((c) => /\d/.test(c));
  const body = chars.map((c) => (code ? charClass(c, initials) : escapeRegExp(c))).join(GAP);
  return new RegExp(`${edge}${body}${tail}`, initials ? 'gu' : 'giu');
}

function find(ctx: DetectorContext, value: string | undefined, reason: string): DeidSpan[] {
  const re = value ? tolerant(value) : undefined;
  if (!re) return [];
  return [...ctx.text.matchAll(re)].map((m) => span(ctx.text, m.index, m.index + m[0].length, 'subjectIdentifier', reason));
}

// A Latin name is also found word by word (Smith, John); a Chinese name also without its surname when two or more characters remain.
function nameParts(name: string): string[] {
  const folded = foldWidth(name).trim();
  if (Array.from(folded).some(isHan)) return Array.from(folded).length >= 4 ? [folded.slice(-2)] : [];
  return folded.split(/[\s,]+/).filter((w) => w.length >= 2);
}

/** Finds the subject's own known identifiers wherever they appear, also with spaces or dashes inside. */
export function detectSubjectIdentifiers(ctx: DetectorContext, subject: SubjectIdentifiers | undefined): DeidSpan[] {
  if (!subject) return [];
  const phone = subject.phone?.replace(/^(?:\+|00)86/, '');
  return [
    ...find(ctx, subject.name, 'subject.name'),
    ...(subject.name ? nameParts(subject.name).flatMap((p) => find(ctx, p, 'subject.name')) : []),
    ...find(ctx, subject.medicalRecordNo, 'subject.medicalRecordNo'),
    ...find(ctx, subject.inpatientNo, 'subject.inpatientNo'),
    ...find(ctx, subject.outpatientNo, 'subject.outpatientNo'),
    ...find(ctx, subject.idCard, 'subject.idCard'),
    ...find(ctx, phone, 'subject.phone'),
  ];
}
