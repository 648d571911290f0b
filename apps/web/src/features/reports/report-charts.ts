/**
 * The reports' chart options, built from the report data alone (no React, no ECharts instance: unit-tested).
 * Form states are stacked in the same order and colours everywhere, those of the eCRF's status tags (certified
 * blue, completed green, draft gold, not started grey).
 */
import { type CrfMissingSummary, type CrfReportRow, type CrfReportState } from '@esource/shared';
import type { ChartOption } from '../../components/echart';

export const STATE_COLOR: Readonly<Record<CrfReportState, string>> = {
  certified: '#1677ff',
  completed: '#52c41a',
  draft: '#faad14',
  notStarted: '#d9d9d9',
};
export const MISSING_COLOR = '#fa8c16';

/** The stacks from the bottom: what is done first, what is left last. */
const STACK_ORDER: readonly CrfReportState[] = ['certified', 'completed', 'draft', 'notStarted'];

export interface CompletionTexts {
  state: (s: CrfReportState) => string;
  /** a group's axis label: its name and completion rate */
  label: (r: CrfReportRow) => string;
  /** what the chart shows, for screen readers */
  aria: string;
}

const tooltip = { trigger: 'axis', axisPointer: { type: 'shadow' }, confine: true } as const;
const legend = { top: 0, type: 'scroll' } as const;

/** The rate as a whole percentage, 1 decimal under 10 % ('0.4 %', '63 %'). */
export function percent(rate: number): string {
  const p = rate * 100;
  return `${p > 0 && p < 10 ? p.toFixed(1) : Math.round(p)} %`;
}

/** Forms of each group stacked by state, one horizontal bar per group, the first group on top. */
export function completionOption(rows: CrfReportRow[], texts: CompletionTexts): ChartOption {
  return {
    aria: { enabled: true, label: { description: texts.aria } },
    tooltip,
    legend,
    grid: { left: 8, right: 24, top: 36, bottom: 8, containLabel: true },
    xAxis: { type: 'value', minInterval: 1 },
    yAxis: {
      type: 'category',
      inverse: true,
      data: rows.map(texts.label),
      axisLabel: { width: 280, overflow: 'truncate' },
    },
    series: STACK_ORDER.map((s) => ({
      type: 'bar' as const,
      name: texts.state(s),
      stack: 'forms',
      color: STATE_COLOR[s],
      barMaxWidth: 22,
      emphasis: { focus: 'series' as const },
      data: rows.map((r) => r[s]),
    })),
  };
}

/** Missing items per form, or per item (the most missed first), as horizontal bars. */
export function missingOption(
  rows: { label: string; missing: number }[],
  texts: { series: string; aria: string },
): ChartOption {
  return {
    aria: { enabled: true, label: { description: texts.aria } },
    tooltip,
    grid: { left: 8, right: 24, top: 12, bottom: 8, containLabel: true },
    xAxis: { type: 'value', minInterval: 1 },
    yAxis: {
      type: 'category',
      inverse: true,
      data: rows.map((r) => r.label),
      axisLabel: { width: 200, overflow: 'truncate' },
    },
    series: [
      {
        type: 'bar',
        name: texts.series,
        color: MISSING_COLOR,
        barMaxWidth: 22,
        data: rows.map((r) => r.missing),
      },
    ],
  };
}

/** The item rows of the summary as chart rows: 'Form · Item'. */
export function itemRows(summary: CrfMissingSummary): { label: string; missing: number }[] {
  return summary.byItem.map((r) => ({ label: `${r.formName} · ${r.itemLabel}`, missing: r.missing }));
}

/** Height of a horizontal bar chart of `n` rows (bars stay readable; the chart never collapses). */
export function chartHeight(n: number): number {
  return Math.max(200, 56 + n * 30);
}
