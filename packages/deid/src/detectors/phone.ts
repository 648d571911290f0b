import { findPhoneNumbersInText, type CountryCode } from 'libphonenumber-js/max';
import { span, uniqueSpans } from '../spans.js';
import type { DeidSpan, DetectorContext } from '../types.js';

// words that make a bare digit run a phone number
const CONTEXT = /(?:电话|手机|联系|座机|固话|分机|传真|tel|phone|mobile|cell|call|fax|contact|number|reach)[^\n]{0,24}$/i;
// an extension written after a Chinese landline: 0571-87654321转123, -8001, ext. 12
const EXTENSION = /^(?:\s*(?:转|分机|ext\.?|x)\s*\d{1,6}|-\d{1,5}(?![\d-]))/i;
// shapes libphonenumber does not validate (other countries' plans, short numbers) but people write as phones
const LOOSE = /(?<![\w.+-])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?)?\d{2,4}(?:[\s.-]\d{2,4}){1,4}(?:\s*(?:x|ext\.?)\s*\d{1,6})?(?![\w-]|\.\d)/gi;
const DATE_SHAPE = /^\d{4}[-./]\d{1,2}[-./]\d{1,2}$|^\d{1,2}[-./]\d{1,2}[-./]\d{2,4}$/;
const US_SHAPE = /^(?:\+?1[\s.-]?)?\(?\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}/;
// a date that opens the run (OCR glues a time to it: "2026-01-25 08:30" read as 2026-01-2508): a date, not a phone
const DATE_START = /^(?:19|20)\d{2}[-./年]\d{1,2}[-./月]/;

function digitCount(s: string): number {
  return s.replace(/\D/g, '').length;
}

function withContext(text: string, start: number): boolean {
  return CONTEXT.test(text.slice(Math.max(0, start - 40), start));
}

function libphonenumber(ctx: DetectorContext, country: CountryCode): DeidSpan[] {
  const out: DeidSpan[] = [];
  // libphonenumber reads ',' and ';' as dialling pauses and would run two numbers together
  const text = ctx.text.replace(/[,;]/g, ' ');
  for (const found of findPhoneNumbersInText(text, { defaultCountry: country })) {
    const raw = ctx.text.slice(found.startsAt, found.endsAt);
    if (DATE_START.test(raw)) continue;
    const type = found.number.getType();
    const cnMobile = found.number.country === 'CN' && type === 'MOBILE';
    // a bare run of digits from another country's plan is only a phone with a phone word before it
    if (!cnMobile && /^\d+$/.test(raw) && !withContext(ctx.text, found.startsAt)) continue;
    let end = found.endsAt;
    const ext = EXTENSION.exec(ctx.text.slice(end));
    if (ext && !cnMobile) end += ext[0].length;
    const kind = cnMobile || type === 'MOBILE' ? 'phone' : type === 'FIXED_LINE' ? 'landline' : 'phone';
    const reason = `phone.${found.number.country ?? country}.${(type ?? 'unknown').toLowerCase()}`;
    out.push(span(ctx.text, found.startsAt, end, kind, reason));
  }
  return out;
}

function loose(ctx: DetectorContext): DeidSpan[] {
  const out: DeidSpan[] = [];
  for (const m of ctx.text.matchAll(LOOSE)) {
    const raw = m[0];
    // the extension does not count towards the number's length
    const n = digitCount(raw.replace(/\s*(?:x|ext\.?)\s*\d+$/i, ''));
    if (n < 7 || n > 15 || DATE_SHAPE.test(raw) || DATE_START.test(raw)) continue;
    const shaped = raw.startsWith('+') || raw.includes('(') || /x|ext/i.test(raw) || US_SHAPE.test(raw);
    if (shaped || withContext(ctx.text, m.index)) out.push(span(ctx.text, m.index, m.index + raw.length, 'phone', 'phone.pattern'));
  }
  return out;
}

/** Finds phone numbers: Chinese mobiles and landlines, US and international numbers (libphonenumber), and phone-shaped digit groups. */
export function detectPhones(ctx: DetectorContext): DeidSpan[] {
  return uniqueSpans([...libphonenumber(ctx, 'CN'), ...libphonenumber(ctx, 'US'), ...loose(ctx)]);
}
