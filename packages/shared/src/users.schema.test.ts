import { describe, expect, it } from 'vitest';
import { checkIdNumber, isValidIdNumber, PHONE_PATTERN, userAddRequest } from './users.schema';

/** Builds a valid ID number from its first 17 digits (ISO 7064 MOD 11-2). */
function withCheck(first17: string): string {
  const w = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2];
  let sum = 0;
  for (let i = 0; i < 17; i++) sum += Number(first17[i]) * w[i]!;
  return first17 + '10X98765432'[sum % 11]!;
}

describe('resident ID number check (GB 11643)', () => {
  it('accepts valid numbers, with X as check character in either case', () => {
    expect(checkIdNumber('11010519491231002X')).toBeNull();
    expect(checkIdNumber('11010519491231002x')).toBeNull();
    expect(checkIdNumber(withCheck('44052419800101001'))).toBeNull();
    expect(isValidIdNumber(withCheck('31011519900307123'))).toBe(true);
  });

  it('refuses a wrong check digit', () => {
    expect(checkIdNumber('110105194912310021')).toBe('checksum');
    
    const good = withCheck('31011519900307123');
    const bad = good.slice(0, 17) + (good[17] === '0' ? '1' : '0');
    expect(checkIdNumber(bad)).toBe('checksum');
  });

  it('finds every single-digit typo', () => {
    const good = withCheck('32010219850615441');
    for (let i = 0; i < 17; i++) {
      const d = (Number(good[i]) + 1) % 10;
      const typo = good.slice(0, i) + String(d) + good.slice(i + 1);
      expect(checkIdNumber(typo), typo).not.toBeNull();
    }
  });

  it('refuses the wrong length or characters', () => {
    expect(checkIdNumber('')).toBe('format');
    expect(checkIdNumber('11010519491231002')).toBe('format');
    expect(checkIdNumber('11010519491231002XX')).toBe('format');
    expect(checkIdNumber('1101051949123100X2')).toBe('format');
    expect(checkIdNumber('11010519491231002Y')).toBe('format');
  });

  it('refuses impossible or future birth dates even with a matching check digit', () => {
    expect(checkIdNumber(withCheck('11010519490230002'))).toBe('birthDate');
    expect(checkIdNumber(withCheck('11010518991231002'))).toBe('birthDate');
    expect(checkIdNumber(withCheck('11010520990101002'), new Date('2026-01-01'))).toBe('birthDate');
  });
});

describe('user fields (spec §5)', () => {
  const base = { account: 'new.user', name: 'New User', phone: '13912345678', orgId: '1', loginTypes: '1,3' };
  it('parses a form body', () => {
    const r = userAddRequest.parse({ ...base, mail: '', idNumber: '' });
    expect(r).toMatchObject({ orgId: 1, loginTypes: [1, 3], mail: undefined, idNumber: undefined });
  });
  it('checks phone, account length, mail and login types', () => {
    expect(PHONE_PATTERN.test('12912345678')).toBe(false);
    expect(PHONE_PATTERN.test('1391234567')).toBe(false);
    const issues = (v: Record<string, unknown>) =>
      (userAddRequest.safeParse({ ...base, ...v }).error?.issues ?? []).map((i) => `${i.path.join('.')}:${i.message}`);
    expect(issues({ phone: '23912345678' })).toEqual(['phone:validation.phone']);
    expect(issues({ account: 'a'.repeat(51) })[0]).toMatch(/^account:/);
    expect(issues({ account: 'a'.repeat(50) })).toEqual([]);
    expect(issues({ mail: 'not-a-mail' })).toEqual(['mail:validation.mail']);
    expect(issues({ idNumber: '110105194912310021' })).toEqual(['idNumber:validation.idNumber_checksum']);
    expect(issues({ loginTypes: '' })).toEqual(['loginTypes:validation.loginTypesRequired']);
    expect(issues({ loginTypes: '5' })).toEqual(['loginTypes.0:validation.loginType']);
  });
});
