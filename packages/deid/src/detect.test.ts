import { describe, expect, it } from 'vitest';
import { applyMask, detectIdentifiers } from './index.js';

const note = '北京协和医院 姓名：王建国 出生日期：1966-04-12 入院日期：2024-03-01 主治医师：李明华 项目代号 PUMCH-07';

function kinds(text: string, options: Parameters<typeof detectIdentifiers>[1]): string[] {
  return detectIdentifiers(text, options).map((s) => `${s.kind}:${s.text}`);
}

describe('detectIdentifiers', () => {
  it('applies the default policy: birth dates, hospitals and doctors yes, other dates no', () => {
    expect(kinds(note, {})).toEqual(['hospital:北京协和医院', 'personName:王建国', 'birthDate:1966-04-12', 'doctor:李明华']);
  });

  it('follows the policy switches and the project keywords', () => {
    const all = kinds(note, { keywords: ['pumch-07'], policy: { maskOtherDates: true } });
    expect(all).toEqual(expect.arrayContaining(['date:2024-03-01', 'keyword:PUMCH-07']));
    const none = kinds(note, { policy: { maskBirthDates: false, maskHospitalNames: false, maskDoctorNames: false } });
    expect(none).toEqual(['personName:王建国']);
  });

  it("returns span texts from the input, full-width forms included, and always finds the subject's identifiers", () => {
    const text = '联系电话：１３８ １２３４ ５６７８，病案号ＢＡ２０２４';
    const spans = detectIdentifiers(text, { subject: { phone: '13812345678', medicalRecordNo: 'BA2024' } });
    expect(spans.map((s) => s.text)).toEqual(['１３８ １２３４ ５６７８', 'ＢＡ２０２４']);
    expect(spans.every((s) => s.kind === 'subjectIdentifier')).toBe(true);
    expect(applyMask(text, spans)).toHaveLength(text.length);
  });

  it('keeps clinical content', () => {
    for (const t of [
      '血红蛋白 138 g/L 参考范围 130-175',
      '白细胞 6.5×10^9/L',
      '阿莫西林 0.5g tid',
      'ICD-10 I10',
      'LOINC 718-7',
      '标本号 20240311008812345 条码 881234567890123456',
      '采样时间 08:30，复查时间 14:45',
      'Metformin 500 mg PO bid; creatinine 1.1 mg/dL (ref 0.7-1.3); BP 132/84 mmHg',
    ])
      expect(detectIdentifiers(t, {}), t).toEqual([]);
  });

  it('finds every identifier in the text OCR gives of an English lab report (D0B, Acc0unt, c0m, an SSN)', () => {
    const text = [
      'Massachusetts General Hospital-Laboratory Report',
      'Patient: Jonathan Q. Whitaker D0B:04/17/1962 Sex: M',
      'MRN:00488213 Acc0unt:99812734 SSN:123-45-6789',
      'Address:1428 Elm Street, Springfield, MA 01103',
      'Phone:(617)555-0143 Email: j.whitaker@example.c0m',
      'Ordering physician: Dr. Emily Chen',
      'Hemoglobin 13.2 g/dL（13.5-17.5) L',
    ].join('\n');
    const found = detectIdentifiers(text).map((s) => s.text);
    for (const id of ['Jonathan Q. Whitaker', '04/17/1962', '00488213', '99812734', '123-45-6789', '(617)555-0143', 'j.whitaker@example.c0m', 'Emily Chen']) {
      expect(found.some((f) => f.includes(id)), id).toBe(true);
    }
    expect(found.join(' ')).not.toMatch(/13\.2|g\/dL|Hemoglobin/);
  });
});
