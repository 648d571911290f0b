import { describe, expect, it } from 'vitest';
import { insideLoginWindows } from './auth.service';

describe('permission group login windows', () => {
  const weekdays = [{ days: [1, 2, 3, 4, 5], start: '08:00', end: '20:00' }];
  it('no windows means no restriction', () => expect(insideLoginWindows([], 'UTC')).toBe(true));
  it('is evaluated in the group time zone', () => {
    // Monday 2026-11-23 01:30 UTC is 09:30 in Shanghai
    const t = new Date('2026-11-23T01:30:00Z');
    expect(insideLoginWindows(weekdays, 'Asia/Shanghai', t)).toBe(true);
    expect(insideLoginWindows(weekdays, 'UTC', t)).toBe(false);
  });
  it('end is exclusive and weekends are out', () => {
    expect(insideLoginWindows(weekdays, 'UTC', new Date('2026-11-23T20:00:00Z'))).toBe(false);
    expect(insideLoginWindows(weekdays, 'UTC', new Date('2026-11-23T19:59:00Z'))).toBe(true);
    expect(insideLoginWindows(weekdays, 'UTC', new Date('2026-11-22T10:00:00Z'))).toBe(false);
  });
});
