import { describe, expect, it } from 'vitest';
import { checkPasswordRules, passwordChangeDue, passwordScore, passwordStrength } from './password';

describe('password rules (spec §5)', () => {
  it('requires a password', () => expect(checkPasswordRules('')).toBe('required'));
  it('needs 8 to 30 characters', () => {
    expect(checkPasswordRules('Ab1!xyz')).toBe('rule');
    expect(checkPasswordRules('Ab1!xyzw')).toBeNull();
    expect(checkPasswordRules('Ab1!' + 'x'.repeat(26))).toBeNull();
    expect(checkPasswordRules('Ab1!' + 'x'.repeat(27))).toBe('rule');
  });
  it('needs a digit, a letter and one of ~!@#$%^&*', () => {
    expect(checkPasswordRules('abcdefgh1')).toBe('rule');
    expect(checkPasswordRules('abcdefgh!')).toBe('rule');
    expect(checkPasswordRules('12345678!')).toBe('rule');
    for (const c of '~!@#$%^&*') expect(checkPasswordRules(`abcd123${c}`), c).toBeNull();
  });
  it('allows no other character types', () => {
    expect(checkPasswordRules('abcd123!?')).toBe('rule');
    expect(checkPasswordRules('abcd 123!')).toBe('rule');
    expect(checkPasswordRules('abcd123!中')).toBe('rule');
  });
});

describe('strength meter', () => {
  it('fails under 6 characters', () => {
    expect(passwordStrength('Ab1!')).toMatchObject({ level: 0, percent: 0, tooWeak: true });
  });
  it('levels at scores 30, 60, 80 and the bar is 33 × level', () => {
    for (const pw of ['abcdef', 'abcdefgh', 'abcdef12', 'Abcdef12!', 'Abcd12!@#x']) {
      const s = passwordStrength(pw);
      const expected = s.score >= 80 ? 3 : s.score >= 60 ? 2 : s.score >= 30 ? 1 : 0;
      expect(s.level, pw).toBe(expected);
      expect(s.percent).toBe(33 * expected);
    }
    expect(passwordStrength('abcdef').level).toBe(0);
    expect(passwordStrength('abcdefgh').level).toBe(1);
    expect(passwordStrength('Abcdef12').level).toBe(2);
    expect(passwordStrength('Abcd12!@#x').level).toBe(3);
  });
  it('a password that breaks the rules is invalid, never strong (a space is not allowed)', () => {
    expect(passwordStrength('abc 1234!')).toMatchObject({ invalid: true });
    expect(passwordStrength('Ab 1')).toMatchObject({ invalid: true });
    expect(passwordStrength('abcdefgh')).toMatchObject({ invalid: true });
    expect(passwordStrength('Abcd12!@#x')).toMatchObject({ level: 3, invalid: false });
    expect(passwordStrength('Ab1!')).toMatchObject({ invalid: false });
  });
  it('scores grow with variety', () => {
    expect(passwordScore('Abcd12!@#x')).toBeGreaterThan(passwordScore('abcd12!@#x'));
    expect(passwordScore('abcdefgh12')).toBeGreaterThan(passwordScore('abcdefghij'));
  });
});

describe('90-day prompt', () => {
  it('is due after 90 days or when never changed', () => {
    const now = new Date('2026-11-21T00:00:00Z');
    expect(passwordChangeDue(null, now)).toBe(true);
    expect(passwordChangeDue(new Date('2026-08-24T00:00:00Z'), now)).toBe(false);
    expect(passwordChangeDue(new Date('2026-08-23T00:00:00Z'), now)).toBe(true);
  });
});
