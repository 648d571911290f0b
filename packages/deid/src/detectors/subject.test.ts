import { describe, expect, it } from 'vitest';
import { detectSubjectIdentifiers } from './subject.js';
import { ctx, texts } from './test-context.js';

describe("the subject's known identifiers", () => {
  it('finds each known value with spaces, dashes or full-width digits inside (texts here are width-folded)', () => {
    const text = '患者王建国（王 建 国），病案号 BA-2024 0311，手机 138 1234 5678，身份证１１０１０１１９９００１０１１２３７，住院号ZY0088123';
    const spans = detectSubjectIdentifiers(ctx(text), {
      name: '王建国',
      medicalRecordNo: 'BA20240311',
      phone: '+8613812345678',
      idCard: '110101199001011237',
      inpatientNo: 'ZY-0088123',
    });
    expect(texts(spans).sort()).toEqual(
      ['王建国', '王 建 国', 'BA-2024 0311', '138 1234 5678', '110101199001011237', 'ZY0088123'].sort(),
    );
    expect(spans.every((s) => s.kind === 'subjectIdentifier')).toBe(true);
  });

  it('finds an English name whole and word by word, but not inside other words', () => {
    const spans = detectSubjectIdentifiers(ctx('John Smith; Smith, John; Smithson'), { name: 'John Smith' });
    expect(texts(spans).sort()).toEqual(['John', 'John', 'John Smith', 'Smith', 'Smith']);
  });

  it('matches initials in capitals only: in lower case they are units', () => {
    expect(new Set(texts(detectSubjectIdentifiers(ctx('Aspirin 81 mg daily; patient MG; M.G. seen'), { name: 'MG' })))).toEqual(new Set(['MG', 'M.G']));
  });

  it('does not take a known number out of a longer number', () => {
    expect(detectSubjectIdentifiers(ctx('9BA202403119'), { medicalRecordNo: 'BA20240311' })).toEqual([]);
  });

  it("finds a known number that OCR read with a letter for a digit (0/O, 1/I/l, 5/S, 8/B), but not a name's letters as digits", () => {
    const c = ctx('病案号 BA2O231I87 住院号 ZY2O23OO45l2 心率 80 次/分');
    expect(detectSubjectIdentifiers(c, { medicalRecordNo: 'BA20231187', inpatientNo: 'ZY2023004512' }).map((s) => s.text)).toEqual([
      'BA2O231I87',
      'ZY2O23OO45l2',
    ]);
    expect(detectSubjectIdentifiers(c, { name: 'Bo Li' })).toEqual([]);
  });
});
