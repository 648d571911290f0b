import { describe, expect, it } from 'vitest';
import type { FieldComponent } from './design.schema';
import { dateMeaning, isCalendarDate, isClockTime, joinDateTime, latestClock, partialDateSpan, splitDateTime, valueIssue } from './ecrf-values';
import { settleConditions, valueProblem } from './ecrf.schema';

const clock = { today: '2026-03-10', now: '2026-03-10 09:30' };
const field = (p: Partial<FieldComponent>): FieldComponent => ({ id: 'x', type: 'date', label: 'x', variable: 'X', ...p });

describe('calendar dates and times', () => {
  it('refuses days that do not exist instead of rolling them over', () => {
    expect(isCalendarDate('2026-02-28')).toBe(true);
    expect(isCalendarDate('2026-02-29')).toBe(false);
    expect(isCalendarDate('2024-02-29')).toBe(true);
    expect(isCalendarDate('1900-02-29')).toBe(false);
    expect(isCalendarDate('2000-02-29')).toBe(true);
    expect(isCalendarDate('2026-02-31')).toBe(false);
    expect(isCalendarDate('2026-04-31')).toBe(false);
    expect(isCalendarDate('2026-13-01')).toBe(false);
    expect(isCalendarDate('2026-00-10')).toBe(false);
    expect(isCalendarDate('2026-1-1')).toBe(false);
    expect(valueProblem(field({}), '2026-02-31')).toBe('date');
  });
  it('times of one day only', () => {
    expect(isClockTime('23:59')).toBe(true);
    expect(isClockTime('24:00')).toBe(false);
    expect(isClockTime('12:60')).toBe(false);
    expect(isClockTime('12:30:59')).toBe(true);
    const dt = field({ type: 'datetime' });
    expect(valueIssue(dt, '2026-02-31 10:00')?.code).toBe('datetime');
    expect(valueIssue(dt, '2026-02-28 25:00')?.code).toBe('datetime');
    expect(valueIssue(dt, '2026-02-28 10:00')).toBeNull();
    expect(valueIssue(dt, '2026-02-28T10:00')).toBeNull();
  });
  it('a datetime without its time (or date) says which part is missing', () => {
    const dt = field({ type: 'datetime' });
    expect(valueIssue(dt, '2026-02-28')?.code).toBe('timeMissing');
    expect(valueIssue(dt, '10:00')?.code).toBe('dateMissing');
    expect(splitDateTime('2026-02-28 10:00')).toEqual({ date: '2026-02-28', time: '10:00' });
    expect(splitDateTime('10:00')).toEqual({ date: '', time: '10:00' });
    expect(joinDateTime('2026-02-28', '')).toBe('2026-02-28');
    expect(joinDateTime('2026-02-28', '10:00')).toBe('2026-02-28 10:00');
  });
  it('partial dates only where the designer allows them', () => {
    expect(partialDateSpan('2024-02')).toEqual({ first: '2024-02-01', last: '2024-02-29' });
    expect(partialDateSpan('2025')).toEqual({ first: '2025-01-01', last: '2025-12-31' });
    expect(partialDateSpan('2025-13')).toBeNull();
    expect(valueIssue(field({}), '2025-05')?.code).toBe('partialDate');
    expect(valueIssue(field({ partialDate: true }), '2025-05', clock)).toBeNull();
    expect(valueIssue(field({ partialDate: true }), '2025-13')?.code).toBe('date');
    expect(valueIssue(field({ partialDate: true }), '2025-02-30')?.code).toBe('date');
    // a partial date is in the future only when its first possible day is
    expect(valueIssue(field({ partialDate: true }), '2026-03', clock)).toBeNull();
    expect(valueIssue(field({ partialDate: true }), '2026-04', clock)?.code).toBe('future');
  });
});

describe('plausibility', () => {
  it('no future dates unless the item allows them; birth dates not implausibly old', () => {
    expect(valueIssue(field({}), '2026-03-10', clock)).toBeNull();
    expect(valueIssue(field({}), '2026-03-11', clock)).toEqual({ code: 'future', params: { today: '2026-03-10' } });
    expect(valueIssue(field({ allowFuture: true }), '2030-01-01', clock)).toBeNull();
    expect(valueIssue(field({ variable: 'BRTHDTC' }), '2030-01-01', clock)?.code).toBe('future');
    expect(valueIssue(field({ variable: 'BRTHDTC' }), '1890-01-01', clock)?.code).toBe('birthTooOld');
    expect(valueIssue(field({ variable: 'BRTHDTC' }), '1950-01-01', clock)).toBeNull();
    expect(valueIssue(field({ type: 'datetime' }), '2026-03-10 09:31', clock)?.code).toBe('future');
    expect(valueIssue(field({ type: 'datetime' }), '2026-03-10 09:30', clock)).toBeNull();
    // without a clock only shape and calendar are checked
    expect(valueIssue(field({}), '2030-01-01')).toBeNull();
  });
  it('knows a date item by its variable code unless the designer said', () => {
    expect(dateMeaning({ variable: 'BRTHDTC' })).toBe('birth');
    expect(dateMeaning({ variable: 'DOB' })).toBe('birth');
    expect(dateMeaning({ variable: 'RFICDTC' })).toBe('consent');
    expect(dateMeaning({ variable: 'CONSENT_DATE' })).toBe('consent');
    expect(dateMeaning({ variable: 'VISDAT' })).toBe('visit');
    expect(dateMeaning({ variable: 'AESTDTC' })).toBe('other');
    expect(dateMeaning({ variable: 'BRTHDTC', dateMeaning: 'other' })).toBe('other');
  });
  it('the server clock is the latest wall clock on earth', () => {
    expect(latestClock(new Date('2026-03-10T12:00:00Z'))).toEqual({ today: '2026-03-11', now: '2026-03-11 02:00' });
  });
});

describe('number ranges', () => {
  const n = (p: Partial<FieldComponent>) => field({ type: 'number', variable: 'SYSBP', unit: 'mmHg', min: 40, max: 300, ...p });
  it('a hard range refuses with the range; a soft one accepts with a flag', () => {
    expect(valueIssue(n({}), 400)).toEqual({ code: 'range', params: { min: 40, max: 300, unit: 'mmHg' } });
    expect(valueProblem(n({}), 400)).toBe('range');
    expect(valueIssue(n({ softRange: true }), 400)).toEqual({ code: 'range', params: { min: 40, max: 300, unit: 'mmHg' }, soft: true });
    expect(valueProblem(n({ softRange: true }), 400)).toBeNull();
    expect(valueIssue(n({ max: undefined }), 10)?.code).toBe('min');
    expect(valueIssue(n({ min: undefined }), 301)?.code).toBe('max');
    expect(valueIssue(n({}), 300)).toBeNull();
  });
});

describe('display conditions settle', () => {
  it('a chain hides all the way and a table condition hides its cells', () => {
    const components = [
      { id: 'a', type: 'radio', label: 'A', variable: 'A', options: [{ value: 'Y', label: 'Y' }] },
      { id: 'b', type: 'text', label: 'B', variable: 'B', displayCondition: 'A == "Y"' },
      { id: 'c', type: 'text', label: 'C', variable: 'C', displayCondition: 'not empty(B)' },
      {
        id: 't', type: 'table', label: 'T', rows: 1, cols: 1, displayCondition: 'A == "Y"',
        cells: [{ row: 0, col: 0, rowSpan: 1, colSpan: 1, component: { id: 'd', type: 'text', label: 'D', variable: 'D' } }],
      },
    ] as const;
    const r = settleConditions(components as never, { A: 'N', B: 'b', C: 'c', D: 'd' });
    expect([...r.shown]).toEqual(['A']);
    expect(r.values).toEqual({ A: 'N' });
  });
});
