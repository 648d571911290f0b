import { describe, expect, it } from 'vitest';
import type { SignalPeriodRow, SignalSiteRow } from '@esource/shared';
import { GRADE_COLOR } from '../safety';
import { periodGradeOption, periodSeriousOption, periodText, rankedGradeOption, rankedHeight, SIGNAL_GRADE_COLOR, type ChartTexts } from './signal-charts';

const texts: ChartTexts = { grade: (g) => `G${g}`, events: 'Events', serious: 'Serious', nonSerious: 'Non-serious', aria: 'a chart' };
const rows: SignalPeriodRow[] = [
  { period: '2026', precision: 'year', events: 1, subjects: 1, serious: 1, grades: [0, 0, 0, 1, 0] },
  { period: '2026-01', precision: 'month', events: 3, subjects: 2, serious: 1, grades: [1, 1, 1, 0, 0] },
];
type Bar = { name: string; stack: string; color: string; data: number[] };

describe('signal report charts', () => {
  it('labels periods, a year-only bucket of a month series as such', () => {
    const yearOnly = (y: string) => `${y} (month unknown)`;
    expect(rows.map((r) => periodText(r, 'month', yearOnly))).toEqual(['2026 (month unknown)', '2026-01']);
    expect(periodText({ period: '2026-Q3', precision: 'quarter' }, 'quarter', yearOnly)).toBe('2026 Q3');
    expect(periodText({ period: '2026', precision: 'year' }, 'year', yearOnly)).toBe('2026');
  });

  it('stacks events per period by grade, grade 1 green to 5 dark red', () => {
    const o = periodGradeOption(rows, ['a', 'b'], texts);
    const series = o.series as Bar[];
    expect(series.map((s) => [s.name, s.stack, s.data])).toEqual([
      ['G1', 'grade', [0, 1]],
      ['G2', 'grade', [0, 1]],
      ['G3', 'grade', [0, 1]],
      ['G4', 'grade', [1, 0]],
      ['G5', 'grade', [0, 0]],
    ]);
    expect(series.map((s) => s.color)).toEqual([1, 2, 3, 4, 5].map((g) => SIGNAL_GRADE_COLOR[g]));
    // the safety review's grade tags and these charts speak one colour language
    expect(SIGNAL_GRADE_COLOR).toEqual(GRADE_COLOR);
    expect(SIGNAL_GRADE_COLOR[1]).toBe('#52c41a');
    expect(SIGNAL_GRADE_COLOR[5]).toBe('#820014');
    expect(o.xAxis).toMatchObject({ type: 'category', data: ['a', 'b'] });
    expect(o.aria).toMatchObject({ enabled: true, label: { description: 'a chart' } });
  });

  it('splits serious from non-serious events', () => {
    const series = periodSeriousOption(rows, ['a', 'b'], texts).series as Bar[];
    expect(series.map((s) => [s.name, s.data])).toEqual([
      ['Serious', [1, 1]],
      ['Non-serious', [0, 2]],
    ]);
  });

  it('draws ranked rows as horizontal bars, the first on top, tall enough to read', () => {
    const sites: SignalSiteRow[] = [{ siteId: 1, siteName: 'A', events: 2, subjects: 1, serious: 0, severe: 0, grades: [2, 0, 0, 0, 0] }];
    const o = rankedGradeOption(sites, ['A'], texts);
    expect(o.yAxis).toMatchObject({ type: 'category', inverse: true, data: ['A'] });
    expect((o.series as Bar[])[0]!.data).toEqual([2]);
    expect(rankedHeight(1)).toBe(220);
    expect(rankedHeight(20)).toBe(580);
  });
});
