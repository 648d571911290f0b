/**
 * The signal report (issue 13 item 6, /project/signalReport): judged adverse events (safety candidates of category
 * 'ae' judged yes, their fields as the reviewer judged them) counted by term, grade, seriousness and site over time,
 * in the caller's scope. Counted in SQL (GROUP BY), never row by row. POST /report/signal (clinical:signal:query):
 * totals, the series per period, the top terms and the sites; POST /report/signal/terms: the paged, sorted table of
 * terms; GET /report/signal/export (clinical:signal:export): the same as an Excel workbook.
 */
import { z } from 'zod';
import { dateSchema, idSchema, intSchema, pageRequest, pageResult } from './common.schema';

/** The time buckets of the series, by the AE's onset. */
export const SIGNAL_PERIODS = ['month', 'quarter', 'year'] as const;
export type SignalPeriod = (typeof SIGNAL_PERIODS)[number];
/** How terms are grouped: by the dictionary term they were coded to (uncoded ones by their reported term), or as reported. */
export const SIGNAL_TERM_GROUPS = ['coded', 'reported'] as const;
export type SignalTermGroup = (typeof SIGNAL_TERM_GROUPS)[number];
/** CTCAE grades 1–5, the order of every `grades` array. */
export const SIGNAL_GRADES = [1, 2, 3, 4, 5] as const;
/** Terms in the report's top list (the chart). */
export const SIGNAL_TOP_TERMS = 20;
/** The grade from which an AE counts as severe (the KPI "grade ≥ 3"). */
export const SIGNAL_SEVERE_GRADE = 3;
/** Empty periods between the first and the last are filled in (zeros) only up to this many periods. */
export const SIGNAL_MAX_FILLED_PERIODS = 600;
export const SIGNAL_TERM_SORT = ['events', 'subjects', 'serious', 'severe', 'maxGrade', 'term', 'firstOnset', 'lastOnset'] as const;

const blank = (v: unknown) => (v === '' || v === null ? undefined : v);
/** A yes/no filter as JSON or as a query string sends it ('true', 'false', '1', '0'); absent is no. */
const flag = z.preprocess((v) => (v === 'true' || v === '1' ? true : v === 'false' || v === '0' || v === '' || v === null ? false : v), z.boolean().default(false));

const filterShape = {
  siteId: z.preprocess(blank, idSchema.optional()),
  /** AEs whose onset may fall on or after this day (an onset known to the month or year only counts when it overlaps) */
  onsetFrom: z.preprocess(blank, dateSchema.optional()),
  /** … and on or before this day */
  onsetTo: z.preprocess(blank, dateSchema.optional()),
  period: z.preprocess(blank, z.enum(SIGNAL_PERIODS).default('month')),
  /** this grade or worse */
  minGrade: z.preprocess(blank, intSchema(1, 5).optional()),
  seriousOnly: flag,
  /** relatedness other than 'NOT RELATED' */
  relatedOnly: flag,
  termBy: z.preprocess(blank, z.enum(SIGNAL_TERM_GROUPS).default('coded')),
};
const dateOrder = (v: { onsetFrom?: string | undefined; onsetTo?: string | undefined }) => !v.onsetFrom || !v.onsetTo || v.onsetFrom <= v.onsetTo;
const dateOrderError = { message: 'validation.startAfterEnd', path: ['onsetFrom'] };

/** The filters of the report, its table and its export (POST /report/signal; GET /report/signal/export). */
export const signalRequest = z.object(filterShape).refine(dateOrder, dateOrderError);
export type SignalFilters = z.input<typeof signalRequest>;

/** POST /report/signal/terms: a page of the terms table, sorted. */
export const signalTermsRequest = pageRequest
  .extend(filterShape)
  .extend({
    sortField: z.preprocess(blank, z.enum(SIGNAL_TERM_SORT).default('events')),
    sortOrder: z.preprocess(blank, z.enum(['asc', 'desc']).default('desc')),
  })
  .refine(dateOrder, dateOrderError);

const n = z.number().int();
/** Events of grade 1, 2, 3, 4 and 5 (SIGNAL_GRADES order). */
const gradeCounts = z.array(n).length(5);

export const signalPeriodRow = z.object({
  /** 'YYYY-MM', 'YYYY-Qn' or 'YYYY'; an onset known to the year only stays 'YYYY' in the month and quarter series */
  period: z.string(),
  /** how precise the bucket is: 'year' in a month series means "month unknown" */
  precision: z.enum(SIGNAL_PERIODS),
  events: n,
  subjects: n,
  serious: n,
  grades: gradeCounts,
});
export type SignalPeriodRow = z.infer<typeof signalPeriodRow>;

export const signalTermRow = z.object({
  /** the group's key: 'c:<code>' (coded) or 'r:<reported term, folded>' */
  key: z.string(),
  /** the coded term (English when the dictionary has one and the caller reads English), or the reported term */
  term: z.string(),
  /** the dictionary code; null for reported terms and for AEs not coded */
  code: z.string().nullable(),
  events: n,
  subjects: n,
  serious: n,
  /** grade 3 or worse */
  severe: n,
  maxGrade: n,
  grades: gradeCounts,
  firstOnset: z.string().nullable(),
  lastOnset: z.string().nullable(),
});
export type SignalTermRow = z.infer<typeof signalTermRow>;

export const signalSiteRow = z.object({
  siteId: n,
  siteName: z.string(),
  events: n,
  subjects: n,
  serious: n,
  severe: n,
  grades: gradeCounts,
});
export type SignalSiteRow = z.infer<typeof signalSiteRow>;

export const signalReport = z.object({
  totals: z.object({
    events: n,
    /** subjects with at least one AE */
    subjects: n,
    serious: n,
    /** grade 3 or worse */
    severe: n,
    sites: n,
    /** distinct terms (of the chosen grouping) */
    terms: n,
    /** judged AEs in the caller's scope without the filters: 0 means nothing judged yet (not "filtered out") */
    judged: n,
  }),
  /** oldest first, empty periods between filled in with zeros (up to SIGNAL_MAX_FILLED_PERIODS) */
  periods: z.array(signalPeriodRow),
  /** the SIGNAL_TOP_TERMS terms with most events */
  topTerms: z.array(signalTermRow),
  /** most events first */
  sites: z.array(signalSiteRow),
});
export type SignalReport = z.infer<typeof signalReport>;

export const signalTermPage = pageResult(signalTermRow);
export type SignalTermPage = z.infer<typeof signalTermPage>;
