/**
 * The value rules of eCRF items, applied identically by the web renderer (as the user types) and by the server
 * (on save): strict calendar dates and clock times (no roll-over: 2026-02-31 is refused, not read as March 3),
 * partial dates only where the designer allows them, number ranges (hard: refused with the range; soft: accepted
 * and flagged as a data-quality warning), and date plausibility (no future dates unless the item allows them,
 * no birth date more than BIRTH_MAX_YEARS ago).
 */
import type { FieldComponent } from './design.schema';

/** A calendar day YYYY-MM-DD that exists (month 1–12, day within the month, leap years counted). */
export function isCalendarDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  return y >= 1 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo);
}

function daysInMonth(y: number, mo: number): number {
  return mo === 2 ? (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(mo) ? 30 : 31;
}

/** A clock time HH:mm or HH:mm:ss of one day (00:00–23:59:59). */
export function isClockTime(s: string): boolean {
  const m = /^(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(s);
  return Boolean(m && Number(m[1]) <= 23 && Number(m[2]) <= 59 && (m[3] === undefined || Number(m[3]) <= 59));
}

/**
 * A partial date as stored: ISO 8601 truncated, `YYYY-MM` (day unknown) or `YYYY` (day and month unknown), the
 * SDTM --DTC convention. Returns the first and last day it may stand for, or null when it is not one.
 */
export function partialDateSpan(s: string): { first: string; last: string } | null {
  let m = /^(\d{4})-(\d{2})$/.exec(s);
  if (m) {
    const y = Number(m[1]);
    const mo = Number(m[2]);
    if (y < 1 || mo < 1 || mo > 12) return null;
    return { first: `${m[1]}-${m[2]}-01`, last: `${m[1]}-${m[2]}-${String(daysInMonth(y, mo)).padStart(2, '0')}` };
  }
  m = /^(\d{4})$/.exec(s);
  if (m && Number(m[1]) >= 1) return { first: `${m[1]}-01-01`, last: `${m[1]}-12-31` };
  return null;
}

/** A datetime item's value split into its parts: `YYYY-MM-DD HH:mm`, or what the user has entered so far. */
export function splitDateTime(v: string): { date: string; time: string } {
  const m = /^(\S*)[T ](\S*)$/.exec(v.trim());
  if (m) return { date: m[1] ?? '', time: m[2] ?? '' };
  return isClockTime(v) ? { date: '', time: v } : { date: v, time: '' };
}

/** Joins a datetime item's parts; a part alone is kept as it is so that the rules can say which one is missing. */
export function joinDateTime(date: string, time: string): string {
  return date && time ? `${date} ${time}` : date || time;
}

/** What a date item stands for, where it changes the plausibility rules. */
export const DATE_MEANINGS = ['birth', 'consent', 'visit', 'other'] as const;
export type DateMeaning = (typeof DATE_MEANINGS)[number];

/**
 * Variable codes that say what a date is when the designer did not (CDASH / SDTM names and common variants):
 * birth (BRTHDTC, BRTHDAT, DOB…), informed consent (ICDTC, RFICDTC, DSSTDTC_IC, CONSENT…), visit (VISDAT, SVSTDTC…).
 */
const MEANING_BY_VARIABLE: readonly [RegExp, DateMeaning][] = [
  [/^(BRTH(DTC|DAT|DT|DATE)?|DOB|BIRTH(DAY|DATE|DT|DTC)?)$/i, 'birth'],
  [/^(RF)?IC(DTC|DAT|DT|DATE)$|^CONSENT|^IC_?DATE$|^DSSTDTC_?IC$/i, 'consent'],
  [/^(VIS(IT)?_?(DAT|DTC|DT|DATE)|SVSTDTC|SVDTC)$/i, 'visit'],
];

/** The item's date meaning: the designer's choice, else what its variable code says, else 'other'. */
export function dateMeaning(f: Pick<FieldComponent, 'variable' | 'dateMeaning'>): DateMeaning {
  if (f.dateMeaning) return f.dateMeaning;
  for (const [re, m] of MEANING_BY_VARIABLE) if (re.test(f.variable)) return m;
  return 'other';
}

/** A birth date further back than this many years is not plausible. */
export const BIRTH_MAX_YEARS = 130;

/**
 * "Now" for the future-date rule, as clinical (wall-clock) date and time. The browser gives the user's own; the
 * server, which does not know the user's time zone, gives the latest wall clock on earth (UTC+14) so that it
 * never refuses what a browser anywhere accepted.
 */
export interface ValueClock {
  today: string;
  /** YYYY-MM-DD HH:mm */
  now: string;
}

/** The latest wall clock anywhere (UTC+14) at the instant `at`. */
export function latestClock(at: Date = new Date()): ValueClock {
  const iso = new Date(at.getTime() + 14 * 3_600_000).toISOString();
  return { today: iso.slice(0, 10), now: `${iso.slice(0, 10)} ${iso.slice(11, 16)}` };
}

export type ValueIssueCode =
  | 'number'
  | 'precision'
  | 'range'
  | 'min'
  | 'max'
  | 'date'
  | 'partialDate'
  | 'datetime'
  | 'timeMissing'
  | 'dateMissing'
  | 'future'
  | 'birthTooOld'
  | 'option'
  | 'list'
  | 'text';

export interface ValueIssue {
  code: ValueIssueCode;
  /** for the message: min, max, unit, today */
  params?: Record<string, string | number>;
  /**
   * true for a value outside a soft range: accepted and saved, with a data-quality warning (to raise a query),
   * never refused
   */
  soft?: boolean;
}

const isBlank = (v: unknown) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);

/** The number an item holds, or NaN (numbers, or the text of a number as forms send it). */
export function numberOf(v: unknown): number {
  return typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
}

function rangeIssue(f: FieldComponent, n: number): ValueIssue | null {
  const low = f.min !== undefined && n < f.min;
  const high = f.max !== undefined && n > f.max;
  if (!low && !high) return null;
  const params: Record<string, string | number> = { unit: f.unit ?? '' };
  if (f.min !== undefined) params.min = f.min;
  if (f.max !== undefined) params.max = f.max;
  const code = f.min !== undefined && f.max !== undefined ? 'range' : low ? 'min' : 'max';
  return f.softRange ? { code, params, soft: true } : { code, params };
}

/** Plausibility of a (possibly partial) date given as its first and last possible day. */
function dateIssue(f: FieldComponent, first: string, last: string, clock: ValueClock | undefined): ValueIssue | null {
  if (!clock) return null;
  if (!f.allowFuture && first > clock.today) return { code: 'future', params: { today: clock.today } };
  if (dateMeaning(f) === 'birth') {
    const y = Number(clock.today.slice(0, 4)) - BIRTH_MAX_YEARS;
    const limit = `${String(y).padStart(4, '0')}${clock.today.slice(4)}`;
    if (last < limit) return { code: 'birthTooOld', params: { years: BIRTH_MAX_YEARS } };
  }
  return null;
}

/**
 * Checks one item's value against its component; null/'' means unanswered and is always acceptable here
 * (required items are checked separately). `clock` enables the future-date rule; without it dates are checked for
 * shape and calendar only.
 */
export function valueIssue(f: FieldComponent, v: unknown, clock?: ValueClock): ValueIssue | null {
  if (isBlank(v)) return null;
  switch (f.type) {
    case 'number': {
      const n = numberOf(v);
      if (!Number.isFinite(n)) return { code: 'number' };
      const decimals = (typeof v === 'number' ? String(v) : (v as string)).split('.')[1]?.length ?? 0;
      if (f.precision !== undefined && decimals > f.precision) return { code: 'precision', params: { precision: f.precision } };
      return rangeIssue(f, n);
    }
    case 'date': {
      if (typeof v !== 'string') return { code: 'date' };
      if (isCalendarDate(v)) return dateIssue(f, v, v, clock);
      const span = partialDateSpan(v);
      if (span) return f.partialDate ? dateIssue(f, span.first, span.last, clock) : { code: 'partialDate' };
      return { code: 'date' };
    }
    case 'datetime': {
      if (typeof v !== 'string') return { code: 'datetime' };
      const { date, time } = splitDateTime(v);
      if (!date && isClockTime(time)) return { code: 'dateMissing' };
      if (!time && isCalendarDate(date)) return { code: 'timeMissing' };
      if (!isCalendarDate(date) || !isClockTime(time)) return { code: 'datetime' };
      const hhmm = time.slice(0, 5);
      if (!f.allowFuture && clock && `${date} ${hhmm}` > clock.now) return { code: 'future', params: { today: clock.now } };
      return dateIssue({ ...f, allowFuture: true }, date, date, clock);
    }
    case 'radio':
    case 'select':
      return typeof v === 'string' && (f.options ?? []).some((o) => o.value === v) ? null : { code: 'option' };
    case 'checkbox':
      return Array.isArray(v) && v.every((x) => typeof x === 'string' && (f.options ?? []).some((o) => o.value === x)) ? null : { code: 'list' };
    case 'text':
    case 'textarea':
    case 'file':
      return typeof v === 'string' && v.length <= (f.type === 'textarea' ? 5000 : 500) ? null : { code: 'text' };
  }
}

/** The range of a number item as text for messages and hints: "40–300 mmHg", "≥ 0", "≤ 10 kg". */
export function rangeText(p: Record<string, string | number> | undefined): string {
  if (!p) return '';
  const unit = p.unit ? ` ${p.unit}` : '';
  if (p.min !== undefined && p.max !== undefined) return `${p.min}–${p.max}${unit}`;
  if (p.min !== undefined) return `≥ ${p.min}${unit}`;
  if (p.max !== undefined) return `≤ ${p.max}${unit}`;
  return '';
}
