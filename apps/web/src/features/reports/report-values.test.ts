import { describe, expect, it } from 'vitest';
import { shortName, sourceText, valueText, withUnit } from './report-values';

describe('report values', () => {
  it('shows item values: choices joined, nothing as a dash', () => {
    expect([
      valueText(null),
      valueText(''),
      valueText(132),
      valueText('N'),
      valueText(['a', 'b']),
      valueText({ x: 1 }),
    ]).toEqual(['—', '—', '132', 'N', 'a, b', '{"x":1}']);
  });

  it('rounds a source number to 4 decimals, leaves text as it is', () => {
    expect([
      sourceText('71.16928187291595'),
      sourceText('140'),
      sourceText('1e-7'),
      sourceText('positive'),
      sourceText(null),
    ]).toEqual(['71.1693', '140', '0', 'positive', '—']);
  });

  it('adds the unit to a value, not to a dash; shortens long names', () => {
    expect([withUnit('72', 'mmHg'), withUnit('—', 'mmHg'), withUnit('N', null)]).toEqual([
      '72 mmHg',
      '—',
      'N',
    ]);
    expect(shortName('Demo University Hospital of the North', 24)).toBe('Demo University Hospita…');
    expect(shortName('Demo City Hospital')).toBe('Demo City Hospital');
  });
});
