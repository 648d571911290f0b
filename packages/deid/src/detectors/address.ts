import { span } from '../spans.js';
import type { DeidSpan, DetectorContext } from '../types.js';

// One Chinese address component: a short Han name with an administrative or street unit, or a number with a unit.
const ZH_NAMED = '[\\p{Script=Han}]{1,8}?(?:自治区|自治州|特别行政区|省|市|地区|盟|区|县|旗|街道|镇|乡|村|社区|居委会|大道|路|道(?=[ \\t]*\\d)|街|巷|弄|胡同|里|小区|花园|家园|花苑|苑|府|山庄|公馆|华庭|新村|公寓|大厦|广场|组)';
const ZH_NUMBERED = '(?:\\d+|[一二三四五六七八九十百]+)(?:号院|号楼|号|栋|幢|座|单元|层|楼|室|户|组|排|弄|巷)';
// a street unit straight after a name that itself ended in a unit (科苑 + 路 + 399号)
const ZH_BARE_STREET = '(?:大道|路|街|巷|弄|胡同)';
const ZH_PART = `(?:${ZH_NAMED}|${ZH_NUMBERED}|${ZH_BARE_STREET}|[-—\\s])`;
const ZH_ADDRESS = new RegExp(`(?:${ZH_NAMED}|${ZH_NUMBERED})${ZH_PART}*`, 'guy');
const ZH_LABEL = /(?:家庭住址|现住址|户籍地址|户籍地|常住地址|联系地址|通讯地址|居住地|住址|地址|籍贯|出生地)[ \t]*[:：]?[ \t]*$/;
const ADMIN_OR_STREET = /(?:省|自治区|市|区|县|镇|乡|村|街道|路|街|大道|巷|弄|胡同)/u;
// an address starts at a place, organisation or number word, so 患者/家住 in front stay out
const ZH_START_TAGS = /^(?:ns|nz|nt|m|x|j|s)$/;

// after an address label and its colon, the whole value up to the line's end, a wide gap or a clause mark
const ZH_LABEL_VALUE = /(?:家庭住址|现住址|户籍地址|常住地址|联系地址|通讯地址|居住地址|住址|地址)[ \t]*[:：][ \t]*(?<value>[^\n\t;；,，。]{2,60})/gu;

function zhAddresses(ctx: DetectorContext): DeidSpan[] {
  if (!/\p{Script=Han}/u.test(ctx.text)) return [];
  const out: DeidSpan[] = [];
  for (const m of ctx.text.matchAll(ZH_LABEL_VALUE)) {
    const raw = m.groups!.value!;
    const value = raw.split(/ {2,}/)[0]!.trimEnd();
    // a place written in Han with a unit, not 不详 / 同上 / a bare number
    if (!/\p{Script=Han}/u.test(value) || !ADMIN_OR_STREET.test(value)) continue;
    const start = m.index + m[0].length - raw.length;
    out.push(span(ctx.text, start, start + value.length, 'address', 'address.zh+label'));
  }
  let from = 0;
  // an address starts where a word starts (the segmenter keeps "患者" out of "北京市")
  for (const t of ctx.tokens()) {
    if (t.start < from || !ZH_START_TAGS.test(t.tag)) continue;
    ZH_ADDRESS.lastIndex = t.start;
    const m = ZH_ADDRESS.exec(ctx.text);
    if (!m) continue;
    const text = m[0].trimEnd().replace(/[-—]+$/, '');
    const parts = (text.match(new RegExp(`${ZH_NAMED}|${ZH_NUMBERED}`, 'gu')) ?? []).length;
    const labelled = ZH_LABEL.test(ctx.text.slice(Math.max(0, t.start - 12), t.start));
    // two components of which one is a place or street (北京市朝阳区, 建国路88号), or one after an address label
    if (ADMIN_OR_STREET.test(text) && (parts >= 2 || labelled)) {
      const end = t.start + text.length;
      // already inside a labelled value found above
      if (!out.some((o) => o.start <= t.start && end <= o.end)) out.push(span(ctx.text, t.start, t.start + text.length, 'address', labelled ? 'address.zh+label' : 'address.zh'));
      from = t.start + text.length;
    }
  }
  return out;
}

const STREET_TYPE =
  'Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Terrace|Ter|Parkway|Pkwy|Circle|Cir|Highway|Hwy|Square|Sq|Trail|Trl|Crescent|Close|Row|Alley|Plaza|Loop|Path|Pike|Crossing|Gardens|Heights|Park|Ridge|Walk';
// 1755 Nelson Mandela Drive, Apt. 5, Springfield, IL 62704
const EN_ADDRESS = new RegExp(
  `(?<![\\w-])\\d{1,6}[A-Za-z]?(?:[ \\t]+(?:[NSEW]\\.?|North|South|East|West))?(?:[ \\t]+[A-Z][\\p{L}'’.-]*){1,4}[ \\t]+(?:${STREET_TYPE})\\.?(?![\\p{L}])` +
    `(?:,?[ \\t]*(?:Apt\\.?|Apartment|Suite|Ste\\.?|Unit|Room|Rm\\.?|Floor|Fl\\.?|#)[ \\t]*[\\w-]+)?` +
    `(?:,?[ \\t\\n]*[A-Z][\\p{L}'’.-]*(?:[ \\t]+[A-Z][\\p{L}'’.-]*){0,2},?[ \\t]+[A-Z]{2}[ \\t]+\\d{5}(?:-\\d{4})?)?`,
  'gu',
);
const EN_UNIT = /(?<![\w])(?:Apt\.?|Apartment|Suite|Ste\.?|Unit)[ \t]*#?[ \t]*\d+[A-Za-z]?(?![\w])/gi;
const EN_LABEL_ADDRESS = /(?<![A-Za-z])(?<!(?:IP|E-?mail|MAC|Web|IPv[46])\s)(?:Address|Addr\.?|Home Address|Residence|Lives at|Resides at)[ \t]*[:：]?[ \t]*(?<value>\d[^\n;]{4,80})/gi;

function enAddresses(ctx: DetectorContext): DeidSpan[] {
  const out: DeidSpan[] = [];
  for (const m of ctx.text.matchAll(EN_ADDRESS)) out.push(span(ctx.text, m.index, m.index + m[0].length, 'address', 'address.en'));
  for (const m of ctx.text.matchAll(EN_UNIT)) out.push(span(ctx.text, m.index, m.index + m[0].length, 'address', 'address.en.unit'));
  for (const m of ctx.text.matchAll(EN_LABEL_ADDRESS)) {
    // the value ends at a wide gap (the next field on the same line)
    const value = (m.groups?.value ?? '').split(/\t| {2,}/)[0]!.replace(/[\s.,]+$/, '');
    const start = m.index + m[0].length - (m.groups?.value ?? '').length;
    out.push(span(ctx.text, start, start + value.length, 'address', 'address.en+label'));
  }
  return out;
}

/** Finds postal addresses: Chinese (省 市 区 县 路 街 号 楼 室 村 …) and English street addresses. */
export function detectAddresses(ctx: DetectorContext): DeidSpan[] {
  return [...zhAddresses(ctx), ...enAddresses(ctx)];
}
