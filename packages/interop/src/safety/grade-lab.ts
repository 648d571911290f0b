/**
 * Grades a lab result for safety review (issue 13 item 3): is it outside its reference range, and which CTCAE v5.0
 * grade does its value give. Pure and fast (no parsing of tables per call; caches for names and units), so that the
 * server can grade every new source record as it arrives.
 *
 * The range used: the record's own (raw payload, see reference-range.ts), else its abnormal flag, else the table's
 * fallback (ctcae-analytes.ts). ×ULN / ×LLN grades use the record's range in the record's unit, so they need no
 * unit at all; absolute thresholds (g/dL, mmol/L, 10⁹/L) need the unit, and a unit that cannot be read gives no grade
 * rather than a guess. Values outside what the analyte can be in its unit ('12.5 g/mL' haemoglobin) are unit errors:
 * no grade either.
 */
import { DOC_TYPE } from '../source-record';
import { matchAnalyte, nameKey } from './analyte-match';
import {
  CTCAE_ANALYTES,
  type CtcaeRule,
  type GradeStep,
  type LabAnalyte,
  type LabReasonCode,
  type LocalizedTerm,
  type RangeBounds,
  type StepOp,
  type UnitGrading,
} from './ctcae-analytes';
import { conversionFactor, sameUnit, unitFor, unitKey, unitReadings, type UnitInfo } from './lab-units';
import { parseLabValue, type LabValue, type RangeFlag, type ValueComparator } from './lab-values';
import {
  referenceRange,
  type LabRecordInput,
  type RangeContext,
  type ReferenceRange,
} from './reference-range';

export type LabGrade = 0 | 1 | 2 | 3 | 4;

/**
 * The grader's version. A server stores each lab record's assessment with the version that made it (source_records
 * lab, lab_graded), so a change to the rules, the analyte table or the unit reading must bump this: every stored
 * assessment is then made again before it is used.
 */
export const LAB_GRADER_VERSION = 1;

export interface LabAssessment {
  /** the table analyte's id ('alt', 'hemoglobin' …); for an analyte not in the table 'code:<code>' or 'name:<name>' */
  analyteId: string;
  /** whether the analyte is one CTCAE v5.0 grades by value (in the table) */
  known: boolean;
  /** the CTCAE term of the direction (en and zh); the analyte's name when CTCAE has no term for it; the record's display for an analyte not in the table */
  ctcaeTerm: LocalizedTerm;
  direction: 'high' | 'low';
  /** the value in `unit`: the analyte's canonical unit when the record's unit could be read, else the record's own */
  value: number;
  /** canonical (UCUM) when the record's unit was read; else the record's unit as written, or none */
  unit?: string;
  /** the value is a bound: '<0.5' → '<' */
  comparator?: ValueComparator;
  /** the range used, in `unit` */
  low?: number;
  high?: number;
  rangeSource: 'record' | 'fallback' | 'none';
  /** the record's abnormal flag (payload, or written with the value) */
  flag?: RangeFlag;
  outOfRange: boolean;
  /** 0 = no CTCAE grade (in range, or below the lowest grade v5.0 defines); null = none computable (see reasonCode) */
  grade: LabGrade | null;
  /** the grade is the least the value can have (a censored value, or a range known only by its flag) */
  gradeIsMinimum?: boolean;
  /** value ÷ ULN (high) or ÷ LLN (low) when the grade is relative to them */
  ratio?: number;
  reasonCode?: LabReasonCode;
  /** English explanation of reasonCode, for logs; screens translate reasonCode */
  reason?: string;
}

export type GradeLabOptions = RangeContext;

type Side = 'high' | 'low';
type Tri = 'yes' | 'no' | 'unknown';

// ── the table, read once ──

interface Prepared {
  canon: UnitInfo;
  /** the fallback range by the patient's sex (unknown: the widest of both) */
  fallback: Readonly<Record<'male' | 'female' | 'unknown', RangeBounds | undefined>>;
  /** each grading's unit, read (undefined for unit-free gradings) */
  units: Map<UnitGrading, UnitInfo | undefined>;
}
const PREPARED = new Map<LabAnalyte, Prepared>();
for (const a of CTCAE_ANALYTES) {
  const canon = unitFor(a.unit, a);
  if (!canon || canon === 'incompatible')
    throw new Error(`ctcae-analytes: ${a.id} has an unreadable unit ${a.unit}`);
  const units = new Map<UnitGrading, UnitInfo | undefined>();
  for (const rule of [a.high, a.low]) {
    for (const g of rule?.grading ?? []) {
      const gu = g.unit === undefined ? undefined : unitFor(g.unit, a);
      if (gu === 'incompatible' || (g.unit !== undefined && !gu))
        throw new Error(`ctcae-analytes: ${a.id} grading unit ${g.unit}`);
      units.set(g, gu);
    }
  }
  const fallback = {
    male: fallbackBounds(a, 'male'),
    female: fallbackBounds(a, 'female'),
    unknown: fallbackBounds(a, undefined),
  };
  PREPARED.set(a, { canon, units, fallback });
}

const REASONS: Readonly<Record<LabReasonCode, string>> = {
  noRange: 'no reference range in the record and none to fall back on',
  unknownUnit: 'the unit is missing or not understood, and the grade needs it',
  implausible: 'the value is not possible for this analyte in this unit (a unit error?)',
  notInTable: 'out of range; CTCAE v5.0 does not grade this analyte by value',
  noCtcaeTerm: 'out of range on a side CTCAE v5.0 has no term for',
  clinicalOnly: 'CTCAE v5.0 grades this by clinical criteria, not by value',
  censored: 'the value is a bound; the grade is the least it can be',
  flagOnly: 'out of range by the record’s flag; the range shown is the fallback',
  baselineNotKnown: 'graded against the reference range; CTCAE v5.0 grades against baseline in some cases',
  symptomsNotKnown: 'CTCAE v5.0 gives a higher grade with symptoms or intervention',
  clinicalGrade: 'the next CTCAE v5.0 grade is clinical',
};

// ── intervals: an exact value is [x, x]; '<x' is (-∞, x) … ──

interface Interval {
  lo: number;
  loOpen: boolean;
  hi: number;
  hiOpen: boolean;
}
function intervalOf(v: number, c: ValueComparator | undefined, factor = 1): Interval {
  const x = v * factor;
  // '<5' of a concentration, count or activity is not negative (a negative bound: base excess and the like)
  const floor = x >= 0 ? 0 : -Infinity;
  switch (c) {
    case '<':
      return { lo: floor, loOpen: floor === -Infinity, hi: x, hiOpen: true };
    case '<=':
      return { lo: floor, loOpen: floor === -Infinity, hi: x, hiOpen: false };
    case '>':
      return { lo: x, loOpen: true, hi: Infinity, hiOpen: true };
    case '>=':
      return { lo: x, loOpen: false, hi: Infinity, hiOpen: true };
    case undefined:
      return { lo: x, loOpen: false, hi: x, hiOpen: false };
  }
}

/**
 * Whether every value of the interval meets "value OP b" ('yes'), none does ('no'), or some do ('unknown'). Equality
 * is relative to 1e-9, so that 1.5 × 0.3 ULN is 0.45 and a value of exactly 0.45 is not above it.
 */
function test(iv: Interval, op: StepOp, b: number): Tri {
  const e = 1e-9 * Math.max(1, Math.abs(b));
  const loEq = Math.abs(iv.lo - b) <= e;
  const hiEq = Math.abs(iv.hi - b) <= e;
  let all: boolean;
  let none: boolean;
  switch (op) {
    case '>':
      all = iv.lo > b + e || (loEq && iv.loOpen);
      none = iv.hi < b - e || hiEq;
      break;
    case '>=':
      all = iv.lo > b + e || loEq;
      none = iv.hi < b - e || (hiEq && iv.hiOpen);
      break;
    case '<':
      all = iv.hi < b - e || (hiEq && iv.hiOpen);
      none = iv.lo > b + e || loEq;
      break;
    case '<=':
      all = iv.hi < b - e || hiEq;
      none = iv.lo > b + e || (loEq && iv.loOpen);
      break;
  }
  return all ? 'yes' : none ? 'no' : 'unknown';
}

/** Outside the bounds: 'high' / 'low', 'in', or 'unknown' (a censored value that straddles a bound). */
function position(iv: Interval, b: RangeBounds): Side | 'in' | 'unknown' {
  const hi = b.high === undefined ? 'no' : test(iv, '>', b.high);
  if (hi === 'yes') return 'high';
  const lo = b.low === undefined ? 'no' : test(iv, '<', b.low);
  if (lo === 'yes') return 'low';
  return hi === 'no' && lo === 'no' ? 'in' : 'unknown';
}

const flagSide = (f: RangeFlag | undefined): Side | 'abnormal' | 'normal' | undefined =>
  f === 'H' || f === 'HH'
    ? 'high'
    : f === 'L' || f === 'LL'
      ? 'low'
      : f === 'A'
        ? 'abnormal'
        : f === 'N'
          ? 'normal'
          : undefined;

const hasBounds = (b: RangeBounds | undefined): b is RangeBounds =>
  b !== undefined && (b.low !== undefined || b.high !== undefined);
const scale = (b: RangeBounds, f: number): RangeBounds => {
  if (f === 1) return b;
  const out: RangeBounds = {};
  if (b.low !== undefined) out.low = b.low * f;
  if (b.high !== undefined) out.high = b.high * f;
  return out;
};
/** 6 significant digits: a converted value must not read 3.5000000000000004 */
function tidy(x: number): number {
  if (Number.isInteger(x) || !Number.isFinite(x)) return x;
  const e = Math.floor(Math.log10(Math.abs(x))) - 5;
  if (e >= 0) {
    const q = 10 ** e;
    return Math.round(x / q) * q;
  }
  const p = 10 ** -e;
  return Math.round(x * p) / p;
}

function fallbackBounds(a: LabAnalyte, sex: RangeContext['sex']): RangeBounds | undefined {
  const f = a.fallback;
  if (!f) return undefined;
  if (f.male && f.female) {
    const mine = sex === 'male' ? f.male : sex === 'female' ? f.female : undefined;
    if (mine) return mine;
    const out: RangeBounds = {};
    if (f.male.low !== undefined && f.female.low !== undefined) out.low = Math.min(f.male.low, f.female.low);
    if (f.male.high !== undefined && f.female.high !== undefined)
      out.high = Math.max(f.male.high, f.female.high);
    return out;
  }
  return { low: f.low, high: f.high };
}

/** Side for a value in range: the only graded side, else the nearer half of the range. */
function inRangeSide(v: number, b: RangeBounds | undefined, a?: LabAnalyte): Side {
  if (a && a.high && !a.low) return 'high';
  if (a && a.low && !a.high) return 'low';
  if (b?.low !== undefined && b.high !== undefined) return v < (b.low + b.high) / 2 ? 'low' : 'high';
  if (b?.low !== undefined && b.high === undefined) return 'low';
  return 'high';
}

interface StepResult {
  grade?: LabGrade;
  minimum?: boolean;
  unknown?: LabReasonCode;
}

/**
 * The grade of the steps (highest first): the first step every possible value meets. A step not decidable for a
 * censored value makes the result a minimum (or unknown when no lower step is met). `absOk` false: the working unit
 * is not known, so absolute bounds cannot be compared. `limitsKnown` false: there is no range, so ×ULN / ×LLN steps
 * cannot be decided except grade 1 "beyond the limit" when the flag says so (`beyond`).
 */
function evaluate(
  steps: readonly GradeStep[],
  iv: Interval,
  b: RangeBounds,
  opts: { absOk: boolean; limitsKnown: boolean; beyond: boolean },
): StepResult {
  let pending = false;
  for (const s of steps) {
    let t: Tri;
    if (s.abs !== undefined) {
      if (!opts.absOk) return { unknown: 'unknownUnit' };
      t = test(iv, s.op, s.abs);
    } else {
      const limit = s.of === 'ULN' ? b.high : b.low;
      const plain = (s.k ?? 1) === 1 && s.plus === undefined;
      if (plain && opts.beyond) t = 'yes';
      else if (s.plus !== undefined && !opts.absOk) return { unknown: 'unknownUnit' };
      else if (limit === undefined) t = opts.limitsKnown ? 'no' : 'unknown';
      else t = test(iv, s.op, s.plus !== undefined ? limit + s.plus : limit * (s.k ?? 1));
    }
    if (t === 'yes') return { grade: s.grade, minimum: pending };
    if (t === 'unknown') pending = true;
  }
  return pending ? { unknown: 'censored' } : { grade: 0 };
}

function withReason<T extends LabAssessment>(a: T, code: LabReasonCode | undefined, text?: string): T {
  if (code) {
    a.reasonCode = code;
    a.reason = text ?? REASONS[code];
  }
  return a;
}

/**
 * Grades a lab record. Null when the record is not a lab result (a document type other than 3, test) or has no
 * numeric value. Otherwise the assessment, for analytes in the table (graded with CTCAE v5.0) and for any other lab
 * with a range of its own (out of range, no grade).
 */
export function gradeLab(record: LabRecordInput, options: GradeLabOptions = {}): LabAssessment | null {
  if (record.docType !== undefined && record.docType !== null && record.docType !== DOC_TYPE.test)
    return null;
  const lv = parseLabValue(record.valueNum, record.valueText);
  if (!lv) return null;
  const rr = referenceRange(record, options);
  const flag = rr?.flag ?? lv.flag;
  const analyte = matchAnalyte(record);
  if (analyte) {
    const recUnit = unitFor(record.unit, analyte);
    if (recUnit !== 'incompatible') return gradeKnown(analyte, recUnit, record.unit, lv, rr, flag, options);
  }
  return gradeOther(record, lv, rr, flag);
}

function setValueMarks(out: LabAssessment, lv: LabValue, flag: RangeFlag | undefined): void {
  if (lv.comparator) out.comparator = lv.comparator;
  if (flag) out.flag = flag;
}

/** An analyte not in the table: out of range by its own range or flag, never graded. */
function gradeOther(
  record: LabRecordInput,
  lv: LabValue,
  rr: ReferenceRange | null,
  flag: RangeFlag | undefined,
): LabAssessment {
  const code = record.code?.trim();
  const display = record.display?.trim();
  const label = display || code || 'Unknown test';
  const analyteId = code ? `code:${code}` : display ? `name:${nameKey(display)}` : 'unknown';
  let bounds: RangeBounds | undefined = rr && hasBounds(rr) ? { low: rr.low, high: rr.high } : undefined;
  if (bounds && rr?.unit && record.unit && unitKey(rr.unit) !== unitKey(record.unit)) {
    // bounds in another unit: convert within one dimension, else they cannot be compared
    const from = unitReadings(rr.unit)[0];
    const to = unitReadings(record.unit).find((r) => r.dim === from?.dim);
    bounds = from && to ? scale(bounds, from.factor / to.factor) : undefined;
  }
  const iv = intervalOf(lv.value, lv.comparator);
  const pos = bounds ? position(iv, bounds) : undefined;
  const fs = flagSide(flag);
  let outOfRange = false;
  let direction: Side = inRangeSide(lv.value, bounds);
  let reason: LabReasonCode | undefined;
  if (pos === 'high' || pos === 'low') {
    outOfRange = true;
    direction = pos;
  } else if (fs === 'high' || fs === 'low' || fs === 'abnormal') {
    outOfRange = true;
    if (fs !== 'abnormal') direction = fs;
  } else if (pos === 'unknown') reason = 'censored';
  else if (pos === undefined && fs === undefined) reason = 'noRange';
  const out: LabAssessment = {
    analyteId,
    known: false,
    ctcaeTerm: { en: label, zh: label },
    direction,
    value: lv.value,
    rangeSource: bounds ? 'record' : 'none',
    outOfRange,
    grade: outOfRange || reason ? null : 0,
  };
  setValueMarks(out, lv, flag);
  if (record.unit?.trim()) out.unit = record.unit.trim();
  if (bounds?.low !== undefined) out.low = bounds.low;
  if (bounds?.high !== undefined) out.high = bounds.high;
  return withReason(out, outOfRange ? 'notInTable' : reason);
}

function pickGrading(rule: CtcaeRule, p: Prepared, recUnit: UnitInfo | undefined): UnitGrading | undefined {
  const list = rule.grading ?? [];
  if (recUnit) {
    for (const g of list) {
      const gu = p.units.get(g);
      if (gu && sameUnit(gu, recUnit)) return g;
    }
  }
  return list[0];
}

function gradeKnown(
  a: LabAnalyte,
  recUnit: UnitInfo | undefined,
  recUnitText: string | null | undefined,
  lv: LabValue,
  rr: ReferenceRange | null,
  flag: RangeFlag | undefined,
  ctx: RangeContext,
): LabAssessment {
  const p = PREPARED.get(a)!;
  const toCanon = recUnit ? conversionFactor(recUnit, p.canon, a) : undefined;

  // the record's bounds, in the record's unit
  let rb: RangeBounds | undefined = rr && hasBounds(rr) ? { low: rr.low, high: rr.high } : undefined;
  if (rb && rr?.unit) {
    const ru = unitFor(rr.unit, a);
    if (ru === 'incompatible') rb = undefined;
    else if (ru && recUnit && !sameUnit(ru, recUnit)) {
      const f = conversionFactor(ru, recUnit, a);
      rb = f === undefined ? undefined : scale(rb, f);
    }
  }
  // the fallback, in canonical units: usable only when the value can be put in them
  const fbRaw = p.fallback[ctx.sex === 'male' || ctx.sex === 'female' ? ctx.sex : 'unknown'];
  const fb = toCanon !== undefined && fbRaw && hasBounds(fbRaw) ? fbRaw : undefined;
  const ivRec = intervalOf(lv.value, lv.comparator);
  const ivCanon = toCanon !== undefined ? intervalOf(lv.value, lv.comparator, toCanon) : undefined;
  const valueCanon = toCanon !== undefined ? lv.value * toCanon : undefined;

  // in or out, and which side: the record's bounds, else its flag, else the fallback
  const fs = flagSide(flag);
  const pos = rb
    ? position(ivRec, rb)
    : fs === undefined && fb && ivCanon
      ? position(ivCanon, fb)
      : undefined;
  const used: RangeBounds | undefined = rb ?? (fs === 'normal' ? undefined : fb);
  const usedCanon = rb ? (toCanon !== undefined ? scale(rb, toCanon) : rb) : used;
  let outOfRange = false;
  let flagOnly = false;
  let side: Side;
  const sideValue = valueCanon ?? lv.value;
  if (pos === 'high' || pos === 'low') {
    outOfRange = true;
    side = pos;
  } else if (fs === 'high' || fs === 'low' || fs === 'abnormal') {
    outOfRange = true;
    flagOnly = true;
    const fpos = !rb && fb && ivCanon ? position(ivCanon, fb) : undefined;
    side =
      fs !== 'abnormal'
        ? fs
        : fpos === 'high' || fpos === 'low'
          ? fpos
          : inRangeSide(sideValue, usedCanon, a);
  } else side = inRangeSide(sideValue, usedCanon, a);

  const out: LabAssessment = {
    analyteId: a.id,
    known: true,
    ctcaeTerm: a[side]?.term ?? a.name,
    direction: side,
    value: valueCanon !== undefined && toCanon !== 1 ? tidy(valueCanon) : lv.value,
    rangeSource: rb ? 'record' : used ? 'fallback' : 'none',
    outOfRange,
    grade: null,
  };
  setValueMarks(out, lv, flag);
  if (toCanon !== undefined) out.unit = a.unit;
  else if (recUnitText?.trim()) out.unit = recUnitText.trim(); // not read: the value stays in the record's unit
  if (usedCanon?.low !== undefined) out.low = tidy(usedCanon.low);
  if (usedCanon?.high !== undefined) out.high = tidy(usedCanon.high);

  if (valueCanon !== undefined && (valueCanon < a.plausible[0] || valueCanon > a.plausible[1]))
    return withReason(out, 'implausible');
  if (pos === 'unknown' && !outOfRange) return withReason(out, 'censored');
  if (!outOfRange && pos === undefined && fs !== 'normal')
    return withReason(out, toCanon !== undefined || !fbRaw ? 'noRange' : 'unknownUnit');

  const rule = a[side];
  if (!rule || rule.grading === null) {
    if (outOfRange) return withReason(out, rule ? 'clinicalOnly' : 'noCtcaeTerm');
    out.grade = 0;
    return out;
  }

  // the grading in the record's unit when v5.0 gives one, else the canonical one; value and limits in its unit
  const g = pickGrading(rule, p, recUnit);
  if (!g) return withReason(out, 'clinicalOnly');
  const gu = p.units.get(g);
  let iv: Interval;
  let limits: RangeBounds;
  let absOk = true;
  if (gu) {
    const recToG = recUnit ? conversionFactor(recUnit, gu, a) : undefined;
    if (recToG !== undefined) {
      iv = intervalOf(lv.value, lv.comparator, recToG);
      limits = rb ? scale(rb, recToG) : used ? scale(used, conversionFactor(p.canon, gu, a)!) : {};
    } else if (rb) {
      iv = ivRec;
      limits = rb;
      absOk = false;
    } else return withReason(out, 'unknownUnit');
  } else if (rb) {
    iv = ivRec;
    limits = rb;
  } else if (ivCanon) {
    iv = ivCanon;
    limits = used ?? {};
  } else return withReason(out, 'unknownUnit');

  // the lab's 'normal' flag without bounds: no limit is crossed
  const limitsKnown = hasBounds(limits) || fs === 'normal';
  const beyond =
    flagOnly && (fs === side || (side === 'high' && flag === 'HH') || (side === 'low' && flag === 'LL'));
  const r = evaluate(g.steps, iv, limits, { absOk, limitsKnown, beyond });
  if (r.unknown)
    return withReason(
      out,
      r.unknown === 'censored' && !limitsKnown && !lv.comparator ? 'noRange' : r.unknown,
    );
  const grade = r.grade!;
  out.grade = grade;
  if (r.minimum) out.gradeIsMinimum = true;

  const relative = g.steps.some((s) => s.of !== undefined && s.k !== undefined && s.k !== 1);
  const limit = side === 'high' ? limits.high : limits.low;
  if (relative && limit !== undefined && limit > 0 && !lv.comparator)
    out.ratio = Math.round((iv.lo / limit) * 100) / 100;

  if (r.minimum && (lv.comparator || !flagOnly)) return withReason(out, 'censored');
  if (flagOnly) return withReason(out, 'flagOnly');
  const note = rule.notes?.find((n) => n.grades.includes(grade));
  return note ? withReason(out, note.code, note.text) : out;
}
