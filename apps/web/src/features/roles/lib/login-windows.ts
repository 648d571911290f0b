import dayjs, { type Dayjs } from 'dayjs';
import type { LoginWindowDto } from '../api/roles-api';

/** One row of the login-window editor: weekdays (1 Monday … 7 Sunday) and a start / end time of day. */
export interface LoginWindowRow {
  days: number[];
  start: Dayjs | null;
  end: Dayjs | null;
}

export const WEEKDAYS = [1, 2, 3, 4, 5, 6, 7] as const;

const HHMM = 'HH:mm';

/** '08:30' → a Dayjs today at 08:30. The API's '24:00' (end of day) shows as 23:59, the last a picker offers. */
export function parseHhmm(v: string): Dayjs {
  const [h, m] = (v === '24:00' ? '23:59' : v).split(':').map(Number);
  return dayjs().hour(h ?? 0).minute(m ?? 0).second(0).millisecond(0);
}

export function windowsToRows(ws: readonly LoginWindowDto[]): LoginWindowRow[] {
  return ws.map((w) => ({ days: [...w.days].sort((a, b) => a - b), start: parseHhmm(w.start), end: parseHhmm(w.end) }));
}

/** Form rows → the API's windows; an end of 23:59 means the end of the day and is sent as '24:00'. */
export function rowsToWindows(rows: readonly LoginWindowRow[]): LoginWindowDto[] {
  return rows.map((r) => {
    const end = r.end ? r.end.format(HHMM) : '';
    return {
      days: [...new Set(r.days)].sort((a, b) => a - b),
      start: r.start ? r.start.format(HHMM) : '',
      end: end === '23:59' ? '24:00' : end,
    };
  });
}

/** The problem with a row (i18n key of namespace `roles`), or null: days chosen, both times, end after start. */
export function windowRowProblem(r: LoginWindowRow | undefined): string | null {
  if (!r || r.days.length === 0) return 'validation.windowDays';
  if (!r.start || !r.end) return 'validation.windowTimes';
  return r.end.format(HHMM) > r.start.format(HHMM) ? null : 'validation.windowOrder';
}
