/**
 * Visit occurrences across subjects (issue 5 §4, calendar and task list): every planned and unscheduled visit of
 * the caller's live subjects whose window overlaps a date range, with the same window and state rules as one
 * subject's schedule (`visitWindow` / `visitState`).
 */
import { z } from 'zod';
import { calendarDay, dateSchema, idSchema } from './common.schema';

/** The widest range one request may ask for (a year, leap day included). */
export const VISIT_RANGE_MAX_DAYS = 366;
/** At most this many occurrences are returned; `truncated` says when more matched. */
export const VISIT_OCCURRENCES_MAX = 5_000;

export const VISIT_STATES = ['upcoming', 'inWindow', 'overdue', 'done'] as const;

const DAY_MS = 86_400_000;
/** Days since 1970-01-01 of a YYYY-MM-DD that is a real calendar day (2026-02-30 is not), else null. */
const dayNo = (s: string): number | null => {
  const t = calendarDay(s);
  return t === null ? null : t / DAY_MS;
};
const clinicalDate = dateSchema;

export const visitOccurrencesRequest = z
  .object({
    /** first day of the range (clinical date, inclusive) */
    from: clinicalDate,
    /** last day of the range (inclusive) */
    to: clinicalDate,
    siteId: idSchema.optional(),
    ptsId: idSchema.optional(),
    /** only occurrences in these states (today's state); all when absent */
    states: z.array(z.enum(VISIT_STATES)).max(VISIT_STATES.length).optional(),
  })
  .superRefine((v, ctx) => {
    const a = dayNo(v.from);
    const b = dayNo(v.to);
    if (a === null || b === null) return;
    if (a > b) ctx.addIssue({ code: 'custom', path: ['from'], message: 'validation.startAfterEnd' });
    else if (b - a > VISIT_RANGE_MAX_DAYS) ctx.addIssue({ code: 'custom', path: ['to'], message: 'validation.dateSpanYear' });
  });

export const visitOccurrence = z.object({
  ptsId: z.number().int(),
  ptsNo: z.string(),
  siteId: z.number().int(),
  siteName: z.string(),
  visitId: z.number().int(),
  /** 0 for a planned visit, else the unscheduled occurrence */
  unscheduledId: z.number().int(),
  code: z.string(),
  name: z.string(),
  /** the English name (an unscheduled visit: with its label), null when the visit has none */
  nameEn: z.string().nullable(),
  /** planned date (an unscheduled visit: its date) */
  planned: z.string(),
  start: z.string(),
  end: z.string(),
  state: z.enum(VISIT_STATES),
  /** forms of this occurrence completed or certified (every repeat of a cycle form) / forms of the visit */
  formsDone: z.number().int(),
  formsTotal: z.number().int(),
});

export const visitOccurrencesResult = z.object({
  items: z.array(visitOccurrence),
  /** more occurrences matched than `limit`; the range or the site should be narrowed */
  truncated: z.boolean(),
  limit: z.number().int(),
});

export type VisitOccurrencesRequest = z.input<typeof visitOccurrencesRequest>;
export type VisitOccurrenceRow = z.infer<typeof visitOccurrence>;
export type VisitOccurrencesResult = z.infer<typeof visitOccurrencesResult>;
