import { describe, expect, it } from 'vitest';
import { detectBirthDates, findDates } from './dates.js';
import { ctx, texts } from './test-context.js';

describe('dates', () => {
  it('finds numeric, Chinese and English dates without the time of day', () => {
    const c = ctx('2024-03-01 08:30；2024/3/1；2024年3月1日；01/03/2024；Mar 1, 2024 at 10:30；3月5日');
    expect(texts(findDates(c))).toEqual(expect.arrayContaining(['2024-03-01', '2024/3/1', '2024年3月1日', '01/03/2024', 'Mar 1, 2024', '3月5日']));
    expect(findDates(c).some((d) => d.text.includes(':'))).toBe(false);
  });

  it('takes no times, durations, frequencies or lab values for dates', () => {
    for (const t of ['08:30', 'in 2 weeks', '3 weeks ago', 'today', 'q8h', 'tid', '130-175', '6.5×10^9/L', 'LOINC 718-7', '13月45日'])
      expect(findDates(ctx(t)), t).toEqual([]);
  });

  it('finds dates of birth by their label', () => {
    for (const [text, date] of [
      ['出生日期：1985年3月12日', '1985年3月12日'],
      ['生日 1985-03-12', '1985-03-12'],
      ['DOB: 03/12/1985', '03/12/1985'],
      ['Date of Birth: 12 March 1985', '12 March 1985'],
      // OCR reads the O of October as a zero
      ['DOB: 18 0ctober 1990', '18 0ctober 1990'],
    ] as const) {
      const c = ctx(`${text}，入院 2024-03-01`);
      const births = detectBirthDates(c, findDates(c));
      expect(texts(births), text).toEqual([date]);
      expect(births[0]?.kind).toBe('birthDate');
    }
  });
});
