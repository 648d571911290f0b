import dayjs from 'dayjs';
import { REASON_REQUIRED_STATUSES, SUBJECT_STATUS, SUBJECT_TRANSITIONS } from '@esource/shared';

/**
 * The subject list's pure rules: which statuses the status menu offers, when a reason field shows, the status
 * tag colours, and the first-visit date range filter (spec §5: at most 90 days, start not after end).
 */

/** Status targets the menu offers for a subject in `from` (the shared transition table; never 0, never itself). */
export function allowedTargets(from: number): number[] {
  return [...(SUBJECT_TRANSITIONS[from] ?? [])].filter((s) => s !== SUBJECT_STATUS.deleted && s !== from);
}

export function reasonRequired(to: number): boolean {
  return REASON_REQUIRED_STATUSES.includes(to);
}

/** Live statuses in the order the filter lists them (informed consent first). */
export const LIVE_STATUSES: readonly number[] = [7, 1, 2, 3, 6, 5, 4, 8];

export const STATUS_COLOR: Record<number, string> = {
  0: 'default',
  1: 'processing',
  2: 'error',
  3: 'success',
  4: 'warning',
  5: 'cyan',
  6: 'purple',
  7: 'blue',
  8: 'default',
};

export const MAX_RANGE_DAYS = 90;

/** 'order' when start is after end, 'span' when longer than 90 days, null when fine (or incomplete). */
export function rangeProblem(start: string | undefined, end: string | undefined): 'order' | 'span' | null {
  if (!start || !end) return null;
  const s = dayjs(start);
  const e = dayjs(end);
  if (s.isAfter(e)) return 'order';
  if (e.diff(s, 'day') > MAX_RANGE_DAYS) return 'span';
  return null;
}

/** Identifier columns in the spec's order (§3 subject identifier types). */
export const IDENTIFIER_FIELDS = ['medicalRecordId', 'inpatientId', 'outpatientId', 'idCard'] as const;
export type IdentifierField = (typeof IDENTIFIER_FIELDS)[number];

/** Reads a positive integer query parameter. */
export function intParam(v: string | null, fallback: number): number {
  const n = Number(v);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}
