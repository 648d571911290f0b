import { describe, expect, it } from 'vitest';
import {
  groupRows,
  nameVariants,
  parseLabResults,
  readReportDate,
  ucumOfLabUnit,
  type OcrTextLine,
} from './lab-results';

/** A table row as an OCR engine gives it: one region per cell, at the given x positions, with a little skew. */
function row(
  y: number,
  cells: string[],
  opts: { page?: number; xs?: number[]; skew?: number } = {},
): OcrTextLine[] {
  const xs = opts.xs ?? [40, 260, 380, 480, 600];
  return cells.map((text, i) => ({
    page: opts.page ?? 0,
    text,
    x: xs[i] ?? 40 + i * 120,
    y: y + (opts.skew ?? 0) * i,
    width: Math.max(20, text.length * 14),
    height: 24,
  }));
}
const line = (y: number, text: string, x = 40, page = 0): OcrTextLine => ({
  page,
  text,
  x,
  y,
  width: text.length * 12,
  height: 22,
});

describe('groupRows', () => {
  it('groups regions into rows by vertical overlap, left to right, and keeps pages apart', () => {
    const lines = [
      ...row(100, ['HGB', '132', 'g/L'], { skew: 3 }),
      ...row(130, ['WBC', '6.5'], { skew: -2 }),
      line(100, 'other page', 40, 1),
    ];
    // shuffled: the order of the OCR output does not matter
    const shuffled = [lines[4]!, lines[1]!, lines[5]!, lines[0]!, lines[3]!, lines[2]!];
    const rows = groupRows(shuffled);
    expect(rows.map((r) => r.lines.map((i) => shuffled[i]!.text))).toEqual([
      ['HGB', '132', 'g/L'],
      ['WBC', '6.5'],
      ['other page'],
    ]);
    expect(rows.map((r) => r.page)).toEqual([0, 0, 1]);
  });

  it('does not chain rows through a region that overlaps both a little', () => {
    const lines = [line(100, 'A 1'), line(126, 'B 2'), { ...line(112, 'tall'), height: 30, x: 300 }];
    expect(groupRows(lines).length).toBeGreaterThanOrEqual(2);
  });
});

describe('parseLabResults', () => {
  it('reads a Chinese table row: name with its abbreviation, value, unit, range', () => {
    const lines = row(200, ['血红蛋白 HGB', '132', 'g/L', '130-175']);
    const [c, ...rest] = parseLabResults(lines);
    expect(rest).toEqual([]);
    expect(c).toMatchObject({
      name: '血红蛋白 HGB',
      names: ['血红蛋白 HGB', '血红蛋白', 'HGB'],
      valueNum: 132,
      valueText: null,
      unit: 'g/L',
      ucum: 'g/L',
      range: '130-175',
      flag: null,
    });
    expect(c!.text).toBe('血红蛋白 HGB | 132 | g/L | 130-175');
    expect(c!.lines).toEqual([0, 1, 2, 3]);
    expect(c!.region).toEqual({ page: 0, x: 40, y: 200, width: 480 + 7 * 14 - 40, height: 24 });
  });

  it("reads the one-line form 'Glucose 5.6 mmol/L (3.9-6.1) H' and the '|' separated form", () => {
    const [g] = parseLabResults([line(50, 'Glucose 5.6 mmol/L (3.9-6.1) H')]);
    expect(g).toMatchObject({
      name: 'Glucose',
      names: ['Glucose'],
      valueNum: 5.6,
      unit: 'mmol/L',
      range: '3.9-6.1',
      flag: 'H',
    });
    expect(g!.region).toEqual({ page: 0, x: 40, y: 50, width: 30 * 12, height: 22 });
    const [h] = parseLabResults([line(50, '血红蛋白 HGB | 132 | g/L | 130-175')]);
    expect(h).toMatchObject({ valueNum: 132, unit: 'g/L', range: '130-175' });
  });

  it('reads abnormal flags written in several ways, before or after the unit, attached or not', () => {
    const lines = [
      ...row(100, ['白细胞计数(WBC)', '11.2↑', '10^9/L', '3.5-9.5']),
      ...row(130, ['血钾 K', '3.2', '↓', 'mmol/L', '3.5~5.3']),
      ...row(160, ['Sodium', '150', 'H', 'mmol/L', '137 - 147']),
      line(190, 'Platelets 95 L x10^9/L 125-350'),
      line(220, 'Creatinine 0.9 mg/dL 0.6-1.2 N'),
      ...row(250, ['尿蛋白', '阳性(+)', '', '阴性']),
    ];
    const c = parseLabResults(lines);
    expect(c.map((x) => [x.name, x.valueNum ?? x.valueText, x.flag, x.unit, x.ucum, x.range])).toEqual([
      ['白细胞计数(WBC)', 11.2, 'H', '10^9/L', '10*9/L', '3.5-9.5'],
      ['血钾 K', 3.2, 'L', 'mmol/L', 'mmol/L', '3.5~5.3'],
      ['Sodium', 150, 'H', 'mmol/L', 'mmol/L', '137-147'],
      ['Platelets', 95, 'L', 'x10^9/L', '10*9/L', '125-350'],
      ['Creatinine', 0.9, null, 'mg/dL', 'mg/dL', '0.6-1.2'],
      ['尿蛋白', '阳性(+)', null, null, null, null],
    ]);
    expect(c[0]!.names).toEqual(['白细胞计数(WBC)', '白细胞计数', 'WBC']);
  });

  it('keeps a qualified value as text and reads a unit attached to the value and one-sided ranges', () => {
    const c = parseLabResults([
      line(10, 'CRP <0.5 mg/L 0-5'),
      line(40, 'Troponin I < 0.01 ng/mL (<0.04)'),
      line(70, 'HbA1c 6.1% (4.0-6.0) ↑'),
      line(100, 'ALT: 35U/L ≤40'),
    ]);
    expect(c.map((x) => [x.name, x.valueNum, x.valueText, x.unit, x.range, x.flag])).toEqual([
      ['CRP', null, '<0.5', 'mg/L', '0-5', null],
      ['Troponin I', null, '<0.01', 'ng/mL', '<0.04', null],
      ['HbA1c', 6.1, null, '%', '4.0-6.0', 'H'],
      ['ALT', 35, null, 'U/L', '≤40', null],
    ]);
  });

  it('reads two results of a two-column report row, each with its own box', () => {
    const lines = row(300, ['WBC', '6.5', '10^9/L', 'RBC', '4.6', '10^12/L'], {
      xs: [40, 160, 240, 420, 540, 620],
    });
    const c = parseLabResults(lines);
    expect(c.map((x) => [x.name, x.valueNum, x.ucum])).toEqual([
      ['WBC', 6.5, '10*9/L'],
      ['RBC', 4.6, '10*12/L'],
    ]);
    expect(c[0]!.lines).toEqual([0, 1, 2]);
    expect(c[1]!.lines).toEqual([3, 4, 5]);
    expect(c[1]!.region.x).toBe(420);
  });

  it('a remark after a result does not become part of the next name', () => {
    const lines = [
      { ...line(10, 'Glucose 5.6 mmol/L fasting'), width: 300 },
      { ...line(10, 'Urea 5.0 mmol/L', 400), width: 150 },
    ];
    expect(parseLabResults(lines).map((x) => x.name)).toEqual(['Glucose', 'Urea']);
  });

  it('ignores headers, patient information, dates, page numbers, row numbers and long numbers', () => {
    const lines = [
      line(10, '检验报告单'),
      line(40, '姓名: 张三   性别: 男   年龄: 45 岁'),
      line(70, 'Patient ID 12345   Age 45'),
      line(100, '标本编号 20240305001'),
      line(130, '电话 13800138000'),
      line(160, '采样时间: 2024-03-05 08:30'),
      ...row(190, ['项目', '结果', '单位', '参考范围']),
      ...row(220, ['1', '血糖 GLU', '6.2', 'mmol/L', '3.9-6.1']),
      line(250, '第 1 页 共 2 页'),
      line(280, 'Page 1 of 2'),
      line(310, '2024'),
      line(340, '备注: 复查 2 次'),
    ];
    const c = parseLabResults(lines);
    expect(c.map((x) => [x.name, x.valueNum])).toEqual([['血糖 GLU', 6.2]]);
    // the row number is not part of the result's box
    expect(c[0]!.lines.map((i) => lines[i]!.text)).toEqual(['血糖 GLU', '6.2', 'mmol/L', '3.9-6.1']);
  });

  it('reads full-width characters and the micro sign', () => {
    const [c] = parseLabResults([line(10, '总胆红素（TBIL）　１２．５　µmol/L　５．１－２１')]);
    expect(c).toMatchObject({
      name: '总胆红素(TBIL)',
      names: ['总胆红素(TBIL)', '总胆红素', 'TBIL'],
      valueNum: 12.5,
      unit: 'μmol/L',
      ucum: 'umol/L',
      range: '5.1-21',
    });
  });
});

describe('nameVariants and ucumOfLabUnit', () => {
  it('splits names into their Chinese and Latin parts', () => {
    expect(nameVariants('HGB 血红蛋白')).toEqual(['HGB 血红蛋白', '血红蛋白', 'HGB']);
    expect(nameVariants('Hemoglobin (HGB)')).toEqual(['Hemoglobin (HGB)', 'Hemoglobin', 'HGB']);
    expect(nameVariants('Free T4')).toEqual(['Free T4']);
  });

  it('writes lab units as UCUM, or null', () => {
    expect(
      [
        'g/L',
        'mmol/l',
        '10^9/L',
        '×10^12/L',
        '10E9/L',
        'μmol/L',
        'IU/L',
        'mIU/mL',
        'mmHg',
        '%',
        'fl',
        'sec',
        'U/L',
        'mg/dl',
      ].map(ucumOfLabUnit),
    ).toEqual([
      'g/L',
      'mmol/L',
      '10*9/L',
      '10*12/L',
      '10*9/L',
      'umol/L',
      '[IU]/L',
      'm[IU]/mL',
      'mm[Hg]',
      '%',
      'fL',
      's',
      'U/L',
      'mg/dL',
    ]);
    expect(ucumOfLabUnit('个/HP')).toBeNull();
    expect(ucumOfLabUnit('')).toBeNull();
  });
});

describe('readReportDate', () => {
  it('prefers the collection date, takes the report date otherwise, and never an unlabelled date', () => {
    expect(
      readReportDate([
        line(10, '报告日期: 2024-03-06'),
        line(40, '采样时间'),
        line(40, '2024/3/5 08:30', 200),
      ]),
    ).toBe('2024-03-05');
    expect(readReportDate([line(10, 'Reported: 2024-03-06 10:00')])).toBe('2024-03-06');
    expect(readReportDate([line(10, '出生日期 1980-01-02'), line(40, '2024-03-05')])).toBeNull();
    expect(readReportDate([line(10, '报告日期 2024-02-30')])).toBeNull();
  });
});
