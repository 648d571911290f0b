import { describe, expect, it } from 'vitest';
import { detectRecordNumbers } from './record-number.js';
import { ctx } from './test-context.js';

describe('record numbers by label', () => {
  it('takes the value after Chinese and English labels, value only', () => {
    const spans = detectRecordNumbers(ctx('病案号：BA20240311 住院号 ZY-0088123 门诊号:MZ7730012 ID号：0012345 登记号 88990'));
    expect(spans.map((s) => [s.kind, s.text])).toEqual(
      expect.arrayContaining([
        ['medicalRecordNo', 'BA20240311'],
        ['inpatientNo', 'ZY-0088123'],
        ['outpatientNo', 'MZ7730012'],
        ['medicalRecordNo', '0012345'],
        ['medicalRecordNo', '88990'],
      ]),
    );
    const en = detectRecordNumbers(ctx('MRN: 00734512; Medical Record No. A-99812; Inpatient No: 456789; Admission #77812'));
    expect(en.map((s) => s.text).sort()).toEqual(['00734512', '456789', '77812', 'A-99812'].sort());
  });

  it('ignores labels without a number and numbers without a label', () => {
    expect(detectRecordNumbers(ctx('Patient No. unknown; 住院号：待定; 标本号 20240311008812345'))).toEqual([]);
  });

  it('takes account, insurance and member numbers, also when OCR read a zero for an O in the label', () => {
    const spans = detectRecordNumbers(ctx('Acc0unt: 99812734  Member ID: XK-55120  Policy No. 7781-22  医保号：3301 社保卡号 A1234567'));
    expect(spans.map((s) => s.text).sort()).toEqual(['3301', '7781-22', '99812734', 'A1234567', 'XK-55120'].sort());
  });
});
