import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { convertFhirResource } from '../fhir/fhir-to-records';
import { parseHl7 } from '../hl7/hl7-to-records';
import type { ExtractedRecord } from '../source-record';
import { parseRangeText, referenceRange } from './reference-range';

const HL7 = path.resolve(import.meta.dirname, '../../test-fixtures/hl7v2');
const hl7Records = (file: string): ExtractedRecord[] =>
  parseHl7(fs.readFileSync(path.join(HL7, file))).records;

describe('parseRangeText', () => {
  it('reads the ways a range is written', () => {
    const cases: [string, { low?: number; high?: number }][] = [
      ['3.5-5.0', { low: 3.5, high: 5 }],
      ['3.5 - 5.0', { low: 3.5, high: 5 }],
      ['3.5~5.0', { low: 3.5, high: 5 }],
      ['3.5～5.0', { low: 3.5, high: 5 }], // full-width tilde
      ['3.5--5.0', { low: 3.5, high: 5 }],
      ['3.5–5.0', { low: 3.5, high: 5 }], // en dash
      ['3.5—5.0', { low: 3.5, high: 5 }], // em dash
      ['3.5－5.0', { low: 3.5, high: 5 }], // full-width hyphen
      ['4.3 to 6.2', { low: 4.3, high: 6.2 }],
      ['70_105', { low: 70, high: 105 }],
      ['3.5至5.0', { low: 3.5, high: 5 }],
      ['(3.5-5.0)', { low: 3.5, high: 5 }],
      ['[3.5-5.0]', { low: 3.5, high: 5 }],
      ['（3.5-5.0）', { low: 3.5, high: 5 }],
      ['3.5-5.3 mmol/L', { low: 3.5, high: 5.3 }],
      ['3.5-9.5 ×10^9/L', { low: 3.5, high: 9.5 }],
      ['150,000-350,000', { low: 150000, high: 350000 }],
      ['4300 to 10800', { low: 4300, high: 10800 }],
      ['-3-3', { low: -3, high: 3 }],
      ['-3~+3', { low: -3, high: 3 }],
      ['0-40', { low: 0, high: 40 }],
      ['<5', { high: 5 }],
      ['< 5.0', { high: 5 }],
      ['≤40', { high: 40 }],
      ['<=40', { high: 40 }],
      ['＜5.2', { high: 5.2 }],
      ['小于5.2', { high: 5.2 }],
      ['>10', { low: 10 }],
      ['≥ 60', { low: 60 }],
      ['>=60', { low: 60 }],
      ['大于60', { low: 60 }],
    ];
    for (const [text, want] of cases) expect(parseRangeText(text), text).toEqual(want);
  });

  it('gives no bounds for text that is not a range, or a range written backwards', () => {
    for (const t of ['阴性', 'Negative', 'neg', '-', '', '   ', 'see comment', '5.0-3.5', 'abc-def'])
      expect(parseRangeText(t), t).toEqual({});
  });

  it("picks the patient's sex from a sex-specific range, else the widest", () => {
    const t = '男:130-175 女:115-150';
    expect(parseRangeText(t, { sex: 'male' })).toEqual({ low: 130, high: 175 });
    expect(parseRangeText(t, { sex: 'female' })).toEqual({ low: 115, high: 150 });
    expect(parseRangeText(t)).toEqual({ low: 115, high: 175 });
    expect(parseRangeText('男性 57～111；女性 41～81', { sex: 'female' })).toEqual({ low: 41, high: 81 });
    expect(parseRangeText('M 13-17 F 12-15', { sex: 'male' })).toEqual({ low: 13, high: 17 });
    expect(parseRangeText('Male: 0.7-1.3; Female: 0.6-1.1', { sex: 'female' })).toEqual({
      low: 0.6,
      high: 1.1,
    });
    expect(parseRangeText('Male: 0.7-1.3; Female: 0.6-1.1')).toEqual({ low: 0.6, high: 1.3 });
  });
});

describe('referenceRange: HL7 v2 (OBX-7, OBX-8)', () => {
  const obx = (range: string, flag: string) =>
    referenceRange({
      rawFormat: 'hl7v2',
      raw: `OBX|1|NM|2823-3^Potassium^LN||6.1|mmol/L|${range}|${flag}|||F\rNTE|1||comment`,
    });

  it('reads the range and the flag of the segment group', () => {
    expect(obx('3.5-5.0', 'H')).toEqual({ low: 3.5, high: 5, text: '3.5-5.0', flag: 'H' });
    expect(obx('<5', '')).toEqual({ high: 5, text: '<5' });
    expect(obx('>10', 'L')).toEqual({ low: 10, text: '>10', flag: 'L' });
    expect(obx('3.5~5.0', 'HH')).toEqual({ low: 3.5, high: 5, text: '3.5~5.0', flag: 'HH' });
    expect(obx('3.5--5.0', 'LL')).toEqual({ low: 3.5, high: 5, text: '3.5--5.0', flag: 'LL' });
    expect(obx('', 'A^A^HL70078^^^^2.5')).toEqual({ flag: 'A' }); // CWE flag (v2.7+)
    expect(obx('', 'D~H')).toEqual({ flag: 'H' }); // repetitions: the first range flag
    expect(obx('', '')).toBeNull();
  });

  it('unescapes OBX-7', () => {
    expect(referenceRange({ rawFormat: 'hl7v2', raw: 'OBX|1|NM|X^Y||1|U/L|10\\T\\20|N' })?.text).toBe(
      '10&20',
    );
  });

  it('reads the messages of real senders', () => {
    const cbc = hl7Records('LRI_2.0-NG_CBC_Typ_Message.hl7');
    const byCode = new Map(cbc.map((r) => [r.code, referenceRange(r)]));
    expect(byCode.get('26464-8')).toEqual({ low: 4300, high: 10800, text: '4300 to 10800', flag: 'HH' });
    expect(byCode.get('718-7')).toEqual({ low: 13, high: 18, text: '13 to 18', flag: 'L' });
    expect(byCode.get('26515-7')).toEqual({ low: 150000, high: 350000, text: '150000 to 350000', flag: 'N' });
    const glucose = hl7Records('ORU-R01-RMGEAD.hl7').find((r) => r.resourceType === 'OBX')!;
    expect(referenceRange(glucose)).toEqual({ low: 70, high: 105, text: '70_105', flag: 'H' });
    const noRange = hl7Records('LAB-ORU-2.hl7').find((r) => r.code === '20509-6')!;
    expect(referenceRange(noRange)).toEqual({ flag: 'N' });
  });

  it('never throws on a malformed group', () => {
    for (const raw of [
      '',
      'OBX',
      'OBX|',
      'PID|1||x',
      'OBXX1',
      '\rOBX',
      'OBX 1 NM',
      'OBX|1|NM|||||'.repeat(3),
    ])
      expect(() => referenceRange({ rawFormat: 'hl7v2', raw })).not.toThrow();
    expect(referenceRange({ rawFormat: 'hl7v2', raw: 'PID|1||x' })).toBeNull();
  });
});

describe('referenceRange: FHIR Observation', () => {
  const base = {
    resourceType: 'Observation',
    id: 'o1',
    status: 'final',
    subject: { reference: 'Patient/p1' },
    code: { coding: [{ system: 'http://loinc.org', code: '718-7', display: 'Hemoglobin' }] },
    valueQuantity: { value: 9.1, unit: 'g/dL', system: 'http://unitsofmeasure.org', code: 'g/dL' },
  };
  const fhir = (extra: Record<string, unknown>, sex?: 'male' | 'female') => {
    const res = { ...base, ...extra };
    const c = convertFhirResource(res);
    if (c.kind !== 'records') throw new Error('no record');
    return referenceRange(c.records[0]!, sex ? { sex } : {});
  };

  it('reads low, high, text and the interpretation', () => {
    expect(
      fhir({
        referenceRange: [
          {
            low: { value: 12, unit: 'g/dL', code: 'g/dL' },
            high: { value: 16, unit: 'g/dL' },
            text: '12-16 g/dL',
          },
        ],
        interpretation: [
          {
            coding: [
              { system: 'http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation', code: 'L' },
            ],
          },
        ],
      }),
    ).toEqual({ low: 12, high: 16, text: '12-16 g/dL', flag: 'L', unit: 'g/dL' });
  });

  it('cuts the range out correctly when its text holds brackets, braces and escaped quotes', () => {
    const text = 'adult [fasting] {"x"} \\ "12.0-16.0" ]}';
    expect(
      fhir({
        referenceRange: [{ low: { value: 12 }, high: { value: 16 }, text }],
        note: [{ text: '"referenceRange" in a note' }],
      }),
    ).toEqual({
      low: 12,
      high: 16,
      text,
    });
  });

  it('reads a range given only as text, and an interpretation given only as text', () => {
    expect(fhir({ referenceRange: [{ text: '12.0-16.0' }], interpretation: [{ text: 'Low' }] })).toEqual({
      low: 12,
      high: 16,
      text: '12.0-16.0',
      flag: 'L',
    });
  });

  it('uses the normal range, not a therapeutic one, and the one for the patient’s sex', () => {
    const ranges = [
      { type: { coding: [{ code: 'treatment' }] }, low: { value: 7 }, high: { value: 9 } },
      {
        appliesTo: [{ coding: [{ system: 'http://snomed.info/sct', code: '248153007' }] }],
        low: { value: 13 },
        high: { value: 17 },
      },
      {
        appliesTo: [{ coding: [{ system: 'http://snomed.info/sct', code: '248152002' }] }],
        low: { value: 12 },
        high: { value: 15 },
      },
    ];
    expect(fhir({ referenceRange: ranges }, 'male')).toMatchObject({ low: 13, high: 17 });
    expect(fhir({ referenceRange: ranges }, 'female')).toMatchObject({ low: 12, high: 15 });
    expect(fhir({ referenceRange: ranges })).toMatchObject({ low: 12, high: 17 }); // sex unknown: the widest
  });

  it("reads a component record's own range", () => {
    const panel = {
      ...base,
      valueQuantity: undefined,
      code: {
        coding: [{ system: 'http://loinc.org', code: '24323-8', display: 'Comprehensive metabolic panel' }],
      },
      component: [
        {
          code: { coding: [{ system: 'http://loinc.org', code: '2823-3' }] },
          valueQuantity: { value: 6.2, unit: 'mmol/L' },
          referenceRange: [{ low: { value: 3.5 }, high: { value: 5.1 } }],
        },
        {
          code: { coding: [{ system: 'http://loinc.org', code: '2951-2' }] },
          valueQuantity: { value: 128, unit: 'mmol/L' },
          referenceRange: [{ low: { value: 136 }, high: { value: 145 } }],
          interpretation: [{ coding: [{ code: 'L' }] }],
        },
      ],
    };
    const c = convertFhirResource(panel);
    if (c.kind !== 'records') throw new Error('no records');
    expect(c.records.map((r) => referenceRange(r))).toEqual([
      { low: 3.5, high: 5.1 },
      { low: 136, high: 145, flag: 'L' },
    ]);
  });

  it('has nothing to say about a Synthea Observation (they carry no range)', () => {
    expect(fhir({})).toBeNull();
  });

  it('never throws on a malformed resource', () => {
    const raws = [
      '{not json',
      'null',
      '[]',
      '"x"',
      '{"referenceRange": "3.5-5"}',
      '{"referenceRange": [null, 1, "x", {"low": "3"}, {"low": {"value": "3.5"}}]}',
      '{"referenceRange": [{"low": {"value": 5}, "high": {"value": 3}}]}',
      '{"interpretation": [{"coding": "H"}]}',
      '{"component": [1, null], "referenceRange": [{}]}',
      '{"referenceRange": [{"appliesTo": "male", "type": 3, "text": 42}]}',
    ];
    for (const raw of raws) {
      expect(
        () => referenceRange({ rawFormat: 'fhir', raw, code: 'x', externalId: 'Observation/1#x' }),
        raw,
      ).not.toThrow();
    }
    expect(
      referenceRange({
        rawFormat: 'fhir',
        raw: '{"referenceRange": [{"low": {"value": 5}, "high": {"value": 3}}]}',
      }),
    ).toBeNull();
  });
});

describe('referenceRange: SQL rows and OCR results', () => {
  const sql = (row: Record<string, unknown>, sex?: 'male' | 'female') =>
    referenceRange({ rawFormat: 'sql', raw: JSON.stringify(row) }, sex ? { sex } : {});

  it('reads bound columns by their usual names, in English and Chinese', () => {
    expect(sql({ id: 1, ref_low: 3.5, ref_high: 5.3 })).toEqual({ low: 3.5, high: 5.3 });
    expect(sql({ REF_LOW: '3.5', REF_HIGH: '5.3' })).toEqual({ low: 3.5, high: 5.3 });
    expect(sql({ 'Reference Low': 3.5, 'Reference High': 5.3, 'Abnormal Flag': 'H' })).toEqual({
      low: 3.5,
      high: 5.3,
      flag: 'H',
    });
    expect(sql({ 参考下限: '3.5', 参考上限: '5.3', 异常标志: '↑' })).toEqual({
      low: 3.5,
      high: 5.3,
      flag: 'H',
    });
    expect(sql({ lower_limit: 0, upper_limit: 40 })).toEqual({ low: 0, high: 40 });
  });

  it('reads a range column as text', () => {
    expect(sql({ range: '3.5-5.3' })).toEqual({ low: 3.5, high: 5.3, text: '3.5-5.3' });
    expect(sql({ 参考范围: '3.5～5.3' })).toEqual({ low: 3.5, high: 5.3, text: '3.5～5.3' });
    expect(sql({ 参考值: '<40', 提示: '偏高' })).toEqual({ high: 40, text: '<40', flag: 'H' });
    expect(sql({ reference_range: '男:130-175 女:115-150' }, 'female')).toMatchObject({
      low: 115,
      high: 150,
    });
  });

  it('reads the stored OCR result the same way', () => {
    const raw = JSON.stringify({
      fileId: 1,
      region: { page: 1, x: 0, y: 0, width: 1, height: 1 },
      name: '血红蛋白',
      value: '85',
      unit: 'g/L',
      range: '130-175',
      flag: 'L',
    });
    expect(referenceRange({ rawFormat: 'ocr', raw })).toEqual({
      low: 130,
      high: 175,
      text: '130-175',
      flag: 'L',
    });
  });

  it('has nothing for a row without range columns, and never throws', () => {
    expect(sql({ patient_id: 'p1', value: 5 })).toBeNull();
    for (const raw of [
      '',
      '{',
      'null',
      '[1,2]',
      '{"ref_low": {"a": 1}, "ref_high": [1]}',
      '{"range": 5}',
      '{"flag": true}',
    ])
      expect(() => referenceRange({ rawFormat: 'sql', raw })).not.toThrow();
    expect(referenceRange({ rawFormat: 'sql', raw: '{"range": 5}' })).toEqual({ text: '5' });
    expect(referenceRange({ rawFormat: 'sql', raw: null })).toBeNull();
    expect(referenceRange({ rawFormat: 'csv', raw: '{"range":"1-2"}' })).toBeNull();
  });
});
