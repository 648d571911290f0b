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

/** Finds resident ID numbers: 18-character ones by check digit, 15-digit ones only after an ID label. */
export function detectIdCards(ctx: DetectorContext): DeidSpan[] {
  const out: DeidSpan[] = [];
  for (const m of ctx.text.matchAll(CANDIDATE)) {
    const digits = m[0].replace(/[ -]/g, '').length;
    const start = m.index;
    if (digits === 18 && isValidIdCard18(m[0])) {
      out.push(span(ctx.text, start, start + m[0].length, 'idCard', 'idCard.checksum'));
    } else if (digits === 15 && isValidIdCard15(m[0]) && LABEL.test(ctx.text.slice(Math.max(0, start - 24), start))) {
      out.push(span(ctx.text, start, start + m[0].length, 'idCard', 'idCard.legacy15+label'));
    }
  }
  return out;
}
