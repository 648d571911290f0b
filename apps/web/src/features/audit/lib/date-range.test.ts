import { describe, expect, it } from 'vitest';
import dayjs from 'dayjs';
import { dateRangeProblem, rangeBounds } from './date-range';

describe('audit date range (spec §5: ≤ 90 days, start not after end)', () => {
  it('accepts open ranges and ranges up to 90 calendar days', () => {
    expect(dateRangeProblem(null, null)).toBeNull();
    expect(dateRangeProblem(dayjs('2026-01-01'), null)).toBeNull();
    expect(dateRangeProblem(dayjs('2026-01-01'), dayjs('2026-01-01'))).toBeNull();
    expect(dateRangeProblem(dayjs('2026-01-01'), dayjs('2026-03-31'))).toBeNull(); // 90 days
  });
  it('refuses a start after the end and more than 90 days', () => {
    expect(dateRangeProblem(dayjs('2026-02-02'), dayjs('2026-02-01'))).toBe('startAfterEnd');
    expect(dateRangeProblem(dayjs('2026-01-01'), dayjs('2026-04-01'))).toBe('dateSpan'); // 91 days
  });
  it('sends the whole start and end days', () => {
    const b = rangeBounds(dayjs('2026-01-01T15:00'), dayjs('2026-01-02T03:00'));
    expect(dayjs(b.startTime).format('YYYY-MM-DD HH:mm:ss.SSS')).toBe('2026-01-01 00:00:00.000');
    expect(dayjs(b.endTime).format('YYYY-MM-DD HH:mm:ss.SSS')).toBe('2026-01-02 23:59:59.999');
    expect(rangeBounds(undefined, null)).toEqual({ startTime: undefined, endTime: undefined });
  });
});
