/**
 * Calendar and task list rules: a visit's day on the calendar (its actual date once done, else the planned
 * date), grouping by day, and what the task list shows (visits in window or overdue).
 */

export interface VisitOccurrence {
  ptsId: number;
  ptsNo: string;
  siteId: number;
  visitId: number;
  unscheduledId: number;
  name: string;
  code: string;
  planned: string | null;
  start: string | null;
  end: string | null;
  state: 'upcoming' | 'inWindow' | 'overdue' | 'done';
}

/** YYYY-MM-DD → occurrences on that day, sorted by subject number then visit code. */
export function groupByDay(
  items: readonly VisitOccurrence[],
  month?: string,
): Map<string, VisitOccurrence[]> {
  const out = new Map<string, VisitOccurrence[]>();
  for (const it of items) {
    const day = it.planned ?? it.start;
    if (!day) continue;
    if (month && !day.startsWith(month)) continue;
    const list = out.get(day) ?? [];
    list.push(it);
    out.set(day, list);
  }
  for (const list of out.values())
    list.sort((a, b) => a.ptsNo.localeCompare(b.ptsNo) || a.code.localeCompare(b.code));
  return out;
}

/** Visits that need doing: in window first, then overdue, each by window end. */
export function tasks(items: readonly VisitOccurrence[]): VisitOccurrence[] {
  const rank = { inWindow: 0, overdue: 1, upcoming: 2, done: 3 } as const;
  return items
    .filter((i) => i.state === 'inWindow' || i.state === 'overdue')
    .sort(
      (a, b) =>
        rank[a.state] - rank[b.state] ||
        (a.end ?? '').localeCompare(b.end ?? '') ||
        a.ptsNo.localeCompare(b.ptsNo),
    );
}

/** Timeline position of a date in [min, max] as a percentage. */
export function position(date: string, min: string, max: string): number {
  const d = Date.parse(`${date}T00:00:00Z`);
  const a = Date.parse(`${min}T00:00:00Z`);
  const b = Date.parse(`${max}T00:00:00Z`);
  if (b <= a) return 0;
  return Math.max(0, Math.min(100, ((d - a) / (b - a)) * 100));
}
