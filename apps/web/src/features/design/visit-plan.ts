import type { VisitRow } from '@esource/shared';

/** A scheduled visit's window in days from the first visit (day 0): [day − before, day + after]. */
export interface VisitWindow {
  id: number;
  code: string;
  name: string;
  nameEn: string | null;
  day: number;
  start: number;
  end: number;
}

/** The windows of the scheduled visits (unscheduled visits have no day), ordered by day, then by visit order. */
export function visitWindows(visits: readonly VisitRow[]): VisitWindow[] {
  return visits
    .filter((v) => !v.unscheduled)
    .slice()
    .sort((a, b) => a.dayOffset - b.dayOffset || a.sortOrder - b.sortOrder || a.id - b.id)
    .map((v) => ({
      id: v.id,
      code: v.code,
      name: v.name,
      nameEn: v.nameEn,
      day: v.dayOffset,
      start: v.dayOffset - v.windowBefore,
      end: v.dayOffset + v.windowAfter,
    }));
}

/** The day range the timeline shows: every window plus day 0, with a little room on both sides. */
export function timelineRange(ws: readonly VisitWindow[]): { min: number; max: number } {
  if (ws.length === 0) return { min: 0, max: 1 };
  let min = Math.min(0, ...ws.map((w) => w.start));
  let max = Math.max(0, ...ws.map((w) => w.end));
  if (max === min) max = min + 1;
  const pad = Math.max(1, Math.round((max - min) * 0.04));
  min -= pad;
  max += pad;
  return { min, max };
}

/** Position of a day on the timeline, in percent of its width. */
export function dayPercent(day: number, range: { min: number; max: number }): number {
  return ((day - range.min) / (range.max - range.min)) * 100;
}

/** Axis labels: the given days, each once, leaving out any that would sit closer than `minGap` percent to the previous. */
export function axisTicks(
  days: readonly number[],
  range: { min: number; max: number },
  minGap = 7,
): number[] {
  const out: number[] = [];
  for (const d of [...new Set(days)].sort((a, b) => a - b)) {
    const last = out[out.length - 1];
    if (last === undefined || dayPercent(d, range) - dayPercent(last, range) >= minGap) out.push(d);
  }
  return out;
}

/** Pairs of scheduled visits whose windows overlap (a visit date could then count for either). */
export function overlappingWindows(ws: readonly VisitWindow[]): [VisitWindow, VisitWindow][] {
  const out: [VisitWindow, VisitWindow][] = [];
  for (let i = 0; i < ws.length; i++)
    for (let j = i + 1; j < ws.length; j++) {
      const a = ws[i]!;
      const b = ws[j]!;
      if (a.start <= b.end && b.start <= a.end) out.push([a, b]);
    }
  return out;
}

/** "Day 14 (−3 / +3)" parts for a visit; null for an unscheduled one. */
export function windowText(v: Pick<VisitRow, 'unscheduled' | 'dayOffset' | 'windowBefore' | 'windowAfter'>): {
  day: number;
  before: number;
  after: number;
} | null {
  if (v.unscheduled) return null;
  return { day: v.dayOffset, before: v.windowBefore, after: v.windowAfter };
}

export interface VisitFormValues {
  code: string;
  name: string;
  /** the English name (optional) */
  nameEn?: string;
  stageId?: number | null;
  sortOrder: number;
  dayOffset: number;
  windowBefore: number;
  windowAfter: number;
  unscheduled: boolean;
  formIds: number[];
}

export function visitFormValues(v: VisitRow | undefined, nextOrder: number): VisitFormValues {
  if (!v)
    return {
      code: '',
      name: '',
      nameEn: '',
      stageId: undefined,
      sortOrder: nextOrder,
      dayOffset: 0,
      windowBefore: 0,
      windowAfter: 0,
      unscheduled: false,
      formIds: [],
    };
  return {
    code: v.code,
    name: v.name,
    nameEn: v.nameEn ?? '',
    stageId: v.stageId ?? undefined,
    sortOrder: v.sortOrder,
    dayOffset: v.dayOffset,
    windowBefore: v.windowBefore,
    windowAfter: v.windowAfter,
    unscheduled: v.unscheduled,
    formIds: v.formIds,
  };
}

export interface VisitBody {
  versionId?: number;
  id?: number;
  stageId?: number;
  code: string;
  name: string;
  /** empty: the visit has no English name (an edit clears it) */
  nameEn: string;
  sortOrder: number;
  dayOffset: number;
  windowBefore: number;
  windowAfter: number;
  unscheduled: boolean;
  formIds: number[];
}

/**
 * Dialog values → POST /pro/visit/add (versionId) or /pro/visit/update (id) body. An unscheduled visit has no
 * day and no window, so they are sent as 0; empty numbers become 0; forms are sent once each.
 */
export function visitBody(v: VisitFormValues, target: { versionId: number } | { id: number }): VisitBody {
  const n = (x: number | null | undefined) =>
    typeof x === 'number' && Number.isFinite(x) ? Math.trunc(x) : 0;
  const body: VisitBody = {
    ...target,
    code: v.code.trim(),
    name: v.name.trim(),
    nameEn: (v.nameEn ?? '').trim(),
    sortOrder: n(v.sortOrder),
    dayOffset: v.unscheduled ? 0 : n(v.dayOffset),
    windowBefore: v.unscheduled ? 0 : n(v.windowBefore),
    windowAfter: v.unscheduled ? 0 : n(v.windowAfter),
    unscheduled: v.unscheduled ?? false,
    formIds: [...new Set(v.formIds ?? [])],
  };
  if (v.stageId) body.stageId = v.stageId;
  return body;
}

/** The next visit order: one more than the highest, so that a new visit goes last. */
export function nextSortOrder(visits: readonly VisitRow[]): number {
  return visits.length ? Math.max(...visits.map((v) => v.sortOrder)) + 1 : 1;
}
