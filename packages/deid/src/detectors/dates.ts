import * as chrono from 'chrono-node';
import { span, uniqueSpans } from '../spans.js';
import type { DeidSpan, DetectorContext } from '../types.js';

// Chinese calendar dates: 2024年3月1日, 24年3月, 3月1日 (chrono's zh parser misplaces spans next to digits)
const ZH_DATE = /(?<!\d)(?:(?:19|20)?\d{2}\s*年\s*\d{1,2}\s*月(?:\s*\d{1,2}\s*[日号])?|\d{1,2}\s*月\s*\d{1,2}\s*[日号])/g;
const TIME_TAIL = /(?:[\sT,]+(?:at\s+)?|\s*)\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s*[ap]\.?m\.?)?(?:\s*(?:Z|[+-]\d{2}:?\d{2}))?$/i;
const TIME_HEAD = /^\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?m\.?)?[\s,]*(?:on\s+)?/i;
const LEAD = /^(?:(?:on|the|of)\s+)+/i;
// US (month first) strict, and British (day first) for 13/03/2024; both find the same spans otherwise
const PARSERS = [chrono.strict, chrono.en.GB];
// a date written as numbers or with a month name, never "today" or "3 weeks ago"
const EVIDENCE = /\d{1,4}\s*[-/.]\s*\d{1,2}|(?<![A-Za-z])(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?(?![A-Za-z])/i;

function validMonthDay(text: string): boolean {
  const month = /(\d{1,2})\s*月/.exec(text);
  const day = /月\s*(\d{1,2})\s*[日号]/.exec(text);
  return (!month || (Number(month[1]) >= 1 && Number(month[1]) <= 12)) && (!day || (Number(day[1]) >= 1 && Number(day[1]) <= 31));
}

// OCR reads the O of October as a zero ("18 0ctober 1990"); read it back as a letter (same length, same offsets)
const ZERO_OCT = /(?<![\p{L}\p{N}])0(?=ct(?:ober)?\.?(?![a-z]))/giu;

function chronoDates(ctx: DetectorContext): DeidSpan[] {
  const out: DeidSpan[] = [];
  const read = ctx.text.replace(ZERO_OCT, 'O');
  for (const parser of PARSERS) {
    for (const r of parser.parse(read)) {
      const c = r.start;
      // a calendar date: day and month, or month and year; never a bare time or a relative phrase ("3 weeks ago")
      const calendar = (c.isCertain('day') && c.isCertain('month')) || (c.isCertain('month') && c.isCertain('year'));
      if (!calendar) continue;
      let start = r.index;
      let text = r.text;
      // times of day are clinical data: keep them out of the span
      const tail = TIME_TAIL.exec(text);
      if (tail && tail.index > 0) text = text.slice(0, tail.index);
      const head = TIME_HEAD.exec(text) ?? LEAD.exec(text);
      if (head) {
        start += head[0].length;
        text = text.slice(head[0].length);
      }
      text = text.replace(/[\s,.;:]+$/, '');
      if (/\d/.test(text) && EVIDENCE.test(text)) out.push(span(ctx.text, start, start + text.length, 'date', 'date.calendar'));
    }
  }
  return out;
}

/** Finds calendar dates (numeric, Chinese 年月日, English month names), without any time of day. */
export function findDates(ctx: DetectorContext): DeidSpan[] {
  const zh = [...ctx.text.matchAll(ZH_DATE)]
    .filter((m) => validMonthDay(m[0]))
    .map((m) => span(ctx.text, m.index, m.index + m[0].length, 'date', 'date.zh'));
  return uniqueSpans([...zh, ...chronoDates(ctx)]);
}

// a birth-date label, then separators, then the date
const BIRTH_LABEL = /(?:出生日期|出生年月日|出生年月|出生|生日|DOB|D\.O\.B\.?|Date\s+of\s+Birth|Birth\s*date|Birthday|born(?:\s+on)?)\s*[:：]?\s*$/i;

/** Finds dates of birth: a date right after a birth-date label. */
export function detectBirthDates(ctx: DetectorContext, dates: readonly DeidSpan[]): DeidSpan[] {
  return dates
    .filter((d) => BIRTH_LABEL.test(ctx.text.slice(Math.max(0, d.start - 24), d.start)))
    .map((d) => ({ ...d, kind: 'birthDate' as const, reason: 'birthDate.label' }));
}
