import { describe, expect, it } from 'vitest';
import type { CrfMissingSummary, CrfReportRow } from '@esource/shared';
import { CRF_STATUS_COLOR } from '../ecrf';
import {
  chartHeight,
  completionOption,
  itemRows,
  missingOption,
  percent,
  STATE_COLOR,
} from './report-charts';

type Bar = { name: string; stack?: string; color: string; data: number[] };
const row = (key: string, o: Partial<CrfReportRow>): CrfReportRow => ({
  key,
  code: key,
  name: `Site ${key}`,
  expected: 10,
  notStarted: 4,
  draft: 2,
  completed: 3,
  certified: 1,
  done: 4,
  rate: 0.4,
  ...o,
});

describe('report charts', () => {
  it("stacks each group's forms from certified to not started, in the eCRF status colours", () => {
    const rows = [
      row('01', {}),
      row('02', { notStarted: 10, draft: 0, completed: 0, certified: 0, done: 0, rate: 0 }),
    ];
    const o = completionOption(rows, {
      state: (s) => s.toUpperCase(),
      label: (r) => `${r.name} ${percent(r.rate)}`,
      aria: 'a chart',
    });
    const series = o.series as Bar[];
    expect(series.map((s) => [s.name, s.stack, s.data])).toEqual([
      ['CERTIFIED', 'forms', [1, 0]],
      ['COMPLETED', 'forms', [3, 0]],
      ['DRAFT', 'forms', [2, 0]],
      ['NOTSTARTED', 'forms', [4, 10]],
    ]);
    expect((o.yAxis as { data: string[] }).data).toEqual(['Site 01 40 %', 'Site 02 0 %']);
    // the colours of the eCRF's status tags: certified blue, completed green, draft gold
    expect(CRF_STATUS_COLOR[3]).toBe('blue');
    expect(CRF_STATUS_COLOR[2]).toBe('green');
    expect(CRF_STATUS_COLOR[1]).toBe('gold');
    expect(series.map((s) => s.color)).toEqual([
      STATE_COLOR.certified,
      STATE_COLOR.completed,
      STATE_COLOR.draft,
      STATE_COLOR.notStarted,
    ]);
  });

  it('writes rates as whole percentages, one decimal under 10 %', () => {
    expect([percent(0), percent(0.004), percent(0.0426), percent(0.5), percent(1)]).toEqual([
      '0 %',
      '0.4 %',
      '4.3 %',
      '50 %',
      '100 %',
    ]);
  });

  it('charts missing items per form and per item (form · item), the chart growing with its rows', () => {
    const summary: CrfMissingSummary = {
      formsChecked: 10,
      formsWithMissing: 3,
      missing: 5,
      byForm: [{ formCode: 'DM', formName: 'Demographics', forms: 3, missing: 5 }],
      byItem: [
        {
          formCode: 'DM',
          formName: 'Demographics',
          variable: 'BRTHDTC',
          itemLabel: 'Date of birth',
          missing: 3,
        },
        { formCode: 'DM', formName: 'Demographics', variable: 'PREG', itemLabel: 'Pregnant', missing: 2 },
      ],
    };
    const o = missingOption(itemRows(summary), { series: 'Missing', aria: 'a chart' });
    expect((o.yAxis as { data: string[] }).data).toEqual([
      'Demographics · Date of birth',
      'Demographics · Pregnant',
    ]);
    expect((o.series as Bar[])[0]!.data).toEqual([3, 2]);
    expect(chartHeight(1)).toBe(200);
    expect(chartHeight(20)).toBe(656);
  });
});
