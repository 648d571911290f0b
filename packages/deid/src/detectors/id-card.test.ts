import { describe, expect, it } from 'vitest';
import { detectIdCards, idCardCheckChar, isValidIdCard15, isValidIdCard18 } from './id-card.js';
import { ctx, texts } from './test-context.js';

describe('resident ID numbers (GB 11643-1999)', () => {
  it('computes the ISO 7064 MOD 11-2 check character, X included', () => {
    expect(idCardCheckChar('11010519491231002')).toBe('X');
    expect(isValidIdCard18('11010519491231002X')).toBe(true);
    expect(isValidIdCard18('11010519491231002x')).toBe(true);
    expect(isValidIdCard18('110101199001011237')).toBe(true);
  });

  it('refuses a wrong check digit, a bad province or an impossible birth date', () => {
    expect(isValidIdCard18('110101199001011234')).toBe(false);
    expect(isValidIdCard18('000101199001011237')).toBe(false);
    expect(isValidIdCard18('110101199013011230')).toBe(false);
    expect(isValidIdCard18('110101299001011237')).toBe(false);
  });

  it('finds valid numbers, also with spaces and full-width digits; a wrong check digit only when province and birth date hold', () => {
    expect(detectIdCards(ctx('身份证：110101199001011237，另一个 110101199001011234')).map((s) => [s.text, s.reason])).toEqual([
      ['110101199001011237', 'idCard.checksum'],
      ['110101199001011234', 'idCard.shape'],
    ]);
    expect(detectIdCards(ctx('流水号 123456789012345678 与 110101199013011234'))).toEqual([]);
    expect(texts(detectIdCards(ctx('证件 1101 0119 9001 0112 37')))).toEqual(['1101 0119 9001 0112 37']);
    expect(detectIdCards(ctx('身份证号１１０１０１１９９００１０１１２３７'))[0]?.reason).toBe('idCard.checksum');
  });

  it('takes the 15-digit old form only after an ID label', () => {
    expect(isValidIdCard15('110101900101123')).toBe(true);
    expect(texts(detectIdCards(ctx('身份证号码：110101900101123')))).toEqual(['110101900101123']);
    expect(detectIdCards(ctx('标本号 110101900101123'))).toEqual([]);
  });

  it('does not cut an ID out of a longer lab or accession number', () => {
    expect(detectIdCards(ctx('条码 20110101199001011237 与 1101011990010112370'))).toEqual([]);
    expect(detectIdCards(ctx('accession 202403110088123456789'))).toEqual([]);
  });

  it('takes any 15 or 18 digits under an ID label, however invalid (a misread digit must not unmask the number)', () => {
    expect(detectIdCards(ctx('身份证号：123456789012345678')).map((s) => s.reason)).toEqual(['idCard.label']);
    expect(detectIdCards(ctx('ID card No. 999999999999999')).map((s) => s.reason)).toEqual(['idCard.label']);
  });

  it('finds U.S. Social Security numbers: 3-2-4 anywhere, nine digits after their label, not impossible ones', () => {
    expect(detectIdCards(ctx('SSN: 123-45-6789; Social Security No. 234567890')).map((s) => [s.text, s.reason])).toEqual([
      ['123-45-6789', 'ssn.US'],
      ['123-45-6789', 'ssn.US+label'],
      ['234567890', 'ssn.US+label'],
    ]);
    expect(detectIdCards(ctx('000-12-3456 666-12-3456 912-34-5678 123-00-4567 123-45-0000 2024-05-0606'))).toEqual([]);
  });
});
