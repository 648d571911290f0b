import { describe, expect, it } from 'vitest';
import { parseHhmm, rowsToWindows, windowRowProblem, windowsToRows } from './login-windows';

describe('login windows form ⇄ API', () => {
  it('round-trips windows, sorting and de-duplicating the weekdays', () => {
    const api = [
      { days: [5, 1, 3], start: '08:00', end: '18:30' },
      { days: [6, 7], start: '00:00', end: '24:00' },
    ];
    const rows = windowsToRows(api);
    expect(rows[0]!.days).toEqual([1, 3, 5]);
    expect(rows[0]!.start!.format('HH:mm')).toBe('08:00');
    // '24:00' (end of day) shows as 23:59 and goes back as '24:00'
    expect(rows[1]!.end!.format('HH:mm')).toBe('23:59');
    expect(rowsToWindows(rows)).toEqual([
      { days: [1, 3, 5], start: '08:00', end: '18:30' },
      { days: [6, 7], start: '00:00', end: '24:00' },
    ]);
    expect(rowsToWindows([{ days: [2, 2, 1], start: parseHhmm('09:05'), end: parseHhmm('10:00') }])).toEqual([
      { days: [1, 2], start: '09:05', end: '10:00' },
    ]);
  });

  it('needs weekdays, both times, and an end after the start', () => {
    expect(windowRowProblem({ days: [], start: parseHhmm('08:00'), end: parseHhmm('09:00') })).toBe('validation.windowDays');
    expect(windowRowProblem({ days: [1], start: null, end: parseHhmm('09:00') })).toBe('validation.windowTimes');
    expect(windowRowProblem({ days: [1], start: parseHhmm('09:00'), end: parseHhmm('09:00') })).toBe('validation.windowOrder');
    expect(windowRowProblem({ days: [1], start: parseHhmm('10:00'), end: parseHhmm('09:00') })).toBe('validation.windowOrder');
    expect(windowRowProblem({ days: [1], start: parseHhmm('08:00'), end: parseHhmm('09:00') })).toBeNull();
  });
});
