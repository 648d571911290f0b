import { describe, expect, it } from 'vitest';
import { parseLabValue, parseNumber, rangeFlag } from './lab-values';

describe('parseLabValue', () => {
  it('takes the stored number when there is no text', () => {
    expect(parseLabValue(5.2, undefined)).toEqual({ value: 5.2 });
    expect(parseLabValue(0, null)).toEqual({ value: 0 });
    expect(parseLabValue(null, null)).toBeUndefined();
    expect(parseLabValue(Number.NaN, undefined)).toBeUndefined();
    expect(parseLabValue(Number.POSITIVE_INFINITY, undefined)).toBeUndefined();
  });

  it('reads comparators, as FHIR (valueText "<5") and HL7 SN write them', () => {
    expect(parseLabValue(0.5, '<0.5')).toEqual({ value: 0.5, comparator: '<' });
    expect(parseLabValue(undefined, '>200')).toEqual({ value: 200, comparator: '>' });
    expect(parseLabValue(undefined, '≥ 10')).toEqual({ value: 10, comparator: '>=' });
    expect(parseLabValue(undefined, '<=3.5')).toEqual({ value: 3.5, comparator: '<=' });
    expect(parseLabValue(undefined, '＜０.５')).toEqual({ value: 0.5, comparator: '<' }); // full-width
  });

  it('reads a flag written with the value', () => {
    expect(parseLabValue(undefined, '5.2↑')).toEqual({ value: 5.2, flag: 'H' });
    expect(parseLabValue(undefined, '2.1 ↓')).toEqual({ value: 2.1, flag: 'L' });
    expect(parseLabValue(undefined, '7.8↑↑')).toEqual({ value: 7.8, flag: 'HH' });
    expect(parseLabValue(undefined, '5.2 H')).toEqual({ value: 5.2, flag: 'H' });
    expect(parseLabValue(undefined, '1.1(L)')).toEqual({ value: 1.1, flag: 'L' });
    expect(parseLabValue(undefined, '45*')).toEqual({ value: 45, flag: 'A' });
  });

  it('reads thousands separators and a decimal comma', () => {
    expect(parseLabValue(undefined, '105,600')).toEqual({ value: 105600 });
    expect(parseLabValue(undefined, '3,5')).toEqual({ value: 3.5 });
    expect(parseLabValue(undefined, '-2.5')).toEqual({ value: -2.5 });
    expect(parseLabValue(undefined, '.5')).toEqual({ value: 0.5 });
  });

  it('a text that is not one number is not a numeric result, even with a number stored beside it', () => {
    expect(parseLabValue(1, '1:128')).toBeUndefined(); // HL7 SN ratio stores the first number
    expect(parseLabValue(undefined, '阴性')).toBeUndefined();
    expect(parseLabValue(undefined, '3-5/HP')).toBeUndefined();
    expect(parseLabValue(undefined, 'Positive')).toBeUndefined();
    expect(parseLabValue(undefined, '12.5 g/dL')).toBeUndefined();
    expect(parseLabValue(5, '   ')).toEqual({ value: 5 });
  });
});

describe('rangeFlag', () => {
  it('maps HL7 table 0078, FHIR interpretation and Chinese report flags', () => {
    const cases: [string, string | undefined][] = [
      ['H', 'H'],
      ['h', 'H'],
      ['High', 'H'],
      ['↑', 'H'],
      ['偏高', 'H'],
      ['HH', 'HH'],
      ['HU', 'HH'],
      ['critical high', 'HH'],
      ['L', 'L'],
      ['Low', 'L'],
      ['↓', 'L'],
      ['偏低', 'L'],
      ['LL', 'LL'],
      ['LU', 'LL'],
      ['A', 'A'],
      ['AA', 'A'],
      ['异常', 'A'],
      ['N', 'N'],
      ['Normal', 'N'],
      ['正常', 'N'],
      ['(H)', 'H'],
      [' l ', 'L'],
      ['D', undefined], // significant change down: not a range flag
      ['S', undefined], // susceptible
      ['', undefined],
    ];
    for (const [text, flag] of cases) expect(rangeFlag(text), text).toBe(flag);
    expect(rangeFlag(undefined)).toBeUndefined();
    expect(rangeFlag(null)).toBeUndefined();
  });
});

describe('parseNumber', () => {
  it('reads plain, thousands and decimal-comma numbers', () => {
    expect(parseNumber('150,000')).toBe(150000);
    expect(parseNumber('3,5')).toBe(3.5);
    expect(parseNumber(' 4.2 ')).toBe(4.2);
    expect(parseNumber('abc')).toBeUndefined();
    expect(parseNumber('')).toBeUndefined();
  });
});
