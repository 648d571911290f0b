/** Pure helpers of the subject Excel import/export (no React). */

export interface ImportProblem {
  /** the Excel row number (header = 1); null for a problem of the whole file */
  row: number | null;
  /** a column key of the import sheet (or 'file') */
  column: string;
  message: string;
}

/**
 * The server names each bad cell `row N: column`; problems of the file as a whole carry `file`. Sorted by row,
 * keeping the server's column order within a row.
 */
export function parseImportProblems(detail: readonly { field: string; message: string }[]): ImportProblem[] {
  return detail
    .map((d) => {
      const m = /^row (\d+):\s*(.+)$/.exec(d.field);
      return m
        ? { row: Number(m[1]), column: m[2]!, message: d.message }
        : { row: null, column: d.field, message: d.message };
    })
    .map((p, i) => ({ p, i }))
    .sort((a, b) => (a.p.row ?? 0) - (b.p.row ?? 0) || a.i - b.i)
    .map(({ p }) => p);
}

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
