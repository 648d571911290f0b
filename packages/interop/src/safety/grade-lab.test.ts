import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertFhirResource } from '../fhir/fhir-to-records';
import { parseHl7 } from '../hl7/hl7-to-records';
import type { ExtractedRecord } from '../source-record';
import { gradeLab, type LabAssessment, type LabGrade } from './grade-lab';
import type { LabRecordInput } from './reference-range';
import synthea from './fixtures/synthea-lab-observations.json';

/** A SQL-view record: the range in a 'range' column (text) or ref_low / ref_high. */
function sqlRecord(
  display: string,
  value: number | string,
  unit?: string,
  range?: string | { low?: number; high?: number },
  row: Record<string, unknown> = {},
): LabRecordInput {
  const raw: Record<string, unknown> = { id: 1, ...row };
  if (typeof range === 'string') raw.range = range;
  else if (range) Object.assign(raw, { ref_low: range.low, ref_high: range.high });
  return {
    rawFormat: 'sql',
    raw: JSON.stringify(raw),
    docType: 3,
    display,
    unit,
    ...(typeof value === 'number' ? { valueNum: value } : { valueText: value }),
  };
}
function grade(
  display: string,
  value: number | string,
  unit?: string,
  range?: string | { low?: number; high?: number },
): LabAssessment {
  const a = gradeLab(sqlRecord(display, value, unit, range));
  if (!a) throw new Error(`no assessment for ${display} ${value}`);
  return a;
}

/** [analyte name, unit, range, [value, grade][]]: each threshold exactly, and just beyond it */
type Boundaries = [string, string | undefined, string, [number, LabGrade][]];
const BOUNDARIES: Boundaries[] = [
  // ×ULN: >ULN-3.0 · >3.0-5.0 · >5.0-20.0 · >20.0
  [
    'ALT',
    'U/L',
    '0-40',
    [
      [40, 0],
      [40.01, 1],
      [120, 1],
      [120.01, 2],
      [200, 2],
      [200.01, 3],
      [800, 3],
      [800.01, 4],
    ],
  ],
  [
    'AST',
    'IU/L',
    '0-35',
    [
      [35, 0],
      [35.1, 1],
      [105, 1],
      [105.1, 2],
      [175, 2],
      [175.1, 3],
      [700, 3],
      [700.1, 4],
    ],
  ],
  // ALP, GGT: >ULN-2.5 · >2.5-5.0 · >5.0-20.0 · >20.0
  [
    '碱性磷酸酶',
    'U/L',
    '40-100',
    [
      [100, 0],
      [250, 1],
      [250.1, 2],
      [500, 2],
      [500.1, 3],
      [2000, 3],
      [2000.1, 4],
    ],
  ],
  [
    'GGT',
    'U/L',
    '10-50',
    [
      [125, 1],
      [125.1, 2],
      [250, 2],
      [250.1, 3],
      [1000, 3],
      [1000.1, 4],
    ],
  ],
  // bilirubin: >ULN-1.5 · >1.5-3.0 · >3.0-10.0 · >10.0
  [
    '总胆红素',
    'µmol/L',
    '0-21',
    [
      [21, 0],
      [31.5, 1],
      [31.6, 2],
      [63, 2],
      [63.1, 3],
      [210, 3],
      [210.1, 4],
    ],
  ],
  [
    'Total bilirubin',
    'mg/dL',
    '0.3-1.2',
    [
      [1.2, 0],
      [1.8, 1],
      [1.81, 2],
      [3.6, 2],
      [3.61, 3],
      [12, 3],
      [12.01, 4],
    ],
  ],
  // creatinine: >ULN-1.5 · >1.5-3.0 · >3.0-6.0 · >6.0
  [
    '肌酐',
    'umol/L',
    '57-97',
    [
      [97, 0],
      [145.5, 1],
      [145.6, 2],
      [291, 2],
      [291.1, 3],
      [582, 3],
      [582.1, 4],
    ],
  ],
  // CPK: >ULN-2.5 · >2.5-5 · >5-10 · >10
  [
    'CK',
    'U/L',
    '40-200',
    [
      [500, 1],
      [500.1, 2],
      [1000, 2],
      [1000.1, 3],
      [2000, 3],
      [2000.1, 4],
    ],
  ],
  // lipase, amylase (value alone): >ULN-1.5 · >1.5-5.0 grade 2 · >5.0 grade 3
  [
    'Lipase',
    'U/L',
    '0-60',
    [
      [60, 0],
      [90, 1],
      [90.1, 2],
      [300, 2],
      [300.1, 3],
    ],
  ],
  [
    '血清淀粉酶',
    'U/L',
    '35-135',
    [
      [202.5, 1],
      [202.6, 2],
      [675, 2],
      [675.1, 3],
    ],
  ],
  // anemia: <LLN-10.0 g/dL; <LLN-6.2 mmol/L; <LLN-100 g/L · <10.0-8.0; <6.2-4.9; <100-80 · <8.0; <4.9; <80
  [
    '血红蛋白',
    'g/L',
    '130-175',
    [
      [130, 0],
      [129.9, 1],
      [100, 1],
      [99.9, 2],
      [80, 2],
      [79.9, 3],
    ],
  ],
  [
    'Hemoglobin',
    'g/dL',
    '13.0-17.5',
    [
      [10, 1],
      [9.99, 2],
      [8, 2],
      [7.99, 3],
    ],
  ],
  [
    'Hb',
    'mmol/L',
    '8.1-10.9',
    [
      [6.2, 1],
      [6.19, 2],
      [4.9, 2],
      [4.89, 3],
    ],
  ],
  // hemoglobin increased: >0-2 · >2-4 · >4 g/dL above ULN
  [
    'HGB',
    'g/L',
    '130-175',
    [
      [175, 0],
      [195, 1],
      [195.1, 2],
      [215, 2],
      [215.1, 3],
    ],
  ],
  [
    'HGB',
    'g/dL',
    '13-17.5',
    [
      [19.5, 1],
      [19.51, 2],
      [21.5, 2],
      [21.51, 3],
    ],
  ],
  // platelets: <LLN-75.0 · <75.0-50.0 · <50.0-25.0 · <25.0 × 10e9/L
  [
    '血小板',
    '10^9/L',
    '125-350',
    [
      [125, 0],
      [124.9, 1],
      [75, 1],
      [74.9, 2],
      [50, 2],
      [49.9, 3],
      [25, 3],
      [24.9, 4],
    ],
  ],
  [
    'PLT',
    'cells/uL',
    '150000-350000',
    [
      [75000, 1],
      [74999, 2],
      [25000, 3],
      [24999, 4],
    ],
  ],
  // WBC: <LLN-3.0 · <3.0-2.0 · <2.0-1.0 · <1.0; leukocytosis >100 grade 3 only
  [
    '白细胞',
    '×10⁹/L',
    '3.5-9.5',
    [
      [3, 1],
      [2.99, 2],
      [2, 2],
      [1.99, 3],
      [1, 3],
      [0.99, 4],
      [100, 0],
      [100.1, 3],
    ],
  ],
  // ANC: <LLN-1.5 · <1.5-1.0 · <1.0-0.5 · <0.5
  [
    '中性粒细胞绝对值',
    '10^9/L',
    '1.8-6.3',
    [
      [1.8, 0],
      [1.5, 1],
      [1.49, 2],
      [1, 2],
      [0.99, 3],
      [0.5, 3],
      [0.49, 4],
    ],
  ],
  // lymphocytes: <LLN-0.8 · <0.8-0.5 · <0.5-0.2 · <0.2; increased: >4-20 grade 2, >20 grade 3, no grade 1
  [
    '淋巴细胞绝对值',
    '10^9/L',
    '1.1-3.2',
    [
      [0.8, 1],
      [0.79, 2],
      [0.5, 2],
      [0.49, 3],
      [0.2, 3],
      [0.19, 4],
      [3.3, 0],
      [4, 0],
      [4.01, 2],
      [20, 2],
      [20.01, 3],
    ],
  ],
  // potassium: >ULN-5.5 · >5.5-6.0 · >6.0-7.0 · >7.0; <LLN-3.0 (grade 2 only if symptomatic) · <3.0-2.5 · <2.5
  [
    '血钾',
    'mmol/L',
    '3.5-5.3',
    [
      [5.3, 0],
      [5.5, 1],
      [5.51, 2],
      [6, 2],
      [6.01, 3],
      [7, 3],
      [7.01, 4],
      [3.5, 0],
      [3, 1],
      [2.99, 3],
      [2.5, 3],
      [2.49, 4],
    ],
  ],
  // sodium: >ULN-150 · >150-155 · >155-160 · >160; <LLN-130 · 125-129 · 120-124 · <120
  [
    '血钠',
    'mmol/L',
    '137-147',
    [
      [150, 1],
      [150.1, 2],
      [155, 2],
      [155.1, 3],
      [160, 3],
      [160.1, 4],
      [130, 1],
      [129.5, 2],
      [129, 2],
      [125, 2],
      [124, 3],
      [120, 3],
      [119, 4],
    ],
  ],
  // corrected calcium, mmol/L: >ULN-2.9 · >2.9-3.1 · >3.1-3.4 · >3.4; <LLN-2.0 · <2.0-1.75 · <1.75-1.5 · <1.5
  [
    '血钙',
    'mmol/L',
    '2.11-2.52',
    [
      [2.9, 1],
      [2.91, 2],
      [3.1, 2],
      [3.11, 3],
      [3.4, 3],
      [3.41, 4],
      [2, 1],
      [1.99, 2],
      [1.75, 2],
      [1.74, 3],
      [1.5, 3],
      [1.49, 4],
    ],
  ],
  // mg/dL: >ULN-11.5 · >11.5-12.5 · >12.5-13.5 · >13.5; <LLN-8.0 · <8.0-7.0 · <7.0-6.0 · <6.0
  [
    'Calcium',
    'mg/dL',
    '8.5-10.2',
    [
      [11.5, 1],
      [11.51, 2],
      [12.5, 2],
      [12.51, 3],
      [13.5, 3],
      [13.51, 4],
      [8, 1],
      [7.99, 2],
      [7, 2],
      [6.99, 3],
      [6, 3],
      [5.99, 4],
    ],
  ],
  // ionized: >ULN-1.5 · >1.5-1.6 · >1.6-1.8 · >1.8; <LLN-1.0 · <1.0-0.9 · <0.9-0.8 · <0.8
  [
    '离子钙',
    'mmol/L',
    '1.12-1.32',
    [
      [1.5, 1],
      [1.51, 2],
      [1.6, 2],
      [1.61, 3],
      [1.8, 3],
      [1.81, 4],
      [1, 1],
      [0.99, 2],
      [0.9, 2],
      [0.89, 3],
      [0.8, 3],
      [0.79, 4],
    ],
  ],
  // hypoglycemia: <LLN-55 mg/dL; <LLN-3.0 mmol/L · <55-40; <3.0-2.2 · <40-30; <2.2-1.7 · <30; <1.7
  [
    '葡萄糖',
    'mmol/L',
    '3.9-6.1',
    [
      [3.9, 0],
      [3, 1],
      [2.99, 2],
      [2.2, 2],
      [2.19, 3],
      [1.7, 3],
      [1.69, 4],
    ],
  ],
  [
    'Glucose',
    'mg/dL',
    '70-99',
    [
      [55, 1],
      [54.9, 2],
      [40, 2],
      [39.9, 3],
      [30, 3],
      [29.9, 4],
    ],
  ],
  // hypoalbuminemia: <LLN-3 g/dL; <LLN-30 g/L · <3-2; <30-20 · <2; <20
  [
    '白蛋白',
    'g/L',
    '40-55',
    [
      [30, 1],
      [29.9, 2],
      [20, 2],
      [19.9, 3],
    ],
  ],
  [
    'Albumin',
    'g/dL',
    '3.5-5.2',
    [
      [3, 1],
      [2.99, 2],
      [2, 2],
      [1.99, 3],
    ],
  ],
  // cholesterol high: >ULN-300 mg/dL; >ULN-7.75 mmol/L · >300-400; >7.75-10.34 · >400-500; >10.34-12.92 · >500; >12.92
  [
    '总胆固醇',
    'mmol/L',
    '0-5.2',
    [
      [5.2, 0],
      [7.75, 1],
      [7.76, 2],
      [10.34, 2],
      [10.35, 3],
      [12.92, 3],
      [12.93, 4],
    ],
  ],
  [
    'Cholesterol',
    'mg/dL',
    '<200',
    [
      [300, 1],
      [300.1, 2],
      [400, 2],
      [400.1, 3],
      [500, 3],
      [500.1, 4],
    ],
  ],
  // hypertriglyceridemia: 150-300 mg/dL; 1.71-3.42 mmol/L (150 included) · >300-500; >3.42-5.7 · >500-1000; >5.7-11.4 · >1000; >11.4
  [
    '甘油三酯',
    'mmol/L',
    '0-1.7',
    [
      [1.7, 0],
      [1.71, 1],
      [3.42, 1],
      [3.43, 2],
      [5.7, 2],
      [5.71, 3],
      [11.4, 3],
      [11.41, 4],
    ],
  ],
  [
    'Triglycerides',
    'mg/dL',
    '<150',
    [
      [149, 0],
      [150, 1],
      [300, 1],
      [301, 2],
      [500, 2],
      [501, 3],
      [1000, 3],
      [1001, 4],
    ],
  ],
  // magnesium: >ULN-1.23 mmol/L (no grade 2) · >1.23-3.30 · >3.30; <LLN-0.5 · <0.5-0.4 · <0.4-0.3 · <0.3
  [
    '血镁',
    'mmol/L',
    '0.75-1.02',
    [
      [1.23, 1],
      [1.24, 3],
      [3.3, 3],
      [3.31, 4],
      [0.5, 1],
      [0.49, 2],
      [0.4, 2],
      [0.39, 3],
      [0.3, 3],
      [0.29, 4],
    ],
  ],
  [
    'Magnesium',
    'mg/dL',
    '1.7-2.2',
    [
      [3, 1],
      [3.01, 3],
      [8, 3],
      [8.01, 4],
      [1.2, 1],
      [1.19, 2],
      [0.9, 2],
      [0.89, 3],
      [0.7, 3],
      [0.69, 4],
    ],
  ],
  // INR: >1.2-1.5 · >1.5-2.5 · >2.5 (absolute, no unit needed)
  [
    'INR',
    undefined,
    '0.8-1.2',
    [
      [1.2, 0],
      [1.21, 1],
      [1.5, 1],
      [1.51, 2],
      [2.5, 2],
      [2.51, 3],
    ],
  ],
  // aPTT: >ULN-1.5 · >1.5-2.5 · >2.5 × ULN
  [
    'APTT',
    's',
    '25-35',
    [
      [35, 0],
      [52.5, 1],
      [52.6, 2],
      [87.5, 2],
      [87.6, 3],
    ],
  ],
  // fibrinogen: <1.0-0.75 · <0.75-0.5 · <0.5-0.25 × LLN · <0.25 × LLN or <50 mg/dL
  [
    '纤维蛋白原',
    'g/L',
    '2-4',
    [
      [2, 0],
      [1.5, 1],
      [1.49, 2],
      [1, 2],
      [0.99, 3],
      [0.5, 3],
      [0.49, 4],
    ],
  ],
  [
    'Fibrinogen',
    'mg/dL',
    '200-400',
    [
      [51, 3],
      [49, 4],
    ],
  ],
  // hyperuricemia (value alone): >ULN grade 1
  [
    '尿酸',
    'µmol/L',
    '208-428',
    [
      [428, 0],
      [429, 1],
    ],
  ],
];

describe('CTCAE v5.0 grade boundaries, for every analyte', () => {
  for (const [name, unit, range, cases] of BOUNDARIES) {
    it(`${name} (${unit ?? 'no unit'}, range ${range})`, () => {
      for (const [value, want] of cases) {
        const a = grade(name, value, unit, range);
        expect(a.known, `${name} ${value}`).toBe(true);
        expect(a.grade, `${name} ${value} ${unit ?? ''}`).toBe(want);
      }
    });
  }

  it('floating point does not move a value that sits exactly on a threshold', () => {
    // 1.5 × 0.3 is 0.44999999999999996 in binary
    expect(grade('Total bilirubin', 0.45, 'mg/dL', '0.1-0.3').grade).toBe(1);
    expect(grade('Total bilirubin', 0.46, 'mg/dL', '0.1-0.3').grade).toBe(2);
    // 3 × 1.1 is 3.3000000000000003
    expect(grade('Creatinine', 3.3, 'mg/dL', '0.6-1.1').grade).toBe(2);
  });

  it('gives the ratio to ULN / LLN when the grade is relative to them', () => {
    expect(grade('ALT', 150, 'U/L', '0-40')).toMatchObject({ grade: 2, ratio: 3.75 });
    expect(grade('纤维蛋白原', 0.9, 'g/L', '2-4')).toMatchObject({ grade: 3, ratio: 0.45 });
    expect(grade('血钾', 6.2, 'mmol/L', '3.5-5.3').ratio).toBeUndefined();
  });
});

describe('the assessment', () => {
  it('names the CTCAE term in English and Chinese, the direction, canonical value, unit and range', () => {
    expect(grade('谷丙转氨酶', 260, 'U/L', '9-50')).toEqual({
      analyteId: 'alt',
      known: true,
      ctcaeTerm: { en: 'Alanine aminotransferase increased', zh: '丙氨酸氨基转移酶增高' },
      direction: 'high',
      value: 260,
      unit: 'U/L',
      low: 9,
      high: 50,
      rangeSource: 'record',
      outOfRange: true,
      grade: 3,
      ratio: 5.2,
      reasonCode: 'baselineNotKnown',
      reason: 'graded against ULN; CTCAE v5.0 grades against baseline when the baseline was abnormal',
    });
    expect(grade('血小板计数', 30, '10^9/L', '125-350')).toMatchObject({
      ctcaeTerm: { en: 'Platelet count decreased', zh: '血小板计数降低' },
      direction: 'low',
      grade: 3,
    });
    expect(grade('血红蛋白', 85, 'g/L', '115-150')).toMatchObject({
      ctcaeTerm: { en: 'Anemia', zh: '贫血' },
      grade: 2,
    });
  });

  it('reports values and ranges in the canonical unit', () => {
    expect(grade('Creatinine', 2, 'mg/dL', '0.6-1.2')).toMatchObject({
      value: 176.803,
      unit: 'umol/L',
      low: 53.041,
      high: 106.082,
      grade: 2,
      ratio: 1.67,
    });
    expect(grade('PLT', 45000, '/mm3', '150000-400000')).toMatchObject({
      value: 45,
      unit: '10*9/L',
      low: 150,
      high: 400,
      grade: 3,
    });
    expect(grade('白细胞', 2.5, 'g/l', '3.5-9.5')).toMatchObject({ value: 2.5, unit: '10*9/L', grade: 2 }); // g/l: giga per litre
    expect(grade('Hemoglobin', 7.5, 'g/dL', '12-16')).toMatchObject({
      value: 75,
      unit: 'g/L',
      low: 120,
      high: 160,
      grade: 3,
    });
    expect(grade('Calcium', 5, 'mEq/L', '4.3-5.3')).toMatchObject({ value: 2.5, unit: 'mmol/L', grade: 0 });
  });

  it('uses the v5.0 thresholds in the record’s unit when v5.0 gives them, converting only otherwise', () => {
    // 11.5 mg/dL is 2.87 mmol/L: by the mg/dL thresholds it is grade 1, and it stays so
    expect(grade('Calcium', 11.5, 'mg/dL', '8.5-10.2').grade).toBe(1);
    // µmol/L glucose has no v5.0 threshold: converted to mmol/L (2.9 mmol/L → grade 2)
    expect(grade('Glucose', 2900, 'umol/L', '3900-6100').grade).toBe(2);
    // ALT in µkat/L with its range in µkat/L: ×ULN needs no conversion
    expect(grade('ALT', 3.5, 'µkat/L', '0-0.85')).toMatchObject({ grade: 2, value: 210, unit: 'U/L' });
  });

  it('grades ×ULN in the record’s own unit when the unit cannot be read', () => {
    expect(grade('ALT', 130, 'Karmen units', '0-40')).toMatchObject({
      grade: 2,
      value: 130,
      outOfRange: true,
    });
    expect(grade('ALT', 130, 'Karmen units', '0-40').unit).toBe('Karmen units');
    expect(grade('ALT', 130, undefined, '0-40').grade).toBe(2);
  });

  it('gives no grade where an absolute threshold needs a unit it cannot read', () => {
    expect(grade('血钾', 6.5, undefined, '3.5-5.3')).toMatchObject({
      outOfRange: true,
      grade: null,
      reasonCode: 'unknownUnit',
    });
    expect(grade('血小板', 40, 'per bucket', '100-300')).toMatchObject({
      outOfRange: true,
      grade: null,
      reasonCode: 'unknownUnit',
    });
    expect(grade('血钾', 6.5, undefined)).toMatchObject({
      outOfRange: false,
      grade: null,
      reasonCode: 'unknownUnit',
    });
  });

  it('treats an impossible value for the unit as a unit error, not a grade', () => {
    // a real sender's CBC: haemoglobin 12.5 'g/mL' with range '13 to 18'
    expect(grade('Hemoglobin', 12.5, 'g/mL', '13-18')).toMatchObject({
      outOfRange: true,
      grade: null,
      reasonCode: 'implausible',
    });
    expect(grade('血钾', 45, 'mmol/L', '3.5-5.3')).toMatchObject({ grade: null, reasonCode: 'implausible' });
  });

  it('reads the notes v5.0 attaches: symptoms, baseline, clinical grades', () => {
    expect(grade('血钾', 3.1, 'mmol/L', '3.5-5.3')).toMatchObject({
      grade: 1,
      reasonCode: 'symptomsNotKnown',
    });
    expect(grade('血钠', 127, 'mmol/L', '137-147')).toMatchObject({
      grade: 2,
      reasonCode: 'symptomsNotKnown',
    });
    expect(grade('Lipase', 200, 'U/L', '0-60')).toMatchObject({ grade: 2, reasonCode: 'symptomsNotKnown' });
    expect(grade('血红蛋白', 70, 'g/L', '130-175')).toMatchObject({ grade: 3, reasonCode: 'clinicalGrade' });
    expect(grade('INR', 1.8, undefined, '0.8-1.2')).toMatchObject({
      grade: 2,
      reasonCode: 'baselineNotKnown',
    });
    expect(grade('血小板', 60, '10^9/L', '125-350').reasonCode).toBeUndefined();
  });

  it('an out-of-range side CTCAE has no term for, or grades only clinically: out of range, no grade', () => {
    expect(grade('ALT', 3, 'U/L', '7-40')).toMatchObject({
      direction: 'low',
      outOfRange: true,
      grade: null,
      reasonCode: 'noCtcaeTerm',
      ctcaeTerm: { en: 'Alanine aminotransferase', zh: '丙氨酸氨基转移酶' },
    });
    expect(grade('血小板', 600, '10^9/L', '125-350')).toMatchObject({
      direction: 'high',
      grade: null,
      reasonCode: 'noCtcaeTerm',
    });
    expect(grade('空腹血糖', 15, 'mmol/L', '3.9-6.1')).toMatchObject({
      ctcaeTerm: { en: 'Hyperglycemia', zh: '高血糖' },
      outOfRange: true,
      grade: null,
      reasonCode: 'clinicalOnly',
    });
  });

  it('in range: grade 0, and the direction of the nearer limit', () => {
    expect(grade('血钾', 3.7, 'mmol/L', '3.5-5.3')).toMatchObject({
      outOfRange: false,
      grade: 0,
      direction: 'low',
      ctcaeTerm: { en: 'Hypokalemia' },
    });
    expect(grade('血钾', 5.0, 'mmol/L', '3.5-5.3')).toMatchObject({
      outOfRange: false,
      grade: 0,
      direction: 'high',
    });
    expect(grade('ALT', 20, 'U/L', '7-40')).toMatchObject({ outOfRange: false, grade: 0, direction: 'high' });
  });

  it('a v5.0 absolute threshold inside a wide lab range still grades (triglycerides from 150 mg/dL, INR above 1.2)', () => {
    expect(grade('Triglycerides', 160, 'mg/dL', '0-200')).toMatchObject({ outOfRange: false, grade: 1 });
    expect(grade('INR', 1.25, undefined, '0.8-1.3')).toMatchObject({ outOfRange: false, grade: 1 });
  });
});

describe('values written as bounds', () => {
  it('grades exactly when every value below/above the bound has one grade', () => {
    expect(grade('中性粒细胞绝对值', '<0.5', '10^9/L', '1.8-6.3')).toMatchObject({
      grade: 4,
      comparator: '<',
      outOfRange: true,
    });
    expect(grade('ALT', '>1000', 'U/L', '0-40')).toMatchObject({ grade: 4, comparator: '>' });
    expect(grade('血钾', '<2.0', 'mmol/L', '3.5-5.3')).toMatchObject({ grade: 4, direction: 'low' });
    expect(grade('ALT', '<5', 'U/L', '0-40')).toMatchObject({ grade: 0, outOfRange: false });
  });

  it('gives the least grade when the bound straddles a threshold', () => {
    expect(grade('中性粒细胞绝对值', '<0.6', '10^9/L', '1.8-6.3')).toMatchObject({
      grade: 3,
      gradeIsMinimum: true,
      reasonCode: 'censored',
    });
    expect(grade('Triglycerides', '>200', 'mg/dL', '<150')).toMatchObject({
      grade: 1,
      gradeIsMinimum: true,
      outOfRange: true,
    });
  });

  it('cannot tell in from out when the bound straddles a limit', () => {
    expect(grade('血钾', '<4', 'mmol/L', '3.5-5.3')).toMatchObject({
      outOfRange: false,
      grade: null,
      reasonCode: 'censored',
    });
  });

  it('reads a flag written with the value', () => {
    expect(grade('血钾', '2.8↓', 'mmol/L', '3.5-5.3')).toMatchObject({ value: 2.8, flag: 'L', grade: 3 });
  });
});

describe('no range in the record', () => {
  it('falls back to the typical adult range, widest of both sexes when the sex is not known', () => {
    expect(grade('血红蛋白', 120, 'g/L')).toMatchObject({
      rangeSource: 'fallback',
      low: 115,
      high: 175,
      outOfRange: false,
      grade: 0,
    });
    const male = gradeLab(sqlRecord('血红蛋白', 120, 'g/L'), { sex: 'male' });
    expect(male).toMatchObject({ rangeSource: 'fallback', low: 130, high: 175, outOfRange: true, grade: 1 });
    expect(gradeLab(sqlRecord('ALT', 45, 'U/L'), { sex: 'female' })).toMatchObject({ high: 40, grade: 1 });
    expect(grade('ALT', 45, 'U/L')).toMatchObject({ high: 50, grade: 0 });
  });

  it("trusts the record's flag over the fallback", () => {
    // flagged high, but within the fallback: out of range, at least grade 1
    expect(gradeLab(sqlRecord('ALT', 45, 'U/L', undefined, { flag: 'H' }))).toMatchObject({
      outOfRange: true,
      flag: 'H',
      grade: 1,
      reasonCode: 'flagOnly',
      rangeSource: 'fallback',
    });
    // flagged normal, beyond the fallback: the lab's own range says normal
    expect(gradeLab(sqlRecord('ALT', 60, 'U/L', undefined, { flag: 'N' }))).toMatchObject({
      outOfRange: false,
      grade: 0,
      rangeSource: 'none',
    });
    // a flag written with the value
    expect(grade('血钾', '5.2↑', 'mmol/L')).toMatchObject({
      outOfRange: true,
      grade: 1,
      reasonCode: 'flagOnly',
    });
  });

  it("and when the record's bounds say in range but its flag says out (sex-specific range read as the widest)", () => {
    const rec = sqlRecord('血红蛋白', 120, 'g/L', '男:130-175 女:115-150', { flag: 'L' });
    expect(gradeLab(rec)).toMatchObject({
      outOfRange: true,
      grade: 1,
      reasonCode: 'flagOnly',
      rangeSource: 'record',
    });
    expect(gradeLab(rec, { sex: 'male' })).toMatchObject({ outOfRange: true, grade: 1, low: 130 });
  });

  it('no fallback (aPTT depends on the reagent): in or out cannot be told', () => {
    expect(grade('APTT', 80, 's')).toMatchObject({
      outOfRange: false,
      grade: null,
      reasonCode: 'noRange',
      rangeSource: 'none',
    });
    expect(gradeLab(sqlRecord('APTT', 80, 's', undefined, { flag: 'H' }))).toMatchObject({
      outOfRange: true,
      grade: 1,
      reasonCode: 'flagOnly',
    });
  });
});

describe('analytes not in the table', () => {
  it('out of its own range: out of range, no grade, the record’s name as the term', () => {
    expect(grade('C反应蛋白', 25, 'mg/L', '0-10')).toEqual({
      analyteId: 'name:c反应蛋白',
      known: false,
      ctcaeTerm: { en: 'C反应蛋白', zh: 'C反应蛋白' },
      direction: 'high',
      value: 25,
      unit: 'mg/L',
      low: 0,
      high: 10,
      rangeSource: 'record',
      outOfRange: true,
      grade: null,
      reasonCode: 'notInTable',
      reason: 'out of range; CTCAE v5.0 does not grade this analyte by value',
    });
    const coded = gradeLab({ ...sqlRecord('LDH', 400, 'U/L', '120-250'), code: '2532-0' });
    expect(coded).toMatchObject({ analyteId: 'code:2532-0', outOfRange: true, grade: null });
  });

  it('in range: grade 0; without a range or flag: nothing to say', () => {
    expect(grade('C反应蛋白', 5, 'mg/L', '0-10')).toMatchObject({ outOfRange: false, grade: 0 });
    expect(grade('C反应蛋白', 5, 'mg/L')).toMatchObject({
      outOfRange: false,
      grade: null,
      reasonCode: 'noRange',
      rangeSource: 'none',
    });
    expect(gradeLab(sqlRecord('C反应蛋白', 5, 'mg/L', undefined, { 异常标志: 'H' }))).toMatchObject({
      outOfRange: true,
      grade: null,
    });
  });

  it('a percentage of a count is not the count', () => {
    expect(grade('中性粒细胞(%)', 40, '%', '50-70')).toMatchObject({
      known: false,
      outOfRange: true,
      grade: null,
    });
    expect(grade('中性粒细胞', 40, '%', '50-70')).toMatchObject({ known: false, reasonCode: 'notInTable' });
  });
});

describe('records that are not numeric lab results', () => {
  it('are not assessed', () => {
    expect(gradeLab({ ...sqlRecord('Heart rate', 130, '/min', '60-100'), docType: 7 })).toBeNull();
    expect(gradeLab({ ...sqlRecord('Diagnosis', 1), docType: 8 })).toBeNull();
    expect(gradeLab(sqlRecord('乙肝表面抗原', '阴性', undefined, '阴性'))).toBeNull();
    expect(gradeLab(sqlRecord('Titer', '1:128'))).toBeNull();
    expect(gradeLab({ rawFormat: 'sql', raw: '{}', display: 'ALT' })).toBeNull();
  });

  it('never throws, whatever the record holds', () => {
    const junk: LabRecordInput[] = [
      { rawFormat: 'fhir', raw: '{', valueNum: 5, display: 'ALT' },
      { rawFormat: 'hl7v2', raw: 'OBX', valueNum: 5, code: '1742-6', codeSystem: 'LN' },
      { rawFormat: 'sql', raw: 'null', valueText: '<', display: '钾' },
      { rawFormat: 'ocr', raw: '[]', valueText: '∞', display: '钾' },
      { rawFormat: 'sql', raw: '{"range":"-"}', valueNum: -1, display: '血小板', unit: '10^9/L' },
      { rawFormat: 'sql', raw: '{"range":"5-"}', valueNum: 1e308, display: 'ALT', unit: 'U/L' },
      { rawFormat: 'sql', raw: '{"ref_low": 0, "ref_high": 0}', valueNum: 0, display: 'ALT', unit: 'U/L' },
      { rawFormat: 'other', raw: undefined, valueNum: 1, display: undefined, code: undefined },
    ];
    for (const r of junk) expect(() => gradeLab(r)).not.toThrow();
    // and random text in every field, every format (a fixed seed: the same cases on every run)
    let seed = 42;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabet = [
      '{',
      '}',
      '[',
      ']',
      '"',
      ':',
      ',',
      '|',
      '^',
      '~',
      '\\',
      '\r',
      '-',
      '<',
      '>',
      '.',
      '0',
      '5',
      '9',
      'e',
      'H',
      'L',
      '钾',
      '男',
      ' ',
      'referenceRange',
      'low',
      'range',
      'OBX',
      'value',
    ];
    const text = () =>
      Array.from(
        { length: Math.floor(rnd() * 30) },
        () => alphabet[Math.floor(rnd() * alphabet.length)],
      ).join('');
    const formats = ['fhir', 'hl7v2', 'sql', 'ocr'];
    for (let i = 0; i < 2000; i++) {
      const r: LabRecordInput = {
        rawFormat: formats[i % 4]!,
        raw: i % 4 === 1 ? `OBX|1|NM|${text()}||${text()}|${text()}|${text()}|${text()}` : text(),
        display: i % 3 ? text() : '血钾',
        valueText: i % 2 ? text() : undefined,
        valueNum: i % 2 ? undefined : rnd() * 10,
        unit: i % 5 ? text() : 'mmol/L',
      };
      expect(() => gradeLab(r), JSON.stringify(r)).not.toThrow();
    }
    expect(
      gradeLab({
        rawFormat: 'sql',
        raw: '{"ref_low": 0, "ref_high": 0}',
        valueNum: 0,
        display: 'ALT',
        unit: 'U/L',
      }),
    ).toMatchObject({ grade: 0 });
  });
});

describe('real records', () => {
  const fromFhir = (resource: unknown): ExtractedRecord => {
    const c = convertFhirResource(resource, {}, { resolvePatient: () => 'p1' });
    if (c.kind !== 'records') throw new Error('not a record');
    return c.records[0]!;
  };

  it('Synthea Observations (no range: the fallback)', () => {
    const byCode = new Map(synthea.map((o) => [o.code.coding[0]!.code, gradeLab(fromFhir(o))]));
    expect(byCode.get('718-7')).toMatchObject({
      analyteId: 'hemoglobin',
      value: 114.032,
      unit: 'g/L',
      rangeSource: 'fallback',
      low: 115,
      outOfRange: true,
      grade: 1,
      ctcaeTerm: { en: 'Anemia', zh: '贫血' },
    });
    expect(byCode.get('2339-0')).toMatchObject({
      analyteId: 'glucose',
      value: 3.56106,
      unit: 'mmol/L',
      outOfRange: true,
      grade: 1,
      ctcaeTerm: { en: 'Hypoglycemia' },
    });
    expect(byCode.get('1742-6')).toMatchObject({
      analyteId: 'alt',
      value: 53.15379074493643,
      high: 50,
      outOfRange: true,
      grade: 1,
      ratio: 1.06,
    });
    expect(byCode.get('777-3')).toMatchObject({
      analyteId: 'platelets',
      value: 150.80577147329788,
      outOfRange: false,
      grade: 0,
    });
  });

  it('an Observation with its own range and interpretation', () => {
    const o = {
      ...synthea[1],
      valueQuantity: { value: 7.4, unit: 'g/dL', system: 'http://unitsofmeasure.org', code: 'g/dL' },
      referenceRange: [{ low: { value: 13.5, unit: 'g/dL' }, high: { value: 17.5, unit: 'g/dL' } }],
      interpretation: [{ coding: [{ code: 'L' }] }],
    };
    expect(gradeLab(fromFhir(o))).toMatchObject({
      rangeSource: 'record',
      low: 135,
      high: 175,
      flag: 'L',
      grade: 3,
      value: 74,
    });
  });

  it('an Observation whose range is in another unit than its value', () => {
    const o = {
      ...synthea[1],
      valueQuantity: { value: 95, unit: 'g/L', system: 'http://unitsofmeasure.org', code: 'g/L' },
      referenceRange: [
        { low: { value: 12, unit: 'g/dL', code: 'g/dL' }, high: { value: 16, unit: 'g/dL', code: 'g/dL' } },
      ],
    };
    expect(gradeLab(fromFhir(o))).toMatchObject({ low: 120, high: 160, grade: 2, value: 95 });
  });

  it('HL7 v2 CBC from a US sender (cells/µL, "4300 to 10800", HH)', () => {
    const recs = parseHl7(
      fs.readFileSync(
        path.resolve(import.meta.dirname, '../../test-fixtures/hl7v2/LRI_2.0-NG_CBC_Typ_Message.hl7'),
      ),
    ).records;
    const by = new Map(recs.map((r) => [r.code, gradeLab(r)]));
    expect(by.get('26464-8')).toMatchObject({
      analyteId: 'wbc',
      ctcaeTerm: { en: 'Leukocytosis', zh: '白细胞增多' },
      value: 105.6,
      unit: '10*9/L',
      low: 4.3,
      high: 10.8,
      flag: 'HH',
      outOfRange: true,
      grade: 3,
    });
    expect(by.get('26515-7')).toMatchObject({
      analyteId: 'platelets',
      value: 210,
      outOfRange: false,
      grade: 0,
    });
    expect(by.get('718-7')).toMatchObject({
      analyteId: 'hemoglobin',
      outOfRange: true,
      grade: null,
      reasonCode: 'implausible',
    }); // 12.5 g/mL
    expect(by.get('26453-1')).toMatchObject({ known: false, outOfRange: false, grade: 0 }); // erythrocytes: not graded
  });

  it('HL7 v2 glucose with a structured numeric value and "70_105"', () => {
    const rec = parseHl7(
      fs.readFileSync(path.resolve(import.meta.dirname, '../../test-fixtures/hl7v2/ORU-R01-RMGEAD.hl7')),
    ).records.find((r) => r.resourceType === 'OBX')!;
    expect(gradeLab(rec)).toMatchObject({
      analyteId: 'glucose',
      direction: 'high',
      outOfRange: true,
      grade: null,
      reasonCode: 'clinicalOnly',
    });
  });

  it('HL7 v2 from a Chinese laboratory system', () => {
    const msg = [
      'MSH|^~\\&|LIS|HOSP|ESOURCE|HOSP|20240301083000||ORU^R01|MSG0001|P|2.5',
      'PID|1||MRN001^^^HOSP^MR||张^三||19700101|M',
      'OBR|1||LAB001|01^血常规',
      'OBX|1|NM|WBC^白细胞计数^L||1.8|10\\S\\9/L|3.5-9.5|L|||F', // '^' escaped, as HL7 requires
      'OBX|2|NM|NEUT#^中性粒细胞绝对值^L||0.4|x10E9/L|1.8-6.3|LL|||F',
      'OBX|3|NM|HGB^血红蛋白^L||92|g/L|130-175|L|||F',
      'OBX|4|NM|PLT^血小板计数^L||68|×10*9/L|125-350|L|||F',
      'OBX|5|NM|ALT^丙氨酸氨基转移酶^L||156|U/L|9-50|H|||F',
      'OBX|6|NM|K^钾^L||3.1|mmol/L|3.5～5.3|L|||F',
      'OBX|7|NM|CRP^C反应蛋白^L||35|mg/L|0-10|H|||F',
    ].join('\r');
    const graded = parseHl7(msg).records.map((r) => gradeLab(r));
    expect(graded.map((g) => [g?.analyteId, g?.grade, g?.ctcaeTerm.zh])).toEqual([
      ['wbc', 3, '白细胞计数降低'],
      ['neutrophils', 4, '中性粒细胞计数降低'],
      ['hemoglobin', 2, '贫血'],
      ['platelets', 2, '血小板计数降低'],
      ['alt', 2, '丙氨酸氨基转移酶增高'],
      ['potassium', 1, '低钾血症'],
      ['code:CRP', null, 'C反应蛋白'],
    ]);
  });

  it('an OCR result', () => {
    const raw = JSON.stringify({
      fileId: 3,
      name: '肌酐',
      value: '420',
      unit: 'μmol/L',
      range: '57-111',
      flag: 'H',
    });
    expect(
      gradeLab({ rawFormat: 'ocr', raw, display: '肌酐', valueNum: 420, unit: 'umol/L', docType: 3 }),
    ).toMatchObject({
      analyteId: 'creatinine',
      grade: 3,
      ratio: 3.78,
    });
  });
});
