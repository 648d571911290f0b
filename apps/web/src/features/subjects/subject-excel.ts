/** Pure helpers of the subject Excel import/export (no React). */

/** What the 'current visit' column shows: the visit's name, 'all done' when none is left of a plan, else a dash. */
export function currentVisitLabel(
  r: { currentVisitName?: string | null; formsTotal?: number },
  allDone: string,
): string {
  if (r.currentVisitName) return r.currentVisitName;
  return (r.formsTotal ?? 0) > 0 ? allDone : '—';
}

/** Whole percent of forms done (0 when nothing is expected). */
export function formPercent(done: number | undefined, total: number | undefined): number {
  if (!total || total <= 0) return 0;
  return Math.min(100, Math.round(((done ?? 0) / total) * 100));
}
