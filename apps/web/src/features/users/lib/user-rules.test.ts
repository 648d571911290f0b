import { describe, expect, it } from 'vitest';
import { userFieldProblem } from './user-rules';

describe('user form rules (spec §5)', () => {
  it('checks the account: required, ≤ 50, allowed characters', () => {
    expect(userFieldProblem.account('')).toBe('validation.accountRequired');
    expect(userFieldProblem.account('a'.repeat(51))).toBe('validation.accountMax');
    expect(userFieldProblem.account('has space')).toBe('validation.account');
    expect(userFieldProblem.account('li.na_01@x-y')).toBeNull();
  });
  it('checks phone, mail and ID number with the shared validators', () => {
    expect(userFieldProblem.phone('')).toBe('validation.phoneRequired');
    expect(userFieldProblem.phone('12345678901')).toBe('validation.phone');
    expect(userFieldProblem.phone('13912345678')).toBeNull();
    expect(userFieldProblem.mail('')).toBeNull();
    expect(userFieldProblem.mail('not-mail')).toBe('validation.mail');
    expect(userFieldProblem.mail('a@b.cn')).toBeNull();
    expect(userFieldProblem.idNumber('')).toBeNull();
    expect(userFieldProblem.idNumber('1234')).toBe('validation.idNumber_format');
    expect(userFieldProblem.idNumber('110101199002301234')).toBe('validation.idNumber_birthDate');
    expect(userFieldProblem.idNumber('11010519491231002X')).toBeNull();
    expect(userFieldProblem.idNumber('110105194912310021')).toBe('validation.idNumber_checksum');
  });
});
