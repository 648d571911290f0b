import { z } from 'zod';
import { ENVS } from './enums';
import { LIMITS } from './constants';

/** Success envelope (spec §8, DESIGN §3.5). */
export function okEnvelope<T extends z.ZodType>(data: T) {
  return z.object({ code: z.literal(200), status: z.literal('1'), data });
}

export const errorEnvelope = z.object({
  code: z.number().int(),
  status: z.literal('0'),
  message: z.string(),
  errorCode: z.string(),
  requestId: z.string(),
  detail: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelope>;

export const envSchema = z.enum(ENVS);

/** The largest PostgreSQL integer (int4): ids, versions and every other integer column. */
export const INT4_MAX = 2_147_483_647;
const INT4_MIN = -INT4_MAX - 1;

/** Plain decimal integer text, as a form or query sends numbers: no sign '+', exponent, hex, spaces or fraction. */
const INTEGER_TEXT = /^-?(0|[1-9]\d{0,15})$/;
const intFromText = (v: unknown): unknown => (typeof v === 'string' && INTEGER_TEXT.test(v) ? Number(v) : v);
/** a missing value keeps zod's 'required' (parseInput); a value of the wrong type gets `key` */
const keyUnlessMissing = (key: string) => (iss: { code?: string; input?: unknown }) =>
  iss.code === 'invalid_type' && iss.input !== undefined ? key : undefined;

/**
 * An integer from `min` to `max` (both inclusive, clamped to int4) as a JSON number or decimal text (forms and
 * queries). Nothing else is read as a number: not booleans (`true` once meant record 1), '1e3', '0x10', '1.0',
 * ' 1' (the pipeline trims strings before this), '' or null.
 */
export function intSchema(min = INT4_MIN, max = INT4_MAX) {
  return z.preprocess(
    intFromText,
    z.number({ error: keyUnlessMissing('validation.integer') }).int({ error: 'validation.integer' }).min(Math.max(min, INT4_MIN)).max(Math.min(max, INT4_MAX)),
  );
}

/** The one id primitive: a positive PostgreSQL integer (1..2147483647), as intSchema reads it. */
export const idSchema = z.preprocess(
  intFromText,
  z
    .number({ error: keyUnlessMissing('validation.id') })
    .int({ error: 'validation.id' })
    .min(1, { error: 'validation.id' })
    .max(INT4_MAX, { error: 'validation.id' }),
);

/** Years a request's date may name: clinical and audit dates all fall inside; '0000-01-01' or '9999-…' are typos. */
export const DATE_MIN_YEAR = 1900;
export const DATE_MAX_YEAR = 2100;

const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})$/;
/** The UTC time of a yyyy-mm-dd that names a real calendar day in DATE_MIN_YEAR..DATE_MAX_YEAR, else null. */
export function calendarDay(s: string): number | null {
  const m = DATE_TEXT.exec(s);
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < DATE_MIN_YEAR || y > DATE_MAX_YEAR) return null;
  const t = Date.UTC(y, mo - 1, d);
  const back = new Date(t);
  return back.getUTCFullYear() === y && back.getUTCMonth() === mo - 1 && back.getUTCDate() === d ? t : null;
}

/** A clinical date (yyyy-mm-dd) that round-trips as a real calendar day in 1900–2100; '2026-02-31' is refused. */
export const dateSchema = z.string({ error: keyUnlessMissing('validation.calendarDate') }).refine((s) => calendarDay(s) !== null, { error: 'validation.calendarDate' });

const DATETIME_TEXT = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
/** A yyyy-mm-dd[THH:mm[:ss[.fff]][Z|±hh:mm]] whose date is a calendar day (calendarDay) and time a real time; else null. */
export function parseDateTime(s: string): Date | null {
  const m = DATETIME_TEXT.exec(s);
  if (!m || calendarDay(m[1]!) === null) return null;
  if (m[2] !== undefined && (Number(m[2]) > 23 || Number(m[3]) > 59 || Number(m[4] ?? 0) > 59)) return null;
  const zone = m[5];
  if (zone && zone !== 'Z' && (Number(zone.slice(1, 3)) > 14 || Number(zone.slice(-2)) > 59)) return null;
  // a date alone is midnight UTC (as before); a time without a zone is the server's local time (as Date reads it)
  const iso = m[2] === undefined ? `${m[1]}T00:00:00Z` : s.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const t = Date.parse(iso);
  return Number.isNaN(t) ? null : new Date(t);
}

/** A point in time given as parseDateTime reads it (1900–2100), as a Date (a Date, from an earlier parse, passes again). */
export const dateTimeSchema = z.preprocess(
  (v) => (v instanceof Date && !Number.isNaN(v.getTime()) ? v.toISOString() : v),
  z.string({ error: keyUnlessMissing('validation.dateTime') }).transform((s, ctx) => {
    const d = parseDateTime(s);
    if (d) return d;
    ctx.addIssue({ code: 'custom', message: 'validation.dateTime', input: s });
    return z.NEVER;
  }),
);

/**
 * A list of ids as sent by a form (`idList=1&idList=2`, `idList=1,2`) or JSON (`[1,2]`).
 * A single value becomes a one-element list.
 */
export const idListSchema = z.preprocess((v: unknown): unknown => {
  if (v === undefined || v === null || v === '') return [];
  if (Array.isArray(v)) return v as unknown[];
  if (typeof v === 'string') return v.split(',').filter((s) => s.trim() !== '');
  return [v];
}, z.array(idSchema).max(10_000));

/** Request for a page of a table (spec §3, §9: pages 50/100/200, first page 1). */
export const pageRequest = z.object({
  pageNumber: intSchema(LIMITS.firstPage).default(LIMITS.firstPage),
  pageSize: intSchema()
    .refine((n) => (LIMITS.pageSizes as readonly number[]).includes(n), { message: 'validation.pageSize' })
    .default(LIMITS.defaultPageSize),
});

/** Table page result (spec §3). */
export function pageResult<T extends z.ZodType>(row: T) {
  return z.object({
    pageNumber: z.number().int(),
    pageSize: z.number().int(),
    totalCount: z.number().int(),
    content: z.array(row),
  });
}

/** The request headers every call carries (spec §7). */
export const REQUEST_HEADERS = ['token', 'proId', 'proSiteId', 'proType', 'language', 'product', 'source', 'orgId'] as const;
