import { describe, expect, it } from 'vitest';
import type { TFunction } from 'i18next';
import { hourChoices, validityText } from './ddc-logic';

describe('link validity choices', () => {
  it('offers the usual choices within the longest, with the default among them', () => {
    expect(hourChoices(72, 720)).toEqual([1, 4, 8, 24, 48, 72, 168, 336, 720]);
    expect(hourChoices(12, 48)).toEqual([1, 4, 8, 12, 24, 48]);
  });

  it('says whole days in days', () => {
    const t = ((k: string, o: { count: number }) => `${o.count} ${k}`) as unknown as TFunction<'ddc'>;
    expect(validityText(t, 72)).toBe('3 days');
    expect(validityText(t, 12)).toBe('12 hours');
    expect(validityText(t, 1)).toBe('1 hours');
  });
});
