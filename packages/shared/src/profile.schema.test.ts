import { describe, expect, it } from 'vitest';
import { maskPhone } from './profile.schema';

describe('maskPhone', () => {
  it('keeps the first three and last four digits of a mobile number', () => {
    expect(maskPhone('13812345678')).toBe('138****5678');
    expect(maskPhone(' 13812345678 ')).toBe('138****5678');
  });
  it('keeps the first and last quarter of a shorter number, and nothing of a very short one', () => {
    expect(maskPhone('12345678')).toBe('12****78');
    expect(maskPhone('1234')).toBe('****');
  });
  it('is empty without a number', () => {
    expect(maskPhone(null)).toBe('');
    expect(maskPhone(undefined)).toBe('');
    expect(maskPhone('')).toBe('');
  });
});
