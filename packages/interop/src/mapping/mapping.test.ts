import { describe, expect, it } from 'vitest';
import type { FieldComponent } from '@esource/shared';
import { compileExpression, convertUnit, evaluateRule, isUcumUnit, RecordIndex, SynonymIndex, type MappingRecord, type MappingRule } from './index';

let nextId = 1;
function rec(p: Partial<MappingRecord>): MappingRecord {
  return {
    id: nextId++,
    version: 1,
    docType: 3,
    resourceType: 'Observation',
    codeSystem: 'http://loinc.org',
    code: '718-7',
    display: 'Hemoglobin [Mass/volume] in Blood',
    valueNum: 13.2,
    valueText: null,
    unit: 'g/dL',
    effectiveDate: '2026-03-10',
    effectiveAt: '2026-03-10T08:00:00Z',
    ...p,
  };
}
const rule = (p: Partial<MappingRule> = {}): MappingRule => ({
  method: 'code',
  docTypes: [],
  codes: [{ system: 'http://loinc.org', code: '718-7' }],
  useSynonyms: false,
  expression: null,
  unit: null,
  selection: 'nearest',
  worst: null,
  windowOnly: true,
  optionMap: [],
  ...p,
});
const numberItem: FieldComponent = { id: 'c1', type: 'number', label: 'Haemoglobin', variable: 'HGB', unit: 'g/L', precision: 1 };
const win = { planned: '2026-03-10', start: '2026-03-07', end: '2026-03-13' };
const run = (r: MappingRule, records: MappingRecord[], field: FieldComponent = numberItem, w = win, synonyms?: SynonymIndex) =>
  evaluateRule({ rule: r, field, index: new RecordIndex(records), window: w, synonyms });

describe('UCUM conversion', () => {
  it('converts within a dimension', () => {
    expect(convertUnit(13.2, 'g/dL', 'g/L')).toEqual({ ok: true, value: 132 });
    const lb = convertUnit(150, '[lb_av]', 'kg');
    expect(lb.ok && lb.value).toBeCloseTo(68.0389, 3);
    const f = convertUnit(37, 'Cel', '[degF]');
    expect(f.ok && f.value).toBeCloseTo(98.6, 6);
    const c = convertUnit(98.6, '[degF]', 'Cel');
    expect(c.ok && c.value).toBeCloseTo(37, 6);
  });
  it('refuses mass → amount of substance (needs a molar mass) and unknown units', () => {
    expect(convertUnit(90, 'mg/dL', 'mmol/L').ok).toBe(false);
    expect(convertUnit(1, 'mmHg', 'mm[Hg]').ok).toBe(false);
    expect(convertUnit(1, 'kg', 'L').ok).toBe(false);
  });
  it('knows UCUM units', () => {
    expect(isUcumUnit('mmol/L')).toBe(true);
    expect(isUcumUnit('次/分')).toBe(false);
  });
});

describe('matching', () => {
  it('matches by code within the system, and not another system or code', () => {
    const a = rec({});
    const other = rec({ codeSystem: 'urn:local', code: '718-7' });
    const wrong = rec({ code: '4548-4' });
    const e = run(rule(), [a, other, wrong]);
    expect(e.matched).toBe(1);
    expect(e.record?.id).toBe(a.id);
    expect(e.value).toBe(132);
    expect(e.conversion).toEqual({ fromValue: 13.2, fromUnit: 'g/dL', toUnit: 'g/L' });
  });
  it('accepts a system alias (LOINC) and any system when the rule names none', () => {
    const a = rec({});
    expect(run(rule({ codes: [{ system: 'LOINC', code: '718-7' }] }), [a]).matched).toBe(1);
    expect(run(rule({ codes: [{ code: '718-7' }] }), [rec({ codeSystem: 'urn:local' })]).matched).toBe(1);
  });
  it('matches display text by synonyms, case-, width- and space-insensitive, only when useSynonyms', () => {
    const local = rec({ codeSystem: 'urn:his', code: 'HB01', display: '血红 蛋白' });
    const syn = new SynonymIndex([{ term: 'Hb', synonyms: ['血红蛋白', 'Haemoglobin'] }]);
    expect(run(rule({ codes: [{ code: 'HB' }], useSynonyms: true }), [local], numberItem, win, syn).matched).toBe(1);
    expect(run(rule({ codes: [{ code: 'HB' }], useSynonyms: false }), [local], numberItem, win, syn).matched).toBe(0);
    // the item's label is a term too ('Haemoglobin' is in the group)
    expect(run(rule({ codes: [], useSynonyms: true }), [local], numberItem, win, syn).matched).toBe(1);
    expect(run(rule({ codes: [], useSynonyms: true }), [rec({ code: 'X', display: ' HAEMOGLOBIN ' })]).matched).toBe(1);
  });
  it('filters by document type', () => {
    expect(run(rule({ docTypes: [7] }), [rec({})]).matched).toBe(0);
    expect(run(rule({ docTypes: [3, 7] }), [rec({})]).matched).toBe(1);
  });
  it('evaluates a FHIRPath expression on the raw resource of that type only', () => {
    const obs = { resourceType: 'Observation', code: { coding: [{ system: 'http://loinc.org', code: '8480-6' }] }, valueQuantity: { value: 120, unit: 'mm[Hg]', code: 'mm[Hg]' } };
    const bp = rec({ code: '85354-9', valueNum: null, unit: null, raw: JSON.stringify({ resourceType: 'Observation', component: [obs] }) });
    const cond = rec({ resourceType: 'Condition', code: '44054006', raw: '{"resourceType":"Condition"}' });
    const r = rule({ method: 'fhirpath', codes: [], expression: "Observation.component.where(code.coding.code = '8480-6').value" });
    const e = run(r, [bp, cond], { ...numberItem, unit: 'mm[Hg]', precision: 0 });
    expect(e.matched).toBe(1);
    expect(e.value).toBe(120);
  });
  it('compileExpression refuses syntax errors and unknown functions', () => {
    expect(compileExpression('Observation.value').ok).toBe(true);
    const bad = compileExpression('Observation.value.(');
    expect(bad.ok).toBe(false);
    expect(compileExpression('Observation.nosuchfn()').ok).toBe(false);
    expect(compileExpression('').ok).toBe(false);
  });
});

describe('window and selection', () => {
  const dates = ['2026-03-06', '2026-03-07', '2026-03-09', '2026-03-12', '2026-03-13', '2026-03-14'];
  const values = [20, 11, 12.5, 9, 15, 1];
  const records = () => dates.map((d, i) => rec({ effectiveDate: d, effectiveAt: `${d}T08:00:00Z`, valueNum: values[i]! }));
  it('keeps the window edges (inclusive) and drops what is outside when windowOnly', () => {
    const e = run(rule({ selection: 'first' }), records());
    expect(e.matched).toBe(6);
    expect(e.inWindow).toBe(4);
    expect(e.record?.effectiveDate).toBe('2026-03-07');
    expect(run(rule({ selection: 'last' }), records()).record?.effectiveDate).toBe('2026-03-13');
  });
  it('uses records outside the window when windowOnly is off', () => {
    expect(run(rule({ selection: 'first', windowOnly: false }), records()).record?.effectiveDate).toBe('2026-03-06');
    expect(run(rule({ selection: 'last', windowOnly: false }), records()).record?.effectiveDate).toBe('2026-03-14');
  });
  it('nearest to the planned date; a tie goes to the later record', () => {
    expect(run(rule(), records()).record?.effectiveDate).toBe('2026-03-09');
    const tie = [rec({ effectiveDate: '2026-03-09', effectiveAt: '2026-03-09T08:00:00Z' }), rec({ effectiveDate: '2026-03-11', effectiveAt: '2026-03-11T08:00:00Z' })];
    expect(run(rule(), tie).record?.effectiveDate).toBe('2026-03-11');
  });
  it('worst high / low compares values in the wanted unit', () => {
    expect(run(rule({ selection: 'worst', worst: 'high' }), records()).record?.valueNum).toBe(15);
    expect(run(rule({ selection: 'worst', worst: 'low' }), records()).record?.valueNum).toBe(9);
    // 1.4 g/dL (14 g/L) is higher than 130 g/L? no: 130 g/L wins once converted
    const mixed = [rec({ valueNum: 1.4, unit: 'g/dL' }), rec({ valueNum: 130, unit: 'g/L' })];
    expect(run(rule({ selection: 'worst', worst: 'high' }), mixed).value).toBe(130);
  });
  it('no record in the window: no candidate, no problem', () => {
    const e = run(rule(), [rec({ effectiveDate: '2025-01-01', effectiveAt: '2025-01-01T00:00:00Z' })]);
    expect(e).toMatchObject({ value: null, problem: null, record: null, matched: 1, inWindow: 0 });
  });
});

describe('coercion problems (never guessed)', () => {
  it('text into a number item is TEXT_NOT_ALLOWED; numeric text is read', () => {
    expect(run(rule(), [rec({ valueNum: null, valueText: 'positive', unit: null })], { ...numberItem, unit: undefined })).toMatchObject({ problem: 'TEXT_NOT_ALLOWED', value: null });
    expect(run(rule(), [rec({ valueNum: null, valueText: ' 12.5 ', unit: 'g/L' })]).value).toBe(12.5);
  });
  it('a unit that does not convert, a missing unit, or a value out of hard bounds is DATA_ABNORMAL', () => {
    const glucose: FieldComponent = { id: 'g', type: 'number', label: 'Glucose', variable: 'GLU', unit: 'mmol/L' };
    // the detail reaches users as is (zh_CN too): the data only, never the UCUM library's English message
    expect(run(rule(), [rec({ valueNum: 90, unit: 'mg/dL' })], glucose)).toMatchObject({ problem: 'DATA_ABNORMAL', problemDetail: '90 mg/dL → mmol/L' });
    expect(run(rule(), [rec({ unit: null })])).toMatchObject({ problem: 'DATA_ABNORMAL', problemDetail: '13.2 ? → g/L' });
    expect(run(rule(), [rec({ valueNum: 30 })], { ...numberItem, min: 0, max: 250 })).toMatchObject({ problem: 'DATA_ABNORMAL', problemDetail: '300' });
    // a soft range accepts the value (it is saved with a warning)
    expect(run(rule(), [rec({ valueNum: 30 })], { ...numberItem, min: 0, max: 250, softRange: true }).value).toBe(300);
  });
  it('rounds to the item precision', () => {
    expect(run(rule(), [rec({ valueNum: 150, unit: '[lb_av]' })], { ...numberItem, unit: 'kg', precision: 1 }).value).toBe(68);
    expect(run(rule(), [rec({ valueNum: 37.2, unit: 'Cel' })], { ...numberItem, unit: '[degF]', precision: 1 }).value).toBe(99);
  });
  const sex: FieldComponent = {
    id: 's',
    type: 'radio',
    label: 'Result',
    variable: 'RES',
    options: [
      { value: '1', label: '阳性', labelEn: 'Positive' },
      { value: '2', label: '阴性', labelEn: 'Negative' },
    ],
  };
  it('an option item takes an option through the option map, or an exact option value/label', () => {
    const pos = rec({ valueNum: null, unit: null, valueText: 'POS', code: '718-7' });
    expect(run(rule({ optionMap: [{ source: 'pos', value: '1' }] }), [pos], sex).value).toBe('1');
    expect(run(rule(), [rec({ valueNum: null, unit: null, valueText: 'negative' })], sex).value).toBe('2');
    expect(run(rule(), [rec({ valueNum: null, unit: null, valueText: '阳性' })], { ...sex, type: 'checkbox' }).value).toEqual(['1']);
    expect(run(rule(), [pos], sex)).toMatchObject({ problem: 'NO_OPTION_MAPPING', value: null });
    // a mapping to a value that is not an option is refused, not passed through
    expect(run(rule({ optionMap: [{ source: 'POS', value: '9' }] }), [pos], sex).problem).toBe('NO_OPTION_MAPPING');
  });
  it('date items take a date value or the record date; datetime in the project zone', () => {
    const d: FieldComponent = { id: 'd', type: 'date', label: 'Date', variable: 'LBDAT' };
    expect(run(rule(), [rec({ valueNum: null, unit: null })], d).value).toBe('2026-03-10');
    expect(run(rule(), [rec({})], d).problem).toBe('DATA_ABNORMAL');
    const dt: FieldComponent = { id: 't', type: 'datetime', label: 'Time', variable: 'LBTIM', allowFuture: true };
    expect(evaluateRule({ rule: rule(), field: dt, index: new RecordIndex([rec({ valueNum: null, unit: null })]), window: win, timeZone: 'Asia/Shanghai' }).value).toBe('2026-03-10 16:00');
  });
});

// How fast selection is over 10,000 records is a benchmark (bench/prefill.bench.ts), never a timed test; here only
// that a large record set gives the same, correct choices.
describe('many records', () => {
  it('selects from 10,000 records of a subject the one each rule asks for', () => {
    const many: MappingRecord[] = [];
    for (let i = 0; i < 10_000; i++) {
      const d = new Date(Date.UTC(2025, 0, 1) + (i % 400) * 86_400_000).toISOString().slice(0, 10);
      many.push(rec({ id: i + 1, code: String(1000 + (i % 300)), display: `Test ${i % 300}`, effectiveDate: d, effectiveAt: `${d}T08:00:00Z`, valueNum: i % 97 }));
    }
    const idx = new RecordIndex(many);
    const syn = new SynonymIndex([{ term: 'Test 1', synonyms: ['T1'] }]);
    const window = { planned: '2025-06-01', start: '2025-05-01', end: '2025-07-01' };
    for (let k = 0; k < 20; k++) {
      const code = String(1000 + k * 7);
      const r = evaluateRule({ rule: rule({ codes: [{ code }], useSynonyms: true }), field: numberItem, index: idx, window, synonyms: syn });
      const inWindow = many.filter((m) => m.code === code && m.effectiveDate! >= window.start && m.effectiveDate! <= window.end);
      if (inWindow.length === 0) {
        expect(r.record ?? null).toBeNull();
        continue;
      }
      const nearest = Math.min(...inWindow.map((m) => Math.abs(Date.parse(m.effectiveDate!) - Date.parse(window.planned))));
      expect(Math.abs(Date.parse(r.record!.effectiveDate!) - Date.parse(window.planned))).toBe(nearest);
    }
  });
});
