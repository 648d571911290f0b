import { describe, expect, it } from 'vitest';
import type { MappingRuleRow } from '@esource/shared';
import { detailToFields, duplicateSources, formToInput, LOINC, ruleMatchText, ruleToForm } from './mapping-logic';

const saved: MappingRuleRow = {
  id: 3,
  designVersionId: 1,
  formId: 7,
  variable: 'HGB',
  method: 'code',
  docTypes: [3],
  codes: [{ system: LOINC, code: '718-7' }, { system: 'HIS', code: 'HB01' }],
  useSynonyms: true,
  unit: 'g/L',
  selection: 'worst',
  worst: 'low',
  windowOnly: false,
  optionMap: [],
  version: 2,
  updatedBy: 'dm',
  updateTime: '2026-01-01T00:00:00Z',
};

describe('mapping editor', () => {
  it('starts a new rule as a LOINC code rule in the item unit, nearest in the window', () => {
    const v = ruleToForm({ unit: 'mmol/L', rule: null });
    expect(v).toMatchObject({ method: 'code', codes: [{ system: LOINC, code: '' }], unit: 'mmol/L', selection: 'nearest', windowOnly: true });
  });

  it('round-trips a saved rule, the worst direction folded into the selection', () => {
    const v = ruleToForm({ unit: 'g/L', rule: saved });
    expect(v.selection).toBe('worstLow');
    const input = formToInput(v, 7, 'HGB', false);
    expect(input).toEqual({
      formId: 7,
      variable: 'HGB',
      method: 'code',
      docTypes: [3],
      codes: [{ system: LOINC, code: '718-7' }, { system: 'HIS', code: 'HB01' }],
      useSynonyms: true,
      unit: 'g/L',
      selection: 'worst',
      worst: 'low',
      windowOnly: false,
      optionMap: [],
    });
  });

  it('sends only the method’s own parts: a FHIRPath rule has no codes, a code rule no expression; blank rows dropped', () => {
    const base = ruleToForm({ unit: null, rule: null });
    const fp = formToInput({ ...base, method: 'fhirpath', expression: " Observation.value.ofType(Quantity).value ", codes: [{ code: '1' }] }, 1, 'X', false);
    expect(fp.codes).toEqual([]);
    expect(fp.expression).toBe('Observation.value.ofType(Quantity).value');
    expect(fp.unit).toBeUndefined();
    const code = formToInput({ ...base, expression: 'x', codes: [{ system: '', code: ' 2345-7 ' }, { code: '' }] }, 1, 'X', false);
    expect(code.expression).toBeUndefined();
    expect(code.codes).toEqual([{ code: '2345-7' }]);
  });

  it('keeps the option map only for coded items', () => {
    const v = { ...ruleToForm({ unit: null, rule: null }), optionMap: [{ source: ' M ', value: 'M' }, { source: '', value: 'F' }] };
    expect(formToInput(v, 1, 'SEX', true).optionMap).toEqual([{ source: 'M', value: 'M' }]);
    expect(formToInput(v, 1, 'HR', false).optionMap).toEqual([]);
  });

  it('finds a source mapped twice regardless of case', () => {
    expect(duplicateSources([{ source: 'male' }, { source: 'F' }, { source: 'MALE ' }, {}])).toEqual([2]);
  });

  it('puts the server’s messages at their field or option row', () => {
    const r = detailToFields([
      { field: 'expression', message: 'does not compile' },
      { field: 'optionMap.2.source', message: "the source value 'm' is mapped twice" },
      { field: 'worst', message: 'needs high or low' },
      { field: 'somethingElse', message: 'other' },
    ]);
    expect(r.fields).toEqual([
      { name: ['expression'], errors: ['does not compile'] },
      { name: ['optionMap', 2, 'source'], errors: ["the source value 'm' is mapped twice"] },
      { name: ['selection'], errors: ['needs high or low'] },
    ]);
    expect(r.rest).toEqual(['other']);
  });

  it('summarises what a rule matches', () => {
    expect(ruleMatchText(saved)).toBe('718-7, HIS|HB01');
    expect(ruleMatchText({ method: 'fhirpath', codes: [], expression: 'Observation.value' })).toBe('Observation.value');
  });
});
