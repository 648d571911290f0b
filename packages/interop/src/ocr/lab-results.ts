/**
 * Lab results read from the OCR text of a report page (issue 12 item 6, OCR association). Pure: no database.
 *
 * 1. `groupRows`: the page's text regions (an OCR engine's line pieces or a PDF's text items, in page pixels) are
 *    grouped into table rows by vertical overlap, each row read left to right;
 * 2. `parseLabRows`: each row is read as one or more results — test name, value, then in any order an abnormal flag,
 *    a unit and a reference range — in Chinese and English layouts ('血红蛋白 HGB | 132 | ↑ | g/L | 130-175',
 *    'Glucose 5.6 mmol/L (3.9-6.1) H');
 * 3. each result carries the union box of the regions it was read from, so a value proposed from it can be shown
 *    on the page.
 *
 * What must always hold: nothing is guessed. A row without a test name before its value, a patient-information row
 * (name, age, bed, page number…), a date or a long number (phone, specimen number) is not a result. A value is kept
 * as read: '<0.5' stays text, never 0.5.
 */
import { isUcumUnit } from '../mapping/ucum';

/** A text region of a page as stored on a source file (page pixels, origin top-left). */
export interface OcrTextLine {
  page: number;
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A rectangle on one page (page pixels). */
export interface PageRegion {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** H high, L low, A abnormal (no direction). */
export type LabFlag = 'H' | 'L' | 'A';

export interface LabCandidate {
  /** the test name as read (white space collapsed) */
  name: string;
  /** the names to match, most specific first: the whole name, then its Chinese and its Latin part when it has both */
  names: string[];
  /** a numeric result; null for a text result */
  valueNum: number | null;
  /** a text result ('<0.5', '阴性', '+'), null for a number */
  valueText: string | null;
  /** the value as written on the page */
  valueRaw: string;
  /** the unit as read */
  unit: string | null;
  /** the unit as UCUM when it can be written so ('10^9/L' → '10*9/L', 'μmol/L' → 'umol/L'), else null */
  ucum: string | null;
  /** the reference range as read ('3.9-6.1', '<5.2') */
  range: string | null;
  flag: LabFlag | null;
  /** the row's text, cells separated by ' | ' */
  text: string;
  /** the union of the regions the result was read from */
  region: PageRegion;
  /** indexes (in the input) of those regions */
  lines: number[];
}

interface Token {
  text: string;
  line: number;
}

/** A row of a page: its regions' indexes, left to right. */
export interface OcrRow {
  page: number;
  lines: number[];
}

const CJK = /[\u3400-\u9fff\uf900-\ufaff]/;
const LETTER = /[A-Za-z\u00c0-\u024f\u0370-\u03ff]/;

/** Full-width forms to ASCII, µ to μ; white space collapsed. */
function normalize(s: string): string {
  return s
    .normalize('NFKC')
    .replace(/\u00b5/g, 'μ')
    .replace(/\s+/g, ' ')
    .trim();
}

const vOverlap = (a: { y: number; height: number }, top: number, bottom: number) =>
  Math.max(0, Math.min(a.y + a.height, bottom) - Math.max(a.y, top));

/**
 * Groups a page's regions into rows: a region joins the row whose vertical band it overlaps by at least half of the
 * smaller height (the band is the row's average top and bottom, so a tall region cannot chain two rows together).
 * Rows top to bottom, regions in a row left to right. Empty texts are left out.
 */
export function groupRows(lines: readonly OcrTextLine[]): OcrRow[] {
  const byPage = new Map<number, number[]>();
  lines.forEach((l, i) => {
    if (normalize(l.text) === '' || !(l.height > 0)) return;
    byPage.set(l.page, [...(byPage.get(l.page) ?? []), i]);
  });
  const out: OcrRow[] = [];
  for (const page of [...byPage.keys()].sort((a, b) => a - b)) {
    const idx = byPage
      .get(page)!
      .sort(
        (a, b) =>
          lines[a]!.y + lines[a]!.height / 2 - (lines[b]!.y + lines[b]!.height / 2) ||
          lines[a]!.x - lines[b]!.x,
      );
    const rows: { lines: number[]; top: number; bottom: number }[] = [];
    for (const i of idx) {
      const l = lines[i]!;
      let best: (typeof rows)[number] | null = null;
      let bestRatio = 0;
      // only the last few rows can overlap a region met in order of its centre
      for (const r of rows.slice(-3)) {
        const ratio = vOverlap(l, r.top, r.bottom) / Math.min(l.height, r.bottom - r.top);
        if (ratio >= 0.5 && ratio > bestRatio) {
          best = r;
          bestRatio = ratio;
        }
      }
      if (best) {
        const n = best.lines.length;
        best.lines.push(i);
        best.top = (best.top * n + l.y) / (n + 1);
        best.bottom = (best.bottom * n + l.y + l.height) / (n + 1);
      } else rows.push({ lines: [i], top: l.y, bottom: l.y + l.height });
    }
    for (const r of rows) out.push({ page, lines: r.lines.sort((a, b) => lines[a]!.x - lines[b]!.x) });
  }
  return out;
}

// ── token classes ──
const NUMBER = /^[-+]?(\d+(\.\d+)?|\.\d+)$/;
const QUALIFIED = /^([<>≤≥]=?)\s*(\d+(\.\d+)?)$/;
const QUALITATIVE =
  /^(阴性|阳性|弱阳性|可疑|未检出|检出|微量|negative|positive|neg|pos|trace|not detected|detected|\+{1,4}|±|-)(\([-+±]{1,4}\))?$/i;
const RANGE = /^[([]?(-?\d+(\.\d+)?)(-|~|—|–|－|至|to)(-?\d+(\.\d+)?)[)\]]?$/i;
const LIMIT = /^[([]?([<>≤≥]=?)(\d+(\.\d+)?)[)\]]?$/;
const FLAGS: Record<string, LabFlag | 'N'> = {
  h: 'H',
  hh: 'H',
  '↑': 'H',
  '↑↑': 'H',
  高: 'H',
  偏高: 'H',
  l: 'L',
  ll: 'L',
  '↓': 'L',
  '↓↓': 'L',
  低: 'L',
  偏低: 'L',
  a: 'A',
  '*': 'A',
  异常: 'A',
  n: 'N',
  正常: 'N',
};
/** units without a '/' or digits that a lab report writes (lower case); 'L' alone is the low flag, never litres */
const BARE_UNITS = new Set([
  '%',
  '‰',
  'g',
  'mg',
  'μg',
  'ug',
  'ng',
  'pg',
  'fl',
  'ml',
  'dl',
  'u',
  'iu',
  'mu',
  'miu',
  'mmhg',
  'kpa',
  's',
  'sec',
  'min',
  'mm',
  'cm',
  'kg',
  'bpm',
  'ratio',
  'mosm',
  'meq',
  'cells',
  '秒',
  '倍',
]);
const UNIT_CHARS = /^[A-Za-zμ%‰×*^\d/.\-()[\]]+$/;

function isUnit(t: string): boolean {
  const l = t.toLowerCase();
  if (BARE_UNITS.has(l)) return true;
  if (!UNIT_CHARS.test(t) || !(LETTER.test(t) || t.includes('%'))) return false;
  // a slash or a power of ten makes a unit; letters only are a unit only when listed
  return t.includes('/') || /^[×x*]?10[\^*eE]?\d/.test(t);
}

function flagOf(t: string): LabFlag | 'N' | undefined {
  return FLAGS[t.toLowerCase()];
}

/** Splits a value token with something attached: '5.6↑', '132H', '5.6mmol/L'. */
function splitValue(t: string): { value: string; flag?: LabFlag | 'N'; unit?: string } | null {
  let m = /^([-+]?\d+(?:\.\d+)?)(↑↑?|↓↓?|H|L|\*)$/.exec(t);
  if (m) return { value: m[1]!, flag: flagOf(m[2]!)! };
  m = /^([-+]?\d+(?:\.\d+)?)([A-Za-zμ%×][A-Za-zμ%‰×*^\d/.]*)$/.exec(t);
  if (m && isUnit(m[2]!)) return { value: m[1]!, unit: m[2]! };
  return null;
}

function valueOf(
  t: string,
): { num: number | null; text: string | null; flag?: LabFlag | 'N'; unit?: string; raw: string } | null {
  if (NUMBER.test(t)) {
    // a long whole number is an identifier, a phone or a specimen number, not a result
    if (/^\d{7,}$/.test(t.replace(/^[-+]/, ''))) return null;
    return { num: Number(t), text: null, raw: t };
  }
  if (QUALIFIED.test(t)) return { num: null, text: t.replace(/\s+/g, ''), raw: t };
  if (QUALITATIVE.test(t)) return { num: null, text: t, raw: t };
  const s = splitValue(t);
  if (s)
    return {
      num: Number(s.value),
      text: null,
      raw: t,
      ...(s.flag ? { flag: s.flag } : {}),
      ...(s.unit ? { unit: s.unit } : {}),
    };
  return null;
}

// ── names ──
/** whole-word English names of patient, specimen and page information */
const STOP_WORDS = new Set([
  'name',
  'patient',
  'sex',
  'gender',
  'age',
  'dob',
  'birth',
  'date',
  'page',
  'bed',
  'ward',
  'dept',
  'department',
  'doctor',
  'physician',
  'specimen',
  'sample',
  'mrn',
  'id',
  'no',
  'phone',
  'tel',
  'address',
  'report',
  'reported',
  'collected',
  'received',
  'diagnosis',
  'comment',
  'comments',
  'of',
]);
/** Chinese words of patient, specimen and page information (anywhere in the name) */
const STOP_CJK = [
  '姓名',
  '性别',
  '年龄',
  '科室',
  '床号',
  '病历号',
  '住院号',
  '门诊号',
  '病案号',
  '标本',
  '样本',
  '条码',
  '日期',
  '医生',
  '医师',
  '审核',
  '检验者',
  '检验员',
  '电话',
  '地址',
  '编号',
  '诊断',
  '备注',
  '送检',
  '申请',
  '参考',
  '第',
  '共',
  '页',
  '岁',
];

function isStopName(name: string): boolean {
  if (STOP_CJK.some((w) => name.includes(w))) return true;
  const words = name
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);
  return words.length > 0 && words.some((w) => STOP_WORDS.has(w)) && !CJK.test(name);
}

/** The names to match: the whole name, then (when it has both) its Chinese part and its Latin part. */
export function nameVariants(name: string): string[] {
  const out = [name];
  const add = (s: string) => {
    const v = s.replace(/^[\s*★#:：]+|[\s*★#:：]+$/g, '').trim();
    if (v !== '' && !out.includes(v)) out.push(v);
  };
  const paren = /^(.*?)\s*[(（]([^()（）]+)[)）]\s*$/.exec(name);
  if (paren) {
    add(paren[1]!);
    add(paren[2]!);
  }
  const tokens = name.split(/\s+/);
  if (CJK.test(name) && tokens.length > 1) {
    add(tokens.filter((t) => CJK.test(t)).join(''));
    add(tokens.filter((t) => !CJK.test(t)).join(' '));
  }
  return out;
}

/** '10^9/L' → '10*9/L', 'μmol/l' → 'umol/L', 'IU/L' → '[IU]/L', 'mmHg' → 'mm[Hg]': the UCUM form, or null. */
export function ucumOfLabUnit(unit: string): string | null {
  let u = normalize(unit).replace(/\s+/g, '');
  if (u === '') return null;
  u = u.replace(/μ/g, 'u');
  const pow = /^[×x*]?10[\^*eE](\d+)\/(.+)$/.exec(u);
  if (pow) u = `10*${pow[1]}/${pow[2]}`;
  u = u
    .replace(/^(m|u)?IU(?=\/|$)/i, (_, p: string | undefined) => `${p ?? ''}[IU]`)
    .replace(/^mmHg$/i, 'mm[Hg]')
    .replace(/^(sec|秒)$/i, 's')
    .replace(/(^|[/*.mdunpf])l(?=$|[/*.])/g, '$1L');
  return isUcumUnit(u) ? u : null;
}

const union = (lines: readonly OcrTextLine[], idx: readonly number[]): PageRegion => {
  const ls = idx.map((i) => lines[i]!);
  const x = Math.min(...ls.map((l) => l.x));
  const y = Math.min(...ls.map((l) => l.y));
  const right = Math.max(...ls.map((l) => l.x + l.width));
  const bottom = Math.max(...ls.map((l) => l.y + l.height));
  const r = (n: number) => Math.round(n * 100) / 100;
  return { page: ls[0]!.page, x: r(x), y: r(y), width: r(right - x), height: r(bottom - y) };
};

/** The tokens of a row: cells split on '|', tabs and wide gaps, then on spaces; ranges written with spaces joined. */
function tokensOf(lines: readonly OcrTextLine[], row: OcrRow): { tokens: Token[]; text: string } {
  const tokens: Token[] = [];
  const cells: string[] = [];
  for (const i of row.lines) {
    const raw = lines[i]!.text.normalize('NFKC').replace(/\u00b5/g, 'μ');
    for (const cell of raw.split(/\s*\|\s*|\t|\s{3,}/)) {
      const c = cell
        .replace(/\s+/g, ' ')
        .trim()
        // '3.9 - 6.1', '( 3.9-6.1 )', '< 5.2', '132 ↑' as one token each
        .replace(/(\d)\s*(-|~|—|–|－|至)\s*(?=-?\d)/g, '$1$2')
        .replace(/(\d)\s+to\s+(?=\d)/gi, '$1-')
        .replace(/([([])\s+/g, '$1')
        .replace(/\s+([)\]])/g, '$1')
        .replace(/([<>≤≥]=?)\s+(?=\d)/g, '$1')
        .replace(/(\d)\s+(↑↑?|↓↓?)(?=\s|$)/g, '$1$2');
      if (c === '') continue;
      cells.push(c);
      for (const t of c.split(' ')) tokens.push({ text: t, line: i });
    }
  }
  return { tokens, text: cells.join(' | ') };
}

/** Reads the results of one row (a row of a two-column report may hold two). */
export function parseRow(lines: readonly OcrTextLine[], row: OcrRow): LabCandidate[] {
  const { tokens, text } = tokensOf(lines, row);
  const out: LabCandidate[] = [];
  let name: Token[] = [];
  // the region the last result ended in: words after it there (a remark) do not start the next result's name
  let ended = -1;
  let i = 0;
  while (i < tokens.length) {
    const t = tokens[i]!;
    const v = valueOf(t.text);
    const named = name.some((n) => CJK.test(n.text) || LETTER.test(n.text));
    if (!v || !named) {
      // a value with no name before it (a row number, a stray figure) starts nothing; a name token is collected
      if (v) name = [];
      else if (name.length > 0 && t.line !== ended && name.every((n) => n.line === ended)) name = [t];
      else name.push(t);
      i++;
      continue;
    }
    const used = [...name.map((n) => n.line), t.line];
    let flag: LabFlag | 'N' | null = v.flag ?? null;
    let unit: string | null = v.unit ?? null;
    let range: string | null = null;
    let j = i + 1;
    for (; j < tokens.length; j++) {
      const n = tokens[j]!.text;
      const f = flagOf(n);
      if (f && flag === null) flag = f;
      else if ((RANGE.test(n) || LIMIT.test(n)) && range === null) range = n.replace(/^[([]|[)\]]$/g, '');
      else if (unit === null && isUnit(n)) unit = n;
      else break;
      used.push(tokens[j]!.line);
    }
    const nameText = name
      .map((n) => n.text)
      .join(' ')
      .replace(/^[*★#]+|[:：]+$/g, '')
      .trim();
    if (nameText !== '' && nameText.length <= 60 && !isStopName(nameText)) {
      const lineSet = [...new Set(used)];
      out.push({
        name: nameText,
        names: nameVariants(nameText),
        valueNum: v.num,
        valueText: v.text,
        valueRaw: v.raw,
        unit,
        ucum: unit ? ucumOfLabUnit(unit) : null,
        range,
        flag: flag === 'N' ? null : flag,
        text,
        region: union(lines, lineSet),
        lines: lineSet,
      });
    }
    name = [];
    ended = tokens[j - 1]!.line;
    i = j;
  }
  return out;
}

/** Every result candidate of the regions (all pages), top to bottom, left to right. */
export function parseLabResults(lines: readonly OcrTextLine[]): LabCandidate[] {
  return groupRows(lines).flatMap((r) => parseRow(lines, r));
}

const DATE_LABEL =
  /(采样|采集|收样|接收|送检|检验|检测|报告|审核)(日期|时间)|(collect(?:ion|ed)|sampl(?:ed|ing)|receiv(?:ed)?|report(?:ed)?)\s*(?:date|time|on|at)?/i;
const DATE_VALUE = /(\d{4})\s*[-/.年]\s*(\d{1,2})\s*[-/.月]\s*(\d{1,2})/;

/**
 * The report's clinical date (YYYY-MM-DD): a date labelled as the specimen's collection (preferred: the clinical
 * moment) or the report's; null when none is labelled so (a date elsewhere may be a birth date).
 */
export function readReportDate(lines: readonly OcrTextLine[]): string | null {
  let reported: string | null = null;
  for (const row of groupRows(lines)) {
    const text = row.lines.map((i) => normalize(lines[i]!.text)).join(' ');
    const label = DATE_LABEL.exec(text);
    if (!label) continue;
    const m = DATE_VALUE.exec(text.slice(label.index));
    if (!m) continue;
    const d = `${m[1]}-${m[2]!.padStart(2, '0')}-${m[3]!.padStart(2, '0')}`;
    if (
      Number.isNaN(Date.parse(`${d}T00:00:00Z`)) ||
      new Date(`${d}T00:00:00Z`).toISOString().slice(0, 10) !== d
    )
      continue;
    if (/采样|采集|collect|sampl/i.test(label[0])) return d;
    reported ??= d;
  }
  return reported;
}
