import { describe, expect, it } from 'vitest';
import { detectPhones } from './phone.js';
import { ctx, texts } from './test-context.js';

describe('phone numbers', () => {
  it('finds mainland mobiles with +86, 0086, spaces and dashes', () => {
    const spans = detectPhones(ctx('手机13812345678，+86 138-1234-5678，0086 139 8765 4321'));
    expect(texts(spans)).toEqual(expect.arrayContaining(['13812345678', '+86 138-1234-5678', '0086 139 8765 4321']));
    expect(spans.every((s) => s.kind === 'phone')).toBe(true);
  });

  it('finds landlines with area code and extension', () => {
    const spans = detectPhones(ctx('电话：0571-87654321转123；座机 010-65295114'));
    expect(texts(spans)).toEqual(['0571-87654321转123', '010-65295114']);
    expect(spans[0]?.kind).toBe('landline');
  });

  it('finds US and international formats', () => {
    expect(texts(detectPhones(ctx('Call (212) 555-1234 or +1 415-555-0199 ext. 22')))).toEqual(['(212) 555-1234', '+1 415-555-0199 ext. 22']);
    expect(texts(detectPhones(ctx('my number is 986.291.2294x751')))).toEqual(['986.291.2294x751']);
  });

  it('finds full-width digits', () => {
    expect(detectPhones(ctx('手机：１３８１２３４５６７８'))).toHaveLength(1);
  });

  it('leaves clinical numbers that look like phone numbers alone', () => {
    for (const text of [
      '血红蛋白 138 g/L 参考范围 130-175',
      '白细胞 6.5×10^9/L',
      'LOINC 718-7 and 2345-7',
      '标本号 20240311008812345',
      'accession 12345678901',
      '数字12345678901不是手机号',
      'BP 132/84 mmHg, HR 88, date 2024-03-11, 2024.03.11',
      'INR 1.12, PT 12.5 s, APTT 32.1 s, creatinine 1.1 mg/dL (ref 0.7-1.3)',
      // a date with its time glued on by OCR ("2026-01-25 08:30" read without the space)
      '采样时间：2026-01-2508:30',
      '报告时间 2026-01-2514',
      'Collected 2026/01/25 0830',
    ]) expect(detectPhones(ctx(text)), text).toEqual([]);
  });
});
