import { describe, expect, it } from 'vitest';
import { analyteByName, matchAnalyte, nameKey } from './analyte-match';
import { CTCAE_ANALYTES } from './ctcae-analytes';
import { unitFor } from './lab-units';

describe('the CTCAE v5.0 analyte table', () => {
  it('has the analytes the safety review needs', () => {
    const terms = CTCAE_ANALYTES.flatMap((a) => [a.high?.term.en, a.low?.term.en]).filter(Boolean);
    for (const t of [
      'Alanine aminotransferase increased',
      'Aspartate aminotransferase increased',
      'Blood bilirubin increased',
      'Alkaline phosphatase increased',
      'GGT increased',
      'Creatinine increased',
      'Anemia',
      'Hemoglobin increased',
      'Platelet count decreased',
      'White blood cell decreased',
      'Neutrophil count decreased',
      'Lymphocyte count decreased',
      'Lymphocyte count increased',
      'Hyperkalemia',
      'Hypokalemia',
      'Hypernatremia',
      'Hyponatremia',
      'Hypercalcemia',
      'Hypocalcemia',
      'Hypoglycemia',
      'Hypoalbuminemia',
      'Cholesterol high',
      'Hypertriglyceridemia',
      'Lipase increased',
      'Serum amylase increased',
      'CPK increased',
      'Hypermagnesemia',
      'Hypomagnesemia',
      'INR increased',
    ])
      expect(terms, t).toContain(t);
  });

  it('every analyte: a readable unit, LOINC codes, English and Chinese names, zh terms, a plausible span', () => {
    for (const a of CTCAE_ANALYTES) {
      const u = unitFor(a.unit, a);
      expect(u && u !== 'incompatible', a.id).toBe(true);
      expect(a.loinc.length, a.id).toBeGreaterThan(0);
      expect(
        a.names.some((n) => /[a-z]/.test(n)),
        a.id,
      ).toBe(true);
      expect(
        a.names.some((n) => /[\u4e00-\u9fff]/.test(n)),
        a.id,
      ).toBe(true);
      expect(/[\u4e00-\u9fff]/.test(a.name.zh), a.id).toBe(true);
      for (const r of [a.high, a.low]) if (r) expect(/[\u4e00-\u9fff]/.test(r.term.zh), r.term.en).toBe(true);
      expect(a.plausible[0]).toBeLessThan(a.plausible[1]);
      for (const b of [a.fallback, a.fallback?.male, a.fallback?.female]) {
        if (b?.low !== undefined) expect(b.low, a.id).toBeGreaterThanOrEqual(a.plausible[0]);
        if (b?.high !== undefined) expect(b.high, a.id).toBeLessThanOrEqual(a.plausible[1]);
        if (b?.low !== undefined && b.high !== undefined) expect(b.low, a.id).toBeLessThan(b.high);
      }
    }
  });

  it('no LOINC code and no name belongs to two analytes', () => {
    const codes = new Map<string, string>();
    const names = new Map<string, string>();
    for (const a of CTCAE_ANALYTES) {
      for (const c of a.loinc) {
        expect(codes.get(c) ?? a.id, `${c} in ${a.id} and ${codes.get(c)}`).toBe(a.id);
        codes.set(c, a.id);
        expect(c).toMatch(/^\d{1,7}-\d$/);
      }
      for (const n of a.names) {
        const k = nameKey(n);
        expect(names.get(k) ?? a.id, `${n} in ${a.id} and ${names.get(k)}`).toBe(a.id);
        names.set(k, a.id);
      }
    }
  });

  it('grade steps run from grade 4 down, ×ULN steps on the high side, ×LLN on the low side', () => {
    for (const a of CTCAE_ANALYTES) {
      for (const [side, rule] of [
        ['high', a.high],
        ['low', a.low],
      ] as const) {
        for (const g of rule?.grading ?? []) {
          const grades = g.steps.map((s) => s.grade);
          expect(
            [...grades].sort((x, y) => y - x),
            `${a.id} ${side}`,
          ).toEqual(grades);
          for (const s of g.steps) {
            expect(side === 'high' ? ['>', '>='] : ['<', '<='], `${a.id} ${side}`).toContain(s.op);
            if (s.of) expect(s.of, `${a.id} ${side}`).toBe(side === 'high' ? 'ULN' : 'LLN');
            expect(s.abs !== undefined || s.of !== undefined, `${a.id} ${side}`).toBe(true);
            if (s.abs !== undefined)
              expect(g.unit, `${a.id} ${side}: an absolute bound needs a unit`).toBeDefined();
          }
        }
      }
    }
  });
});

describe('matching a record to an analyte', () => {
  it('by LOINC code (serum, plasma and blood variants)', () => {
    const loinc = 'http://loinc.org';
    const cases: [string, string][] = [
      ['1742-6', 'alt'],
      ['1920-8', 'ast'],
      ['718-7', 'hemoglobin'],
      ['20509-6', 'hemoglobin'],
      ['777-3', 'platelets'],
      ['26515-7', 'platelets'],
      ['6690-2', 'wbc'],
      ['26464-8', 'wbc'],
      ['751-8', 'neutrophils'],
      ['2160-0', 'creatinine'],
      ['38483-4', 'creatinine'],
      ['6298-4', 'potassium'],
      ['2823-3', 'potassium'],
      ['2339-0', 'glucose'],
      ['2345-7', 'glucose'],
      ['49765-1', 'calcium'],
      ['1994-3', 'calcium-ionized'],
      ['6301-6', 'inr'],
    ];
    for (const [code, id] of cases) expect(matchAnalyte({ code, codeSystem: loinc })?.id, code).toBe(id);
  });

  it('a LOINC code the table does not list is not matched by its name (urine creatinine, HbA1c, MCHC)', () => {
    const loinc = 'http://loinc.org';
    expect(matchAnalyte({ code: '2161-8', codeSystem: loinc, display: 'Creatinine' })).toBeUndefined();
    expect(
      matchAnalyte({
        code: '4548-4',
        codeSystem: loinc,
        display: 'Hemoglobin A1c/Hemoglobin.total in Blood',
      }),
    ).toBeUndefined();
    expect(
      matchAnalyte({ code: '786-4', codeSystem: loinc, display: 'MCHC [Mass/volume] by Automated count' }),
    ).toBeUndefined();
    expect(
      matchAnalyte({ code: '23761-0', codeSystem: 'LN', display: 'NEUTROPHILS/100 LEUKOCYTES' }),
    ).toBeUndefined();
  });

  it('by a local code or a display, English LOINC-style and Chinese', () => {
    const cases: [string, string][] = [
      ['谷丙转氨酶', 'alt'],
      ['丙氨酸氨基转移酶', 'alt'],
      ['丙氨酸氨基转移酶(ALT)', 'alt'],
      ['ALT(谷丙转氨酶)', 'alt'],
      ['ALT/GPT', 'alt'],
      ['*ALT', 'alt'],
      ['Alanine aminotransferase [Enzymatic activity/volume] in Serum or Plasma', 'alt'],
      ['谷草转氨酶(AST)', 'ast'],
      ['天冬氨酸氨基转移酶', 'ast'],
      ['γ-谷氨酰转移酶', 'ggt'],
      ['γ-GT', 'ggt'],
      ['总胆红素', 'bilirubin'],
      ['T-BIL', 'bilirubin'],
      ['Bilirubin, Total', 'bilirubin'],
      ['肌酐', 'creatinine'],
      ['Cr', 'creatinine'],
      ['肌酐(酶法)', 'creatinine'],
      ['血红蛋白', 'hemoglobin'],
      ['HGB', 'hemoglobin'],
      ['Hb', 'hemoglobin'],
      ['血红蛋白测定', 'hemoglobin'],
      ['HEMOGLOBIN', 'hemoglobin'],
      ['血小板', 'platelets'],
      ['血小板计数(PLT)', 'platelets'],
      ['PLATELETS', 'platelets'],
      ['Platelets [#/volume] in Blood by Automated count', 'platelets'],
      ['白细胞', 'wbc'],
      ['WBC', 'wbc'],
      ['LEUKOCYTES', 'wbc'],
      ['中性粒细胞绝对值', 'neutrophils'],
      ['NEUT#', 'neutrophils'],
      ['淋巴细胞绝对值', 'lymphocytes'],
      ['LYMPH#', 'lymphocytes'],
      ['血钾', 'potassium'],
      ['钾', 'potassium'],
      ['钾(K)', 'potassium'],
      ['K+', 'potassium'],
      ['Potassium, Serum', 'potassium'],
      ['血钠', 'sodium'],
      ['钠(Na)', 'sodium'],
      ['Calcium, Ionized', 'calcium-ionized'],
      ['离子钙', 'calcium-ionized'],
      ['血钙', 'calcium'],
      ['GLUCOSE', 'glucose'],
      ['空腹血糖', 'glucose'],
      ['白蛋白', 'albumin'],
      ['总胆固醇', 'cholesterol'],
      ['甘油三酯', 'triglycerides'],
      ['脂肪酶', 'lipase'],
      ['血清淀粉酶', 'amylase'],
      ['肌酸激酶', 'ck'],
      ['CK', 'ck'],
      ['血镁', 'magnesium'],
      ['PT-INR', 'inr'],
      ['国际标准化比值', 'inr'],
      ['APTT', 'aptt'],
      ['纤维蛋白原', 'fibrinogen'],
      ['尿酸(UA)', 'uric-acid'],
      ['ＡＬＴ', 'alt'], // full-width
    ];
    for (const [name, id] of cases) expect(analyteByName(name)?.id, name).toBe(id);
    expect(matchAnalyte({ code: 'K' })?.id).toBe('potassium');
    expect(matchAnalyte({ code: '1001', display: '谷丙转氨酶' })?.id).toBe('alt');
  });

  it('a near miss is not a match', () => {
    for (const name of [
      '直接胆红素',
      '间接胆红素',
      'Bilirubin, Direct',
      '糖化血红蛋白',
      'HbA1c',
      '尿肌酐',
      '肌酐(尿)',
      'Creatinine [Mass/volume] in Urine',
      'Creatinine, urine',
      '中性粒细胞百分比',
      '中性粒细胞(%)',
      'NEUT%',
      'LYMPH%',
      'CK-MB',
      '肌酸激酶同工酶',
      '高密度脂蛋白胆固醇',
      'HDL Cholesterol',
      '尿淀粉酶',
      '尿糖',
      'Glucose, CSF',
      'Hemoglobin A1c/Hemoglobin.total in Blood',
      'Neutrophils/100 leukocytes in Blood by Automated count',
      'MCH',
      'MCHC',
      '平均血红蛋白浓度',
      '血小板压积',
      '血小板分布宽度',
      '',
      '   ',
    ])
      expect(analyteByName(name)?.id, name).toBeUndefined();
  });
});
