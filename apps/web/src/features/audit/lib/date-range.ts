import type { Dayjs } from 'dayjs';
import { LIMITS } from '@esource/shared';

export type DateRangeProblem = 'startAfterEnd' | 'dateSpan';

/**
 * The range the filters send: the start day from its first millisecond, the end day to its last (the user's
 * time zone). Both ends are optional.
 */
export function rangeBounds(start: Dayjs | null | undefined, end: Dayjs | null | undefined): {
  startTime?: string;
  endTime?: string;
} {
  return {
    startTime: start ? start.startOf('day').toISOString() : undefined,
    endTime: end ? end.endOf('day').toISOString() : undefined,
  };
}

/**
 * Spec §5: a start must not be later than the end, and the range spans at most 90 days (checked on the bounds
 * sent, the way the server checks them: 90 calendar days, both ends included, pass; 91 do not).
 */
export function dateRangeProblem(
  start: Dayjs | null | undefined,
  end: Dayjs | null | undefined,
): DateRangeProblem | null {
  if (!start || !end) return null;
  const b = rangeBounds(start, end);
  const s = Date.parse(b.startTime!);
  const e = Date.parse(b.endTime!);
  if (s > e) return 'startAfterEnd';
  return e - s > LIMITS.dateSpanDays * 86_400_000 ? 'dateSpan' : null;
}
