import { describe, expect, it } from 'vitest';
import { detectChineseNames } from './names-zh.js';
import { surnameLength } from './surnames.js';
import { ctx, texts } from './test-context.js';

describe('Chinese person names', () => {
  it('knows single and compound surnames', () => {
    expect(surnameLength('欧阳娜娜', 0)).toBe(2);
    expect(surnameLength('王芳', 0)).toBe(1);
    expect(surnameLength('的', 0)).toBe(0);
  });

  it('finds names after labels, patient and staff apart', () => {
    const spans = detectChineseNames(ctx('姓名：欧阳娜娜 性别：女\n患者张伟，男，45岁\n主治医师：李建国 记录者：王芳 审核者：刘洋'));
    expect(spans.map((s) => [s.kind, s.text])).toEqual(
      expect.arrayContaining([
        ['personName', '欧阳娜娜'],
        ['personName', '张伟'],
        ['doctor', '李建国'],
        ['doctor', '王芳'],
        ['doctor', '刘洋'],
      ]),
    );
    // a prescription's pharmacy signatures
    const rx = detectChineseNames(ctx('审核药师：赵敏  调配药师：孙立新  核对药师：周杰\n调配：钱伟 核对：范鑫琴'));
    expect(rx.map((s) => [s.kind, s.text])).toEqual(expect.arrayContaining([['doctor', '赵敏'], ['doctor', '孙立新'], ['doctor', '周杰'], ['doctor', '钱伟'], ['doctor', '范鑫琴']]));
    // without a colon these words are verbs: 核对无误, 调配完成
    expect(detectChineseNames(ctx('处方核对无误，调配完成后发药'))).toEqual([]);
  });

  it('finds names by segmentation and before titles', () => {
    expect(texts(detectChineseNames(ctx('今天诸葛亮来了')))).toContain('诸葛亮');
    const spans = detectChineseNames(ctx('请李主任会诊，张建军医生查房'));
    expect(spans.map((s) => [s.kind, s.text])).toEqual(expect.arrayContaining([['doctor', '李'], ['doctor', '张建军']]));
  });

  it('finds a name after a label that a line break cut or that ends the line before', () => {
    expect(texts(detectChineseNames(ctx('无发热，较前改善。患者及家属\n杨博文对病情知情，同意出院。')))).toContain('杨博文');
    expect(texts(detectChineseNames(ctx('无发热，较前改善。患者及家\n属石鑫珍对病情知情，同意出院。')))).toContain('石鑫珍');
    expect(texts(detectChineseNames(ctx('近期自测血压控制欠佳，家属程玲玲陪同就诊。')))).toContain('程玲玲');
    // a line that merely ends with 患者 does not make the next line's first word a name
    expect(detectChineseNames(ctx('入院诊断明确，告知患者\n明显好转后复查'))).toEqual([]);
  });

  it('finds a name that the segmenter glued to the word before its title', () => {
    const spans = detectChineseNames(ctx('患者症状好转。经胡军英主任医师查房后同意出院。'));
    expect(spans.map((s) => [s.kind, s.text])).toEqual(expect.arrayContaining([['doctor', '胡军英']]));
    for (const t of ['经上级医师查房后同意出院', '由住院医师完成病历书写', '经管床医师及主任医师查房'])
      expect(detectChineseNames(ctx(t)), t).toEqual([]);
  });

  it('leaves clinical words alone, even after 患者 or when they start with a surname character', () => {
    for (const t of [
      '患者明显好转，于2024年3月1日出院',
      '阿莫西林 0.5g tid 口服',
      '血红蛋白 138 g/L 参考范围 130-175',
      '诊断：原发性高血压；2型糖尿病；冠状动脉粥样硬化性心脏病',
      '白细胞 6.5×10^9/L，血小板 210×10^9/L，谷丙转氨酶 32 U/L',
      '患者自述胸闷气短，无发热',
      '万古霉素 1g q12h，甲硝唑 0.5g，黄体酮，高血压，贾第鞭毛虫',
    ])
      expect(detectChineseNames(ctx(t)), t).toEqual([]);
  });
});
