import { span, uniqueSpans } from '../spans.js';
import type { DeidSpan, DetectorContext, Token } from '../types.js';

// the word that ends a Chinese institution name
const ZH_SUFFIX = /(?:医院|卫生院|卫生服务中心|卫生服务站|医学中心|医疗中心|诊疗中心|妇幼保健院|保健院|疗养院|诊所|卫生所|门诊部|医务室)/g;
// words that may start or continue an institution name; a verb, preposition or punctuation ends it
const NAME_PART_TAGS = /^(?:ns|nt|nz|nr|nrt|nrfg|n|b|j|m|x|s|f|a|l|i)$/;
const NOT_PART = new Set(['患者', '病人', '我院', '本院', '外院', '他院', '就诊', '转入', '转至', '来自', '收入', '我', '在', '于', '到', '从', '至', '转', '入', '经', '行', '曾', '去', '今', '来']);
const EN = /(?<![A-Za-z])(?:(?:St\.?|Saint|[A-Z][A-Za-z'’&.-]*)[ \t]+){1,6}(?:General[ \t]+|Memorial[ \t]+|Children's[ \t]+|University[ \t]+|Community[ \t]+|Regional[ \t]+)*(?:Hospital|Medical[ \t]+Cent(?:er|re)|Health[ \t]+(?:System|Cent(?:er|re))|Clinic|Infirmary|Cancer[ \t]+Cent(?:er|re))(?:[ \t]+of[ \t]+(?:[A-Z][A-Za-z'’.-]*[ \t]*){1,4})?/g;
// names written in capitals on letterheads: NORTHWESTERN MEMORIAL HOSPITAL
const EN_CAPS = /(?<![A-Za-z])(?:(?:ST\.?|SAINT|[A-Z][A-Z'’&.-]*)[ \t]+){1,6}(?:HOSPITAL|MEDICAL[ \t]+CENT(?:ER|RE)|HEALTH[ \t]+(?:SYSTEM|CENT(?:ER|RE))|CLINIC|INFIRMARY|CANCER[ \t]+CENT(?:ER|RE))(?![A-Za-z])/g;
const EN_GENERIC_HEAD = /^(?:The|A|An|This|Our|Your|His|Her|Their|At|In|To|From|Of|Discharged|Admitted|Transferred|Outside|Local|Hospital|Outpatient|Inpatient|Emergency|Discharge|Admission|Specialist|Follow-up|Day|Walk-in)$/i;

function zhStart(text: string, tokens: readonly Token[], suffixStart: number): number {
  let i = tokens.findIndex((t) => t.end > suffixStart);
  let start = tokens[i]?.start ?? suffixStart;
  // walk back over name-like words (北京 协和, 上海交通大学 医学院 附属 瑞金)
  for (i -= 1; i >= 0; i--) {
    const t = tokens[i]!;
    if (!NAME_PART_TAGS.test(t.tag) || NOT_PART.has(t.word) || !/^[\p{Script=Han}A-Za-z0-9]+$/u.test(t.word)) break;
    start = t.start;
  }
  // a name that opens its line (a report's title: 示范市人民医院检验报告单) keeps its first word whatever the segmenter
  // tagged it: nothing before it on the line can be the sentence it would otherwise belong to
  const t = tokens[i];
  if (t && t.end === start && !NOT_PART.has(t.word) && /^\p{Script=Han}{1,4}$/u.test(t.word) && /(?:^|[\n\r\t \u3000:：|])$/.test(text.slice(0, t.start))) start = t.start;
  return start;
}

/** Finds hospital and clinic names: Chinese (…医院, …卫生院, …医学中心) and English (… Hospital, … Medical Center). */
export function detectHospitals(ctx: DetectorContext): DeidSpan[] {
  const out: DeidSpan[] = [];
  if (/\p{Script=Han}/u.test(ctx.text)) {
    const tokens = ctx.tokens();
    for (const m of ctx.text.matchAll(ZH_SUFFIX)) {
      const start = zhStart(ctx.text, tokens, m.index);
      const end = m.index + m[0].length;
      // a bare "医院" or "中心" names no one
      if (end - start > m[0].length) out.push(span(ctx.text, start, end, 'hospital', 'hospital.zh'));
    }
  }
  for (const m of [...ctx.text.matchAll(EN), ...ctx.text.matchAll(EN_CAPS)]) {
    let start = m.index;
    let text = m[0].trimEnd();
    // drop leading words that are not part of a name ("Discharged from Mercy Hospital" starts at Mercy)
    const words = text.split(/[ \t]+/);
    while (words.length > 1 && EN_GENERIC_HEAD.test(words[0]!)) {
      const w = words.shift()!;
      const cut = text.indexOf(w) + w.length;
      const rest = text.slice(cut).replace(/^[ \t]+/, '');
      start += text.length - rest.length;
      text = rest;
    }
    if (words.length > 1) out.push(span(ctx.text, start, start + text.length, 'hospital', 'hospital.en'));
  }
  return uniqueSpans(out);
}
