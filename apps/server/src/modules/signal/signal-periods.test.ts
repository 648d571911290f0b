import { describe, expect, it } from 'vitest';
import type { SignalPeriodRow } from '@esource/shared';
import { fillPeriods } from './signal.service';

const row = (period: string, precision: SignalPeriodRow['precision'], events: number): SignalPeriodRow => ({ period, precision, events, subjects: events, serious: 0, grades: [events, 0, 0, 0, 0] });

describe('the series fills the empty periods between the first and the last', () => {
  it('months across a year end, a year-only bucket kept before its months', () => {
    const out = fillPeriods([row('2025', 'year', 1), row('2025-11', 'month', 2), row('2026-02', 'month', 1)], 'month');
    expect(out.map((r) => [r.period, r.events])).toEqual([
      ['2025', 1],
      ['2025-11', 2],
      ['2025-12', 0],
      ['2026-01', 0],
      ['2026-02', 1],
    ]);
    expect(out[2]).toEqual({ period: '2025-12', precision: 'month', events: 0, subjects: 0, serious: 0, grades: [0, 0, 0, 0, 0] });
  });

  it('quarters and years', () => {
    expect(fillPeriods([row('2025-Q3', 'quarter', 1), row('2026-Q2', 'quarter', 1)], 'quarter').map((r) => r.period)).toEqual(['2025-Q3', '2025-Q4', '2026-Q1', '2026-Q2']);
    expect(fillPeriods([row('2020', 'year', 1), row('2023', 'year', 1)], 'year').map((r) => r.period)).toEqual(['2020', '2021', '2022', '2023']);
  });

  it('leaves a series alone when filling would make it absurdly long (a typo of a year)', () => {
    const rows = [row('1901-01', 'month', 1), row('2026-01', 'month', 1)];
    expect(fillPeriods(rows, 'month')).toEqual(rows);
    expect(fillPeriods([row('2026-01', 'month', 1)], 'month')).toHaveLength(1);
  });
});
