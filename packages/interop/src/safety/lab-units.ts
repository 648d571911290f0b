/**
 * Units of the lab analytes graded for safety (issue 13 item 3), without @lhncbc/ucum-lhc: hospitals write units that
 * are not UCUM ('10^9/L', '×10⁹/L', 'g/l', 'giga.l-1', 'K/uL', '/mm3', 'μmol/L', 'mEq/L'), and grading has to convert
 * 10,000 values in a few milliseconds. A unit string is read once into a dimension and a factor to that dimension's
 * base unit (cached), and mass ↔ amount of substance conversions use the analyte's molar mass.
 *
 * What must always hold: a unit we cannot read is reported as unknown, never guessed. 'g/L' is grams per litre for a
 * mass analyte and 10⁹ per litre ("giga") for a cell count: the analyte decides, and nothing else is ambiguous.
 */

/** count: 10⁹/L · mass: g/L · molar: mmol/L · equiv: mEq/L · activity: U/L · ratio: 1 · time: s · percent: % */
export type UnitDimension = 'count' | 'mass' | 'molar' | 'equiv' | 'activity' | 'ratio' | 'time' | 'percent';

/** A unit as a dimension and the factor that takes a value in it to the dimension's base unit. */
export interface UnitInfo {
  dim: UnitDimension;
  factor: number;
}

/** What an analyte needs to know to convert between its units. */
export interface UnitSubject {
  /** the analyte's own dimension (count, mass or molar, activity, ratio, time) */
  dim: UnitDimension;
  /** g/mol, for mass ↔ molar */
  molarMass?: number;
  /** charge, for mEq/L ↔ mmol/L */
  valence?: number;
}

const u = (dim: UnitDimension, factor = 1): UnitInfo => ({ dim, factor });

/**
 * Unit keys (see unitKey) → candidate readings. Only 'g/l' has two (grams per litre, or giga per litre for counts).
 * Built once at module load.
 */
const UNITS: ReadonlyMap<string, readonly UnitInfo[]> = new Map<string, UnitInfo[]>([
  // cell counts, base 10⁹/L (= 10³/µL = 10³/mm³ = /nL)
  ...[
    '10^9/l',
    'giga/l',
    'giga.l-1',
    'gpt/l',
    'g/l',
    '/nl',
    '10^3/ul',
    '10^3/mm3',
    'k/ul',
    'k/mm3',
    'thou/ul',
    'thou/mm3',
    '1000/ul',
    '10^3cells/ul',
    '10^9cells/l',
  ].map((k): [string, UnitInfo[]] => [k, [u('count')]]),
  ...[
    '/ul',
    'cells/ul',
    'cell/ul',
    '/mm3',
    'cells/mm3',
    '/cumm',
    '/cmm',
    '/mm^3',
    '个/ul',
    'per ul',
    'perul',
  ].map((k): [string, UnitInfo[]] => [k, [u('count', 1e-3)]]),
  ...['10^12/l', 'tera/l', 'tera.l-1', '10^6/ul', '10^6/mm3', 'm/ul'].map((k): [string, UnitInfo[]] => [
    k,
    [u('count', 1e3)],
  ]),
  ['10^6/l', [u('count', 1e-3)]],
  // mass concentration, base g/L
  ['g/l', [u('mass'), u('count')]],
  ['g/dl', [u('mass', 10)]],
  ['g%', [u('mass', 10)]],
  ['g/100ml', [u('mass', 10)]],
  ['g/ml', [u('mass', 1000)]],
  ['mg/ml', [u('mass')]],
  ['mg/dl', [u('mass', 0.01)]],
  ['mg%', [u('mass', 0.01)]],
  ['mg/100ml', [u('mass', 0.01)]],
  ['mg/l', [u('mass', 1e-3)]],
  ['ug/ml', [u('mass', 1e-3)]],
  ['ug/dl', [u('mass', 1e-5)]],
  ['ug/l', [u('mass', 1e-6)]],
  ['ng/ml', [u('mass', 1e-6)]],
  // amount of substance, base mmol/L
  ['mmol/l', [u('molar')]],
  ['mm', [u('molar')]],
  ['mol/l', [u('molar', 1e3)]],
  ['umol/l', [u('molar', 1e-3)]],
  ['um', [u('molar', 1e-3)]],
  ['nmol/l', [u('molar', 1e-6)]],
  ['meq/l', [u('equiv')]],
  ['mval/l', [u('equiv')]],
  // catalytic activity, base U/L (1 µkat/L = 60 U/L)
  ...['u/l', 'iu/l', 'mu/ml', 'u/l(37c)', 'u/l37c', 'units/l'].map((k): [string, UnitInfo[]] => [
    k,
    [u('activity')],
  ]),
  ['u/ml', [u('activity', 1e3)]],
  ['ukat/l', [u('activity', 60)]],
  ['nkat/l', [u('activity', 0.06)]],
  // ratios (INR)
  ...['{inr}', 'inr', 'ratio', '{ratio}', '1', '{index}', '{ratio}inr'].map((k): [string, UnitInfo[]] => [
    k,
    [u('ratio')],
  ]),
  // time
  ...['s', 'sec', 'secs', 'second', 'seconds', '秒'].map((k): [string, UnitInfo[]] => [k, [u('time')]]),
  ['%', [u('percent')]],
]);

const SPACE = /\s+/g;
/** HL7 v2 escapes '^' (its component separator) as \S\: '10\S\9/L' */
const HL7_CARET = /\\S\\/g;
const MICRO = /[µμ]/g;
const TIMES_PREFIX = /^[×x*]+(?=\d)/;
const POWER_OF_TEN = /10(?:\*\*|\^|\*|e|~|')([0-9]{1,2})/g;
const LOST_SUPERSCRIPT = /^10(3|6|9|12)(?=\/|cells)/;
const ANNOTATION = /[{}[\]]/g;

/**
 * The comparable spelling of a unit: NFKC (full-width forms, superscripts), lower case, no spaces, micro as 'u',
 * '×10⁹', 'x10*9', '10E9', '10^9' all as '10^9', UCUM brackets dropped ('[iU]/L' → 'iu/l', '{cells}/uL' →
 * 'cells/ul'). '{INR}' keeps its braces.
 */
export function unitKey(unit: string): string {
  let k = unit.replace(HL7_CARET, '^').normalize('NFKC').toLowerCase().replace(SPACE, '').replace(MICRO, 'u');
  if (k === '{inr}' || k === '{ratio}' || k === '{index}') return k;
  k = k.replace(ANNOTATION, '').replace(TIMES_PREFIX, '').replace(POWER_OF_TEN, '10^$1');
  k = k.replace(LOST_SUPERSCRIPT, '10^$1');
  return k;
}

const keyCache = new Map<string, readonly UnitInfo[] | null>();

/** The readings of a unit string (empty when it is not known). Cached. */
export function unitReadings(unit: string): readonly UnitInfo[] {
  let hit = keyCache.get(unit);
  if (hit === undefined) {
    hit = UNITS.get(unitKey(unit)) ?? null;
    if (keyCache.size >= 5000) keyCache.clear();
    keyCache.set(unit, hit);
  }
  return hit ?? [];
}

/** Whether a value in dimension `from` can be expressed in dimension `to` for this analyte. */
function compatible(from: UnitDimension, to: UnitDimension, s: UnitSubject): boolean {
  if (from === to) return true;
  const chem = (d: UnitDimension) => d === 'mass' || d === 'molar' || d === 'equiv';
  if (!chem(from) || !chem(to)) return false;
  const needsMass = from === 'mass' || to === 'mass';
  const needsValence = from === 'equiv' || to === 'equiv';
  return (!needsMass || s.molarMass !== undefined) && (!needsValence || s.valence !== undefined);
}

/**
 * A unit string read for an analyte: the reading that fits the analyte (for 'g/l', grams or giga per litre), or
 * 'incompatible' when the unit is known but measures something else (a percentage of a count, a mass of an enzyme),
 * or undefined when the unit is not known. An empty unit is a ratio for a ratio analyte (INR) and unknown otherwise.
 */
export function unitFor(
  unit: string | null | undefined,
  s: UnitSubject,
): UnitInfo | 'incompatible' | undefined {
  const text = unit?.trim() ?? '';
  if (text === '') return s.dim === 'ratio' ? RATIO : undefined;
  const readings = unitReadings(text);
  if (readings.length === 0) return undefined;
  for (const r of readings) if (compatible(r.dim, s.dim, s)) return r;
  return 'incompatible';
}
const RATIO: UnitInfo = { dim: 'ratio', factor: 1 };

/** Same unit (dimension and factor). */
export function sameUnit(a: UnitInfo, b: UnitInfo): boolean {
  return a.dim === b.dim && Math.abs(a.factor - b.factor) <= 1e-12 * Math.max(1, Math.abs(b.factor));
}

/**
 * The factor that takes a value in `from` to `to` for this analyte (linear: every unit here is), or undefined when
 * they cannot be converted (different dimensions, or mass ↔ molar without a molar mass).
 */
export function conversionFactor(from: UnitInfo, to: UnitInfo, s: UnitSubject): number | undefined {
  if (!compatible(from.dim, to.dim, s)) return undefined;
  let base = from.factor; // one unit of `from` in its dimension's base unit
  // across dimensions, through mmol/L: mEq/L ÷ valence; g/L × 1000 ÷ (g/mol)
  if (from.dim !== to.dim) {
    if (from.dim === 'equiv') base /= s.valence!;
    else if (from.dim === 'mass') base = (base * 1000) / s.molarMass!;
    if (to.dim === 'equiv') base *= s.valence!;
    else if (to.dim === 'mass') base = (base * s.molarMass!) / 1000;
  }
  return base / to.factor;
}
