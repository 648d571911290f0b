import { span } from '../spans.js';
import type { DeidSpan, DetectorContext } from '../types.js';

// GB 11643-1999 / GB/T 2260: the first two digits are a province-level code.
const PROVINCES = new Set([
  11, 12, 13, 14, 15, 21, 22, 23, 31, 32, 33, 34, 35, 36, 37, 41, 42, 43, 44, 45, 46, 50, 51, 52, 53, 54, 61, 62,
  63, 64, 65, 71, 81, 82, 83, 91,
]);
const WEIGHTS = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
const CHECK = '10X98765432';

// 18 (or 15) characters; OCR and typists put spaces or dashes between groups. Not inside a longer code.
const CANDIDATE = /(?<![0-9A-Za-z])\d(?:[ -]{0,2}\d){16}[ -]{0,2}[\dXx](?![0-9A-Za-z])|(?<![0-9A-Za-z])\d(?:[ -]{0,2}\d){14}(?![0-9A-Za-z])/g;
// the old 15-digit form has no check digit, so it is only taken after a label
const LABEL = /(?:身份证|证件|公民身份|身份号|ID\s*card|ID\s*No|identity)[^\n\d]{0,12}$/i;
// U.S. Social Security numbers: 3-2-4 digits (area not 000, 666 or 9xx; group not 00; serial not 0000) anywhere; nine
// digits in a row only after their label
const SSN_DASHED = /(?<![0-9A-Za-z-])(?!000|666|9\d\d)\d{3}[- ](?!00)\d{2}[- ](?!0000)\d{4}(?![0-9A-Za-z-])/g;
const SSN_LABELLED = /(?:SSN|Social\s+Security(?:\s+(?:No\.?|Number|#))?)\s*[:：#]?\s*(?<value>\d{3}[- ]?\d{2}[- ]?\d{4})(?![0-9A-Za-z])/gi;

function validDate(y: number, m: number, d: number): boolean {
  const date = new Date(Date.UTC(y, m - 1, d));
  return y >= 1900 && date.getUTCMonth() === m - 1 && date.getUTCDate() === d && date.getTime() <= Date.now();
}

/** ISO 7064 MOD 11-2 check character of the first 17 digits. */
export function idCardCheckChar(first17: string): string {
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(first17[i]) * WEIGHTS[i]!;
  return CHECK[sum % 11]!;
}

/** True for a valid 18-character resident ID number (province, birth date, check character). */
export function isValidIdCard18(id: string): boolean {
  const v = id.replace(/[ -]/g, '').toUpperCase();
  if (!/^\d{17}[\dX]$/.test(v) || !PROVINCES.has(Number(v.slice(0, 2)))) return false;
  if (!validDate(Number(v.slice(6, 10)), Number(v.slice(10, 12)), Number(v.slice(12, 14)))) return false;
  return idCardCheckChar(v) === v[17];
}

/** True for a plausible 15-digit (pre-1999) ID number: province and a 19yy birth date. */
export function isValidIdCard15(id: string): boolean {
  const v = id.replace(/[ -]/g, '');
  if (!/^\d{15}$/.test(v) || !PROVINCES.has(Number(v.slice(0, 2)))) return false;
  return validDate(1900 + Number(v.slice(6, 8)), Number(v.slice(8, 10)), Number(v.slice(10, 12)));
}

/**
 * An 18-character number with a province code and a real birth date whose check character is wrong: one misread
 * digit (OCR, a typist) breaks the check, and the number still identifies the person.
 */
function idCardShape(id: string): boolean {
  const v = id.replace(/[ -]/g, '').toUpperCase();
  if (!/^\d{17}[\dX]$/.test(v) || !PROVINCES.has(Number(v.slice(0, 2)))) return false;
  return validDate(Number(v.slice(6, 10)), Number(v.slice(10, 12)), Number(v.slice(12, 14)));
}

/**
 * Finds national identity numbers: Chinese resident ID numbers (18 characters by check digit, or by province and
 * birth date when one digit is misread; after an ID label any 15 or 18 of them; 15-digit ones only after a label)
 * and U.S. Social Security numbers.
 */
export function detectIdCards(ctx: DetectorContext): DeidSpan[] {
  const out: DeidSpan[] = [];
  for (const m of ctx.text.matchAll(CANDIDATE)) {
    const digits = m[0].replace(/[ -]/g, '').length;
    const start = m.index;
    const labelled = LABEL.test(ctx.text.slice(Math.max(0, start - 24), start));
    const reason =
      digits === 18
        ? isValidIdCard18(m[0])
          ? 'idCard.checksum'
          : idCardShape(m[0])
            ? 'idCard.shape'
            : labelled
              ? 'idCard.label'
              : undefined
        : labelled
          ? isValidIdCard15(m[0])
            ? 'idCard.legacy15+label'
            : 'idCard.label'
          : undefined;
    if (reason) out.push(span(ctx.text, start, start + m[0].length, 'idCard', reason));
  }
  for (const m of ctx.text.matchAll(SSN_DASHED)) out.push(span(ctx.text, m.index, m.index + m[0].length, 'idCard', 'ssn.US'));
  for (const m of ctx.text.matchAll(SSN_LABELLED)) {
    const value = m.groups!.value!;
    const start = m.index + m[0].length - value.length;
    out.push(span(ctx.text, start, start + value.length, 'idCard', 'ssn.US+label'));
  }
  return out;
}
