/**
 * The reference range of a source record (issue 13 item 3). Ranges are not stored as columns: they are read from the
 * record's raw payload, by format —
 *
 * | rawFormat | where the range is |
 * |---|---|
 * | fhir | Observation.referenceRange[] (low / high / text; the normal or recommended one, for the patient's sex when it says), Observation.interpretation[] for the flag; a component record reads its component's |
 * | hl7v2 | OBX-7 ('3.5-5.0', '<5', '>10', '3.5~5.0', '3.5--5.0', '4.3 to 6.2', '70_105', '男:130-175 女:115-150'), OBX-8 abnormal flags (H, L, HH, LL, A, N …) |
 * | sql, ocr | the row's columns, by name: ref_low / ref_high / range / reference_range / 参考范围 / 参考值 / 下限 / 上限 / flag / 异常标志 … (case, spaces, '_' and '-' ignored) |
 *
 * Never throws: a malformed payload gives what could be read, or null.
 */
import type { RangeBounds } from './ctcae-analytes';
import { parseNumber, rangeFlag, type RangeFlag } from './lab-values';

export interface ReferenceRange {
  low?: number;
  high?: number;
  /** the range as written */
  text?: string;
  flag?: RangeFlag;
  /** the bounds' unit, when the payload gives one that may differ from the value's (FHIR low.code / low.unit) */
  unit?: string;
}

/** What is known about the patient that selects a range ('男 130-175 女 115-150', FHIR appliesTo). */
export interface RangeContext {
  sex?: 'male' | 'female';
}

/** The fields of a source record that grading reads (an ExtractedRecord or a stored source_records row). */
export interface LabRecordInput {
  rawFormat: string;
  raw?: string | null;
  code?: string | null;
  codeSystem?: string | null;
  display?: string | null;
  valueNum?: number | null;
  valueText?: string | null;
  unit?: string | null;
  docType?: number | null;
  externalId?: string | null;
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = (v: unknown): unknown[] => (Array.isArray(v) ? (v as unknown[]) : []);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined;
const MAX_TEXT = 200;

// ── range text ──

const NUM = String.raw`([-+]?(?:\d+(?:,\d{3})*(?:\.\d+)?|\.\d+))`;
const OPEN = String.raw`^[[(]?\s*`;
const RANGE = new RegExp(`${OPEN}${NUM}\\s*(?:--|-|~|〜|–|—|―|_|\\.\\.|to|至|到)\\s*${NUM}`, 'i');
const UPPER = new RegExp(
  `${OPEN}(?:<=|≤|≦|<|less than|below|under|小于等于|小于|低于|不超过|不高于)\\s*${NUM}`,
  'i',
);
const LOWER = new RegExp(
  `${OPEN}(?:>=|≥|≧|>|greater than|above|over|大于等于|大于|高于|不低于)\\s*${NUM}`,
  'i',
);
const SEX_HINT = /男|女|\b[mf]\b|male/i;
const SEX_LABEL = /(男性?|女性?|\bfemales?\b|\bmales?\b|\b[mf]\b)\s*[:：]?/gi;

type Bounds = RangeBounds;

function plainRange(t: string): Bounds {
  let m = RANGE.exec(t);
  if (m) {
    const low = parseNumber(m[1]!);
    const high = parseNumber(m[2]!);
    return low !== undefined && high !== undefined && low <= high ? { low, high } : {};
  }
  m = UPPER.exec(t);
  if (m) {
    const high = parseNumber(m[1]!);
    return high === undefined ? {} : { high };
  }
  m = LOWER.exec(t);
  if (m) {
    const low = parseNumber(m[1]!);
    return low === undefined ? {} : { low };
  }
  return {};
}

/** The widest of several ranges (a bound only when every range has it). */
function envelope(list: Bounds[]): Bounds {
  const out: Bounds = {};
  if (list.length && list.every((b) => b.low !== undefined)) out.low = Math.min(...list.map((b) => b.low!));
  if (list.length && list.every((b) => b.high !== undefined))
    out.high = Math.max(...list.map((b) => b.high!));
  return out;
}

/**
 * A reference range as written → bounds: 'a-b' (also '--', '~', '～', '–', '_', 'to', '至'), '<b' / '≤b' (high
 * only), '>a' / '≥a' (low only), in brackets or not, with a unit after or not. Sex-specific ranges
 * ('男:130-175 女:115-150', 'M 13-17 F 12-15') give the patient's when the sex is known, else the widest.
 * Text without a range ('阴性', 'negative') gives no bounds. The result is shared (cached per text): read-only.
 */
export function parseRangeText(text: string, context: RangeContext = {}): Readonly<RangeBounds> {
  // the same few range texts come with every result of a test: read each once
  const cache = context.sex === 'male' ? MALE_CACHE : context.sex === 'female' ? FEMALE_CACHE : ANY_CACHE;
  let hit = cache.get(text);
  if (!hit) {
    hit = Object.freeze(readRangeText(text, context));
    if (cache.size >= 5000) cache.clear();
    cache.set(text, hit);
  }
  return hit;
}
const ANY_CACHE = new Map<string, Readonly<Bounds>>();
const MALE_CACHE = new Map<string, Readonly<Bounds>>();
const FEMALE_CACHE = new Map<string, Readonly<Bounds>>();

function readRangeText(text: string, context: RangeContext): Bounds {
  const t = text.normalize('NFKC').trim();
  if (!t) return {};
  if (SEX_HINT.test(t)) {
    const labels = [...t.matchAll(SEX_LABEL)];
    if (labels.length) {
      const bySex: { sex: 'male' | 'female'; bounds: Bounds }[] = [];
      labels.forEach((m, i) => {
        const start = m.index + m[0].length;
        const end = i + 1 < labels.length ? labels[i + 1]!.index : t.length;
        const bounds = plainRange(t.slice(start, end).trim());
        const label = m[1]!.toLowerCase();
        const sex = label.startsWith('女') || label.startsWith('f') ? 'female' : 'male';
        if (bounds.low !== undefined || bounds.high !== undefined) bySex.push({ sex, bounds });
      });
      if (bySex.length) {
        const mine = context.sex ? bySex.find((b) => b.sex === context.sex) : undefined;
        return mine ? mine.bounds : envelope(bySex.map((b) => b.bounds));
      }
    }
  }
  return plainRange(t);
}

function withText(b: Bounds, text: string | undefined, flag: RangeFlag | undefined): ReferenceRange | null {
  const out: ReferenceRange = {};
  if (b.low !== undefined) out.low = b.low;
  if (b.high !== undefined) out.high = b.high;
  if (text) out.text = text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text;
  if (flag) out.flag = flag;
  return out.low !== undefined || out.high !== undefined || out.text || out.flag ? out : null;
}

// ── FHIR ──

const MALE_CODES = new Set(['248153007', 'male', 'm']);
const FEMALE_CODES = new Set(['248152002', 'female', 'f']);
const NORMAL_TYPES = new Set(['normal', 'recommended']);

function codes(cc: unknown): string[] {
  const out: string[] = [];
  if (!isObject(cc)) return out;
  for (const c of arr(cc.coding)) {
    const code = isObject(c) ? str(c.code) : undefined;
    if (code) out.push(code.toLowerCase());
  }
  const text = str(cc.text);
  if (text) out.push(text.toLowerCase());
  return out;
}

function sexOf(range: Json): 'male' | 'female' | undefined {
  for (const a of arr(range.appliesTo)) {
    for (const c of codes(a)) {
      if (MALE_CODES.has(c)) return 'male';
      if (FEMALE_CODES.has(c)) return 'female';
    }
  }
  return undefined;
}

/** the externalId suffix fhir-to-records gives a component without a code */
const COMPONENT_POSITION = /^component-(\d+)$/;

function fhirHolder(resource: Json, record: LabRecordInput): Json {
  const components = arr(resource.component).filter(isObject);
  if (!components.length) return resource;
  const suffix = record.externalId?.includes('#')
    ? record.externalId.slice(record.externalId.lastIndexOf('#') + 1)
    : undefined;
  const position = suffix ? COMPONENT_POSITION.exec(suffix) : null;
  if (position) return components[Number(position[1]) - 1] ?? resource;
  const wanted = record.code ?? suffix;
  if (!wanted) return resource;
  const ownCodes = codes(resource.code);
  if (ownCodes.includes(wanted.toLowerCase()) && !suffix) return resource;
  return components.find((c) => codes(c.code).includes(wanted.toLowerCase())) ?? resource;
}

/**
 * The members that matter are cut out of the resource's JSON and parsed alone (a lab Observation is ~1 KB, its range
 * ~60 bytes); most Observations (all of Synthea's) have none, and cost one scan. A component record, or a resource
 * where a member appears twice (its components' ranges), is parsed whole. (A contained Observation with a range inside
 * one without would be misread; FHIR servers do not send lab results so.)
 */
const FHIR_HINT = /"(?:referenceRange|interpretation)"/g;
const FHIR_MEMBER = /"(referenceRange|interpretation)"\s*:\s*/g;

/** Whether the quote at `q` is escaped (an odd number of backslashes before it). */
function escaped(raw: string, q: number): boolean {
  let k = q - 1;
  while (raw.charCodeAt(k) === 92) k--;
  return (q - 1 - k) % 2 === 1;
}

/** The index after the JSON array or object that starts at `i`, or -1. Strings are skipped with indexOf. */
function balancedEnd(raw: string, i: number): number {
  const open = raw.charCodeAt(i);
  if (open !== 91 && open !== 123) return -1;
  let depth = 0;
  const n = raw.length;
  for (let j = i; j < n; j++) {
    const c = raw.charCodeAt(j);
    if (c === 34) {
      let q = raw.indexOf('"', j + 1);
      while (q > 0 && escaped(raw, q)) q = raw.indexOf('"', q + 1);
      if (q < 0) return -1;
      j = q;
    } else if (c === 91 || c === 123) depth++;
    else if (c === 93 || c === 125) {
      if (--depth === 0) return j + 1;
    }
  }
  return -1;
}

/**
 * A member's parsed value; a laboratory sends the same range with every result of a test, so each distinct text is
 * parsed once (the values are shared: read, never written). Undefined when it is not JSON.
 */
function memberValue(text: string): unknown {
  let v = memberCache.get(text);
  if (v === undefined) {
    try {
      v = JSON.parse(text) as unknown;
    } catch {
      return undefined;
    }
    if (memberCache.size >= 5000) memberCache.clear();
    memberCache.set(text, v);
  }
  return v;
}
const memberCache = new Map<string, unknown>();

function fhirMembers(raw: string, record: LabRecordInput): Json | null | 'whole' {
  FHIR_HINT.lastIndex = 0;
  const hint = FHIR_HINT.exec(raw);
  if (!hint) return null;
  if (record.externalId?.includes('#')) return 'whole';
  FHIR_MEMBER.lastIndex = hint.index;
  let m = FHIR_MEMBER.exec(raw);
  if (!m) return null;
  const out: Json = {};
  for (; m; m = FHIR_MEMBER.exec(raw)) {
    const key = m[1]!;
    const start = FHIR_MEMBER.lastIndex;
    const end = balancedEnd(raw, start);
    if (end < 0 || key in out || raw.charCodeAt(m.index - 1) === 92) return 'whole';
    const value = memberValue(raw.slice(start, end));
    if (value === undefined) return 'whole';
    out[key] = value;
    FHIR_MEMBER.lastIndex = end;
  }
  return out;
}

function fhirRange(raw: string, record: LabRecordInput, context: RangeContext): ReferenceRange | null {
  let holder = fhirMembers(raw, record);
  if (holder === 'whole') {
    let resource: unknown;
    try {
      resource = JSON.parse(raw);
    } catch {
      return null;
    }
    holder = isObject(resource) ? fhirHolder(resource, record) : null;
  }
  if (!holder) return null;
  let flag: RangeFlag | undefined;
  for (const i of arr(holder.interpretation)) {
    for (const c of codes(i)) {
      flag ??= rangeFlag(c);
    }
    if (flag) break;
  }
  const ranges: Json[] = [];
  const sexes: ('male' | 'female' | undefined)[] = [];
  let unsexed = false;
  for (const r of arr(holder.referenceRange)) {
    if (!isObject(r)) continue;
    const t = codes(r.type);
    if (t.length && !t.some((c) => NORMAL_TYPES.has(c))) continue;
    const sex = r.appliesTo === undefined ? undefined : sexOf(r);
    ranges.push(r);
    sexes.push(sex);
    if (sex === undefined) unsexed = true;
  }
  // the patient's sex when a range names it, else the ranges for anyone, else (sex unknown) all: the widest
  const want = context.sex && sexes.includes(context.sex) ? context.sex : undefined;
  const chosen = ranges.filter((_r, i) => (want ? sexes[i] === want : !unsexed || sexes[i] === undefined));
  if (!chosen.length) return withText({}, undefined, flag);
  const bounds: Bounds[] = [];
  let text: string | undefined;
  let unit: string | undefined;
  for (const r of chosen) {
    const low = isObject(r.low) ? r.low : undefined;
    const high = isObject(r.high) ? r.high : undefined;
    const b: Bounds = {};
    const lv = num(low?.value);
    const hv = num(high?.value);
    if (lv !== undefined) b.low = lv;
    if (hv !== undefined) b.high = hv;
    text ??= str(r.text);
    if (b.low === undefined && b.high === undefined && str(r.text))
      Object.assign(b, parseRangeText(str(r.text)!, context));
    unit ??= str(low?.code) ?? str(low?.unit) ?? str(high?.code) ?? str(high?.unit);
    bounds.push(b);
  }
  const b = chosen.length === 1 ? bounds[0]! : envelope(bounds);
  const out = withText(b.low !== undefined && b.high !== undefined && b.low > b.high ? {} : b, text, flag);
  if (out && unit) out.unit = unit;
  return out;
}

// ── HL7 v2 ──

const HL7_ESCAPES: Readonly<Record<string, string>> = { F: '|', S: '^', T: '&', R: '~', E: '\\' };
const HL7_ESCAPE = /\\([FSTRE])\\/g;
const unescape = (s: string): string =>
  s.includes('\\') ? s.replace(HL7_ESCAPE, (_m, c: string) => HL7_ESCAPES[c]!) : s;

const NOT_A_SEPARATOR = /[\w\s]/;

/** Field `n` (OBX-n) of a segment, without splitting the whole segment. */
function field(seg: string, sep: string, n: number): string {
  let at = 3; // the separator before field 1
  for (let i = 1; i < n; i++) {
    at = seg.indexOf(sep, at + 1);
    if (at < 0) return '';
  }
  const end = seg.indexOf(sep, at + 1);
  return seg.slice(at + 1, end < 0 ? seg.length : end);
}

function hl7Range(raw: string, context: RangeContext): ReferenceRange | null {
  const start = raw.startsWith('OBX') ? 0 : raw.indexOf('\rOBX') + 1;
  if (start === 0 && !raw.startsWith('OBX')) return null;
  let end = raw.indexOf('\r', start);
  if (end < 0) end = raw.length;
  const seg = raw.slice(start, end);
  const sep = seg.charAt(3);
  if (!sep || NOT_A_SEPARATOR.test(sep)) return null;
  const rangeText = unescape(field(seg, sep, 7)).trim();
  const flags = field(seg, sep, 8);
  let flag: RangeFlag | undefined;
  if (flags) {
    for (const rep of flags.split('~')) {
      flag = rangeFlag(rep.split('^')[0]);
      if (flag) break;
    }
  }
  return withText(rangeText ? parseRangeText(rangeText, context) : {}, rangeText || undefined, flag);
}

// ── SQL rows, OCR results ──

type RowRole = 'low' | 'high' | 'text' | 'flag' | 'unit';
const ROW_KEYS: ReadonlyMap<string, RowRole> = new Map<string, RowRole>([
  ...[
    'reflow',
    'referencelow',
    'rangelow',
    'normallow',
    'lowlimit',
    'lowerlimit',
    'low',
    'lownormal',
    'refmin',
    'rangemin',
    'lln',
    'lowerreference',
    'referencelower',
    'refrangelow',
    'referencerangelow',
    '参考下限',
    '参考值下限',
    '参考范围下限',
    '下限',
    '正常下限',
    '低值',
  ].map((k): [string, RowRole] => [k, 'low']),
  ...[
    'refhigh',
    'referencehigh',
    'rangehigh',
    'normalhigh',
    'highlimit',
    'upperlimit',
    'high',
    'highnormal',
    'refmax',
    'rangemax',
    'uln',
    'upperreference',
    'referenceupper',
    'refrangehigh',
    'referencerangehigh',
    '参考上限',
    '参考值上限',
    '参考范围上限',
    '上限',
    '正常上限',
    '高值',
  ].map((k): [string, RowRole] => [k, 'high']),
  ...[
    'range',
    'refrange',
    'referencerange',
    'normalrange',
    'reference',
    'ref',
    'refvalue',
    'referencevalue',
    'referenceinterval',
    'refinterval',
    'normalvalue',
    'normal',
    'referencerangetext',
    'refrangetext',
    'refs',
    '参考范围',
    '参考值',
    '参考区间',
    '正常值',
    '正常范围',
    '参考值范围',
    '正常参考值',
    '参考',
  ].map((k): [string, RowRole] => [k, 'text']),
  ...[
    'flag',
    'abnormalflag',
    'abnormalflags',
    'abnflag',
    'resultflag',
    'interpretation',
    'abnormal',
    'hl',
    'hlflag',
    'highlow',
    'indicator',
    'abnormalindicator',
    'nrind',
    'lbnrind',
    '异常标志',
    '异常标识',
    '标志',
    '标识',
    '提示',
    '结果标志',
    '高低标志',
    '异常提示',
    '结果提示',
  ].map((k): [string, RowRole] => [k, 'flag']),
  ...['rangeunit', 'refunit', 'referenceunit'].map((k): [string, RowRole] => [k, 'unit']),
]);
const KEY_NOISE = /[\s_\-.:()（）]/g;
/** a row worth parsing names one of the roles */
const ROW_HINT =
  /ref|range|low|high|lln|uln|min|max|norm|flag|abn|interp|ind|hl|参考|正常|限|标志|标识|提示|高|低/i;

const roleCache = new Map<string, RowRole | null>();
function rowRole(key: string): RowRole | undefined {
  let role = roleCache.get(key);
  if (role === undefined) {
    role = ROW_KEYS.get(key.toLowerCase().replace(KEY_NOISE, '')) ?? null;
    if (roleCache.size >= 5000) roleCache.clear();
    roleCache.set(key, role);
  }
  return role ?? undefined;
}

function rowRange(raw: string, context: RangeContext): ReferenceRange | null {
  if (!ROW_HINT.test(raw)) return null;
  let row: unknown;
  try {
    row = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!isObject(row)) return null;
  const b: Bounds = {};
  let text: string | undefined;
  let flag: RangeFlag | undefined;
  let unit: string | undefined;
  for (const [k, v] of Object.entries(row)) {
    const role = rowRole(k);
    if (!role || v === null || v === undefined) continue;
    const s = typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : undefined;
    if (s === undefined || s === '') continue;
    switch (role) {
      case 'low':
        b.low ??= typeof v === 'number' ? num(v) : parseNumber(s);
        break;
      case 'high':
        b.high ??= typeof v === 'number' ? num(v) : parseNumber(s);
        break;
      case 'text':
        text ??= s;
        break;
      case 'flag':
        flag ??= rangeFlag(s);
        break;
      case 'unit':
        unit ??= s;
        break;
    }
  }
  if (b.low === undefined && b.high === undefined && text) Object.assign(b, parseRangeText(text, context));
  const out = withText(b.low !== undefined && b.high !== undefined && b.low > b.high ? {} : b, text, flag);
  if (out && unit) out.unit = unit;
  return out;
}

/**
 * The record's reference range and abnormal flag, read from its raw payload (see the table above), or null when the
 * payload has none. Bounds are in the unit of the record's value unless `unit` says otherwise.
 */
export function referenceRange(record: LabRecordInput, context: RangeContext = {}): ReferenceRange | null {
  const raw = record.raw;
  if (typeof raw !== 'string' || raw === '') return null;
  try {
    switch (record.rawFormat) {
      case 'fhir':
        return fhirRange(raw, record, context);
      case 'hl7v2':
        return hl7Range(raw, context);
      case 'sql':
      case 'ocr':
        return rowRange(raw, context);
      default:
        return null;
    }
  } catch {
    return null;
  }
}
