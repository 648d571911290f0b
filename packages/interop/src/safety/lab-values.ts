/**
 * A lab result's numeric value and abnormal flag as hospitals write them: '5.2', '<0.5', '>200', '≥ 10', '5.2↑',
 * '5.2 H', '1,234', '3,5' (decimal comma), full-width digits. Regular expressions are compiled once, here.
 */

/** Abnormal flag: H high, L low, HH / LL critically high / low, A abnormal without a direction, N normal. */
export type RangeFlag = 'H' | 'L' | 'HH' | 'LL' | 'A' | 'N';

/** '<' means the true value is below the number, '>' above it (a value outside the method's measuring range). */
export type ValueComparator = '<' | '<=' | '>' | '>=';

export interface LabValue {
  value: number;
  comparator?: ValueComparator;
  /** a flag written with the value ('5.2↑', '5.2 H') */
  flag?: RangeFlag;
}

/** Flags as written by HL7 v2 (table 0078), FHIR (v3 ObservationInterpretation), SQL views and printed reports. */
const FLAGS: ReadonlyMap<string, RangeFlag> = new Map<string, RangeFlag>([
  ['h', 'H'],
  ['hi', 'H'],
  ['high', 'H'],
  ['hx', 'H'],
  ['>', 'H'],
  ['↑', 'H'],
  ['above high normal', 'H'],
  ['高', 'H'],
  ['偏高', 'H'],
  ['升高', 'H'],
  ['增高', 'H'],
  ['hh', 'HH'],
  ['hu', 'HH'],
  ['h*', 'HH'],
  ['↑↑', 'HH'],
  ['critical high', 'HH'],
  ['critically high', 'HH'],
  ['panic high', 'HH'],
  ['significantly high', 'HH'],
  ['危急高', 'HH'],
  ['l', 'L'],
  ['lo', 'L'],
  ['low', 'L'],
  ['lx', 'L'],
  ['<', 'L'],
  ['↓', 'L'],
  ['below low normal', 'L'],
  ['低', 'L'],
  ['偏低', 'L'],
  ['降低', 'L'],
  ['减低', 'L'],
  ['ll', 'LL'],
  ['lu', 'LL'],
  ['l*', 'LL'],
  ['↓↓', 'LL'],
  ['critical low', 'LL'],
  ['critically low', 'LL'],
  ['panic low', 'LL'],
  ['significantly low', 'LL'],
  ['危急低', 'LL'],
  ['a', 'A'],
  ['aa', 'A'],
  ['abnormal', 'A'],
  ['abn', 'A'],
  ['critical', 'A'],
  ['*', 'A'],
  ['异常', 'A'],
  ['n', 'N'],
  ['normal', 'N'],
  ['norm', 'N'],
  ['nl', 'N'],
  ['正常', 'N'],
]);

const BRACKETS = /^[([（【]\s*|\s*[)\]）】]$/g;

/**
 * A flag as written ('H', 'HH', 'high', '↑', '偏低', 'A', 'N' …) → RangeFlag, or undefined when it is not a range
 * flag (HL7 'D'/'U' change flags, susceptibility 'S'/'R'/'I', empty).
 */
export function rangeFlag(text: string | null | undefined): RangeFlag | undefined {
  if (!text) return undefined;
  // a handful of distinct flags arrive with every result: normalise each once
  let hit = flagCache.get(text);
  if (hit === undefined) {
    const t = text.normalize('NFKC').trim().replace(BRACKETS, '').toLowerCase();
    hit = (t ? FLAGS.get(t) : undefined) ?? null;
    if (flagCache.size >= 1000) flagCache.clear();
    flagCache.set(text, hit);
  }
  return hit ?? undefined;
}
const flagCache = new Map<string, RangeFlag | null>();

const NUM = String.raw`[-+]?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d*)?|\.\d+)`;
/** comparator? number flag? — after NFKC ('＜' → '<', '５' → '5') */
const VALUE = new RegExp(
  String.raw`^(<=|>=|≤|≥|<|>|≦|≧)?\s*(${NUM})\s*(↑↑|↓↓|↑|↓|[(\[]?(?:hh|ll|h|l|a|n)[)\]]?|\*)?$`,
  'i',
);
const DECIMAL_COMMA = /^([-+]?\d+),(\d+)$/;
const COMPARATORS: Readonly<Record<string, ValueComparator>> = {
  '<': '<',
  '<=': '<=',
  '≤': '<=',
  '≦': '<=',
  '>': '>',
  '>=': '>=',
  '≥': '>=',
  '≧': '>=',
};

/** A number as written ('1,234' thousands, '3,5' decimal comma), or undefined. */
export function parseNumber(text: string): number | undefined {
  const t = text.trim();
  if (t === '') return undefined;
  let n: number;
  if (!t.includes(',')) n = Number(t);
  else {
    const dc = DECIMAL_COMMA.exec(t);
    n = dc && dc[2]!.length !== 3 ? Number(`${dc[1]}.${dc[2]}`) : Number(t.replace(ALL_COMMAS, ''));
  }
  return Number.isFinite(n) ? n : undefined;
}
const ALL_COMMAS = /,/g;

/**
 * The numeric value of a result: the text when it reads as one number (with an optional comparator and flag, which
 * the stored number drops), else valueNum. A text that is not one number ('1:128', '3-5/HP', '阴性') means the
 * result is not numeric, even when a number was stored beside it (HL7 SN '1^:^128' stores 1).
 */
export function parseLabValue(
  valueNum: number | null | undefined,
  valueText: string | null | undefined,
): LabValue | undefined {
  const text = valueText?.trim();
  if (text) {
    const m = VALUE.exec(text.normalize('NFKC'));
    if (m) {
      const value = parseNumber(m[2]!);
      if (value !== undefined) {
        const out: LabValue = { value };
        if (m[1]) out.comparator = COMPARATORS[m[1]]!;
        const flag = m[3] ? rangeFlag(m[3]) : undefined;
        if (flag) out.flag = flag;
        return out;
      }
    }
    const dc = DECIMAL_COMMA.exec(text);
    if (dc) return { value: parseNumber(text)! };
    return undefined;
  }
  return typeof valueNum === 'number' && Number.isFinite(valueNum) ? { value: valueNum } : undefined;
}
