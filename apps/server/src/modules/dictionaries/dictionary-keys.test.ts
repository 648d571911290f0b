import { describe, expect, it } from 'vitest';
import { haystackOf, KEY, normKey, pinyinKeys, termKeys } from './dictionary-keys';
import { prefixEnd } from './dictionaries.search';

describe('dictionary search keys', () => {
  it('normalises width, case and spacing', () => {
    expect(normKey('  ＡＬＴ  升高 ')).toBe('alt 升高');
    expect(normKey('Ⅱ型\t糖尿病')).toBe('ii型 糖尿病');
  });

  it('gives pinyin initials and full pinyin of Chinese text, keeping letters and digits, dropping the rest', () => {
    expect(pinyinKeys('高血压')).toEqual({ initials: 'gxy', full: 'gaoxueya' });
    expect(pinyinKeys('2型糖尿病')).toEqual({ initials: '2xtnb', full: '2xingtangniaobing' });
    expect(pinyinKeys('γ-谷氨酰转移酶')?.initials).toBe('γgaxzym');
    // heteronyms in context: 重症 is zhòng, 长春新碱 cháng
    expect(pinyinKeys('重症肺炎')?.initials).toBe('zzfy');
    expect(pinyinKeys('长春新碱')?.full).toBe('changchunxinjian');
    // ü as v, as pinyin keyboards type it
    expect(pinyinKeys('绿脓杆菌')?.full).toBe('lvnongganjun');
    expect(pinyinKeys('ALT')).toBeNull();
  });

  it('keys a term by code, terms, later English words, synonyms and their pinyin', () => {
    const keys = termKeys({
      code: 'I10',
      termZh: '原发性高血压',
      termEn: 'Essential (primary) hypertension',
      synonyms: ['高血压', 'HTN'],
    });
    const by = (kind: number) => keys.filter((k) => k.kind === kind).map((k) => [k.key, k.syn]);
    expect(by(KEY.code)).toEqual([['i10', null]]);
    expect(by(KEY.zh)).toEqual([['原发性高血压', null]]);
    expect(by(KEY.en)).toEqual([['essential (primary) hypertension', null]]);
    expect(by(KEY.enWord)).toEqual([
      ['primary) hypertension', null],
      ['hypertension', null],
    ]);
    expect(by(KEY.synonym)).toEqual([
      ['高血压', 0],
      ['htn', 1],
    ]);
    expect(by(KEY.initials)).toEqual([
      ['yfxgxy', null],
      ['gxy', 0],
    ]);
    expect(by(KEY.pinyin)).toEqual([
      ['yuanfaxinggaoxueya', null],
      ['gaoxueya', 0],
    ]);
    expect(haystackOf({ code: 'I10', termZh: '原发性高血压', termEn: null, synonyms: ['HTN'] })).toBe(
      'i10\n原发性高血压\nhtn',
    );
  });

  it('leaves stop words, short words and numbers out of the later-word keys', () => {
    const keys = termKeys({
      code: 'x',
      termZh: null,
      termEn: 'Fracture of femur with 2 pins, not otherwise specified',
      synonyms: [],
    });
    expect(keys.filter((k) => k.kind === KEY.enWord).map((k) => k.key.split(' ')[0])).toEqual([
      'femur',
      'pins,',
      'otherwise',
      'specified',
    ]);
  });

  it('ends a prefix range just past every text that starts with it', () => {
    expect(prefixEnd('gx')).toBe('gy');
    expect(prefixEnd('高')).toBe(String.fromCodePoint('高'.codePointAt(0)! + 1));
    expect(prefixEnd('a\ud7ff')).toBe('a\ue000');
  });
});
