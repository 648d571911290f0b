import { isHan } from '../normalize.js';
import { span } from '../spans.js';
import type { DeidKind, DeidSpan, DetectorContext, Token } from '../types.js';
import { surnameLength } from './surnames.js';

// labels a name follows; staff who sign a document count as doctors for the policy
const PATIENT_LABEL = '患者姓名|病人姓名|姓名|患者|病人|受试者|联系人|家属|监护人|患者签名|签名|签字|委托人|代理人';
const STAFF_LABEL =
  '副主任医师|主任医师|主治医师|住院医师|主管医师|经治医师|上级医师|申请医生|申请医师|送检医生|送检医师|开单医生|报告医师|报告医生|审核医师|检验医师|诊断医师|医师签名|医生签名|' +
  // pharmacy (a prescription's signatures)
  '审核药师|调配药师|核对药师|发药药师|配药人|发药人|' +
  '记录者|记录人|报告者|报告人|审核者|审核人|检验者|检验人|检验员|操作者|操作员|录入者|录入人|填表人|采样人|采集者|核对者|核对人|核对(?=[ \t]*[:：])|复核(?=[ \t]*[:：])|调配(?=[ \t]*[:：])|发药(?=[ \t]*[:：])|复核者|复核人|书写者|责任护士|护士|医师|医生|主治|主刀|术者|大夫';
// Chinese text wraps anywhere: a label may be cut by a line break (患者家\n属) or end its line, the name opening the next
const wrappable = (alternatives: string) => alternatives.replace(/(\p{Script=Han})(?=\p{Script=Han})/gu, '$1\\n?');
const LABEL = new RegExp(
  `(?:(?<patient>${wrappable(PATIENT_LABEL)})|(?<staff>${wrappable(STAFF_LABEL)}))(?<sep>[ \\t]*(?:[:：][ \\t]*)?\\n?[ \\t]*)`,
  'g',
);
// titles after a name or a bare surname: 张伟医生, 李主任
const TITLE = /^(?:主任医师|副主任|主任|医生|医师|大夫|教授|护士长|护士|院长)/;
// characters that end a name: sex, age, connectives
const STOP = new Set('男女性年岁的于在是和及与因为等之了所于从对向将把被已未不无有'.split(''));
const NAME_TAGS = /^(?:nr|nrfg|nrt|x)$/;
// what a person named after a label goes on to do
const PERSON_VERB = /^(?:陪同|陪伴|陪诊|同意|签字|签名|表示|要求|知情|拒绝|代诉|代述|诉|述|称|告知|来院|到院|前来|在场|商议|决定|授权|委托|理解|希望)/;

/** Tokens covering [start, end) exactly, or undefined when a word crosses either end. */
function tiling(tokens: readonly Token[], byStart: Map<number, number>, start: number, end: number): Token[] | undefined {
  let i = byStart.get(start);
  if (i === undefined) return undefined;
  const out: Token[] = [];
  while (i < tokens.length && tokens[i]!.end <= end) out.push(tokens[i++]!);
  return out.at(-1)?.end === end ? out : undefined;
}

/** Length of the name at pos (surname + 1–2 given characters) that the segmentation agrees with, or 0. */
function nameLengthAt(ctx: DetectorContext, byStart: Map<number, number>, pos: number, strong: boolean): number {
  const s = surnameLength(ctx.text, pos);
  if (!s) return 0;
  const tokens = ctx.tokens();
  for (const len of [s + 2, s + 1]) {
    const chars = ctx.text.slice(pos + s, pos + len);
    if (Array.from(chars).some((c) => !isHan(c) || STOP.has(c))) continue;
    const words = tiling(tokens, byStart, pos, pos + len);
    const plausible = words?.every((w) => w.word.length === 1 || NAME_TAGS.test(w.tag) || w.word === ctx.text.slice(pos, pos + s));
    if (plausible) return len;
  }
  // a label, then a name, then what people do (家属程玲玲陪同就诊): the verb marks where the name ends
  for (const len of [s + 2, s + 1]) {
    const chars = ctx.text.slice(pos + s, pos + len);
    if (Array.from(chars).some((c) => !isHan(c) || STOP.has(c))) continue;
    // the segmenter's words must end where the name does, none of them a verb (查房后同意 is no name)
    const words = tiling(tokens, byStart, pos, pos + len);
    if (words?.every((w) => !/^v/.test(w.tag)) && PERSON_VERB.test(ctx.text.slice(pos + len, pos + len + 3))) return len;
  }
  // after an explicit "姓名：" the segmenter may disagree; take the Han characters up to a stop
  if (!strong) return 0;
  let len = s;
  while (len < s + 2 && isHan(ctx.text[pos + len]) && !STOP.has(ctx.text[pos + len]!)) len++;
  return len > s ? len : 0;
}

function byStartIndex(tokens: readonly Token[]): Map<number, number> {
  return new Map(tokens.map((t, i) => [t.start, i]));
}

function labelled(ctx: DetectorContext, byStart: Map<number, number>): DeidSpan[] {
  const out: DeidSpan[] = [];
  for (const m of ctx.text.matchAll(LABEL)) {
    const pos = m.index + m[0].length;
    // a colon, or a label cut by a line break, says a name follows; a label that merely ends its line does not
    const label = m[0].slice(0, m[0].length - (m.groups?.sep ?? '').length);
    const strong = /[:：]/.test(m.groups?.sep ?? '') || label.includes('\n');
    const len = nameLengthAt(ctx, byStart, pos, strong);
    if (!len) continue;
    const kind: DeidKind = m.groups?.staff ? 'doctor' : 'personName';
    out.push(span(ctx.text, pos, pos + len, kind, kind === 'doctor' ? 'name.staffLabel' : 'name.label'));
  }
  return out;
}

// a title after a name in running text (经胡军英主任医师查房), with the words that make a longer title start earlier
const TITLE_AFTER = /(?:(?:上级|值班|主管|经治|管床|责任|实习|进修|规培|住院|主治|副主任|主任|接诊|会诊|门诊|急诊|首诊|带教)?(?:医师|医生)|副教授|教授|大夫|护士长)/g;
// characters that end a clause and may stand right before a name: 经, 由, 请, 与 …
const BEFORE_NAME = new Set('经由请被与和向让给及同陪跟嘱示'.split(''));

/** A name right before a title, where the segmenter glued it to the word before (经胡军 / 英 / 主任医师). */
function beforeTitles(ctx: DetectorContext): DeidSpan[] {
  const out: DeidSpan[] = [];
  const text = ctx.text;
  for (const m of text.matchAll(TITLE_AFTER)) {
    const p = m.index;
    // the longest name first: compound surname + 2, surname + 2, surname + 1
    for (let q = Math.max(0, p - 4); q <= p - 2; q++) {
      const s = surnameLength(text, q);
      const len = p - q;
      if (!s || len < s + 1 || len > s + 2) continue;
      const chars = Array.from(text.slice(q, p));
      if (chars.some((c) => !isHan(c)) || chars.slice(s).some((c) => STOP.has(c))) continue;
      const before = text[q - 1];
      if (q > 0 && isHan(before) && !BEFORE_NAME.has(before!)) continue;
      out.push(span(text, q, p, 'doctor', 'name.beforeTitle'));
      break;
    }
  }
  return out;
}

function segmented(ctx: DetectorContext): DeidSpan[] {
  const out: DeidSpan[] = [];
  for (const t of ctx.tokens()) {
    const s = surnameLength(t.word, 0);
    if (!s || !Array.from(t.word).every(isHan)) continue;
    const title = TITLE.exec(ctx.text.slice(t.end));
    if (t.word.length === s && title) {
      // a bare surname with a title (李主任) still points at one person
      out.push(span(ctx.text, t.start, t.end, 'doctor', 'name.surname+title'));
    } else if ((t.tag === 'nr' || t.tag === 'nrfg') && t.word.length >= 2 && t.word.length <= s + 2) {
      out.push(span(ctx.text, t.start, t.end, title ? 'doctor' : 'personName', title ? 'name.title' : 'name.surname+pos'));
    } else if (t.tag === 'x' && t.word.length >= s + 1 && t.word.length <= s + 2 && title) {
      out.push(span(ctx.text, t.start, t.end, 'doctor', 'name.title'));
    }
  }
  return out;
}

/** Finds Chinese person names: after labels (姓名, 患者, 医师 …, also cut by a line break), by segmentation (jieba 'nr') with a surname, and before titles. */
export function detectChineseNames(ctx: DetectorContext): DeidSpan[] {
  if (!/\p{Script=Han}/u.test(ctx.text)) return [];
  const byStart = byStartIndex(ctx.tokens());
  return [...labelled(ctx, byStart), ...segmented(ctx), ...beforeTitles(ctx)];
}
