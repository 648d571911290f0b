/**
 * The signal report's chart options, built from the report alone (no React, no ECharts instance: unit-tested).
 * Grades are stacked in the same order and colours everywhere (1 green … 5 dark red, as the safety review's tags).
 */
import { SIGNAL_GRADES, type SignalPeriod, type SignalPeriodRow, type SignalSiteRow, type SignalTermRow } from '@esource/shared';
import type { ChartOption } from '../../components/echart';

/**
 * CTCAE grade colours: 1 green, 2 amber, 3 orange, 4 red, 5 dark red — the safety review's GRADE_COLOR (a unit test
 * holds them equal). Not imported from features/safety: its index would bring the judge drawer into this page's chunk.
 */
export const SIGNAL_GRADE_COLOR: Readonly<Record<number, string>> = { 1: '#52c41a', 2: '#faad14', 3: '#fa8c16', 4: '#f5222d', 5: '#820014' };
export const SERIOUS_COLOR = '#cf1322';
export const NON_SERIOUS_COLOR = '#91caff';

export interface ChartTexts {
  grade: (g: number) => string;
  events: string;
  serious: string;
  nonSerious: string;
  /** what the chart shows, for screen readers */
  aria: string;
}

/** '2024-03' → '2024-03', '2024-Q1' → '2024 Q1'; a year-only bucket of a month or quarter series says so. */
export function periodText(r: Pick<SignalPeriodRow, 'period' | 'precision'>, period: SignalPeriod, yearOnly: (year: string) => string): string {
  if (r.precision === 'year' && period !== 'year') return yearOnly(r.period);
  return r.period.replace('-Q', ' Q');
}

const tooltip = { trigger: 'axis', axisPointer: { type: 'shadow' }, confine: true } as const;
const legend = { top: 0, type: 'scroll' } as const;

function gradeSeries(rows: { grades: number[] }[], texts: ChartTexts, horizontal: boolean) {
  return SIGNAL_GRADES.map((g) => ({
    type: 'bar' as const,
    name: texts.grade(g),
    stack: 'grade',
    color: SIGNAL_GRADE_COLOR[g],
    barMaxWidth: horizontal ? 18 : 36,
    emphasis: { focus: 'series' as const },
    data: rows.map((r) => r.grades[g - 1] ?? 0),
  }));
}

/** Events per period, stacked by grade. */
export function periodGradeOption(rows: SignalPeriodRow[], labels: string[], texts: ChartTexts): ChartOption {
  return {
    aria: { enabled: true, label: { description: texts.aria } },
    tooltip,
    legend,
    grid: { left: 8, right: 16, top: 36, bottom: 8, containLabel: true },
    xAxis: { type: 'category', data: labels, axisLabel: { hideOverlap: true } },
    yAxis: { type: 'value', name: texts.events, minInterval: 1 },
    series: gradeSeries(rows, texts, false),
  };
}

/** Serious and non-serious events per period, stacked. */
export function periodSeriousOption(rows: SignalPeriodRow[], labels: string[], texts: ChartTexts): ChartOption {
  return {
    aria: { enabled: true, label: { description: texts.aria } },
    tooltip,
    legend,
    grid: { left: 8, right: 16, top: 36, bottom: 8, containLabel: true },
    xAxis: { type: 'category', data: labels, axisLabel: { hideOverlap: true } },
    yAxis: { type: 'value', name: texts.events, minInterval: 1 },
    series: [
      { type: 'bar', name: texts.serious, stack: 'serious', color: SERIOUS_COLOR, barMaxWidth: 36, data: rows.map((r) => r.serious) },
      { type: 'bar', name: texts.nonSerious, stack: 'serious', color: NON_SERIOUS_COLOR, barMaxWidth: 36, data: rows.map((r) => r.events - r.serious) },
    ],
  };
}

/** Horizontal bars stacked by grade, the first row on top (top terms, sites). */
export function rankedGradeOption(rows: (SignalTermRow | SignalSiteRow)[], labels: string[], texts: ChartTexts): ChartOption {
  return {
    aria: { enabled: true, label: { description: texts.aria } },
    tooltip,
    legend,
    grid: { left: 8, right: 24, top: 36, bottom: 8, containLabel: true },
    // no axis name: at the end of a horizontal axis it would be cut off (the tooltip names the events)
    xAxis: { type: 'value', minInterval: 1 },
    yAxis: { type: 'category', inverse: true, data: labels, axisLabel: { width: 160, overflow: 'truncate' } },
    series: gradeSeries(rows, texts, true),
  };
}

/** Height of a horizontal bar chart of `n` rows (bars stay readable; the chart never collapses). */
export function rankedHeight(n: number): number {
  return Math.max(220, 60 + n * 26);
}
