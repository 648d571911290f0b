/**
 * The lab analytes that CTCAE v5.0 (NCI, 27 November 2017) grades by value, with their identifiers, units, typical
 * adult ranges and the exact v5.0 grade thresholds (issue 13 item 3). Pure data, built once at module load.
 *
 * How a threshold reads: CTCAE writes bands (">ULN - 3.0 x ULN", "<10.0 - 8.0 g/dL", "<75,000 - 50,000/mm3"); a band's
 * lower edge is exclusive where CTCAE writes '>' / '<', so each grade is one step "value > bound" (high) or
 * "value < bound" (low), checked from grade 4 down; the first step met is the grade. Where v5.0 gives the threshold
 * in several units (g/dL, mmol/L, g/L), each set is kept as written and the one in the record's unit is used — the
 * sets are not exact conversions of each other (11.5 mg/dL calcium is 2.87 mmol/L, v5.0 says 2.9).
 *
 * What v5.0 needs and a lab value alone does not give — baseline, symptoms, intervention, transfusion, life-threatening
 * consequences — is not guessed: the grade is the one the value supports, and a note says which higher grade the
 * clinical criterion could give (LabAssessment.reasonCode). Grade 5 (death) is never a lab grade.
 *
 * Fallback ranges are used only when a record carries no range and no flag of its own. Sources: the Chinese health
 * industry standards for adult reference intervals — WS/T 405-2012 (blood cell analysis), WS/T 404.1-2012 (ALT, AST,
 * ALP, GGT), 404.2-2012 (albumin), 404.3-2012 (K, Na), 404.4-2018 (creatinine, enzymatic), 404.5-2015 (uric acid),
 * 404.6-2015 (Ca, Mg), 404.7-2015 (CK), 404.8-2015 (amylase), 404.9-2018 (total bilirubin); lipids from the Chinese
 * guideline on adult dyslipidaemia (2016 revision: total cholesterol < 5.2, triglycerides < 1.7 mmol/L); fasting plasma
 * glucose 3.9–6.1 mmol/L (Chinese type 2 diabetes guideline); INR, fibrinogen, ionized calcium and lipase are
 * typical intervals of common methods (lipase varies by method: a record's own range is always preferred). When the
 * patient's sex is not known the widest adult interval of both sexes is used, so that a fallback never makes an
 * abnormal value out of a normal one for either sex. aPTT has no fallback: its range depends on the reagent.
 */
import type { UnitDimension } from './lab-units';

export interface LocalizedTerm {
  en: string;
  zh: string;
}

export type CtcaeGrade = 1 | 2 | 3 | 4;
export type StepOp = '>' | '>=' | '<' | '<=';

/** One grade's condition: value OP bound; the bound is k × ULN / k × LLN, ULN + plus, or abs (in the grading's unit). */
export interface GradeStep {
  grade: CtcaeGrade;
  op: StepOp;
  of?: 'ULN' | 'LLN';
  k?: number;
  plus?: number;
  abs?: number;
}

/** Grade steps in one unit (unit omitted: the steps are relative to ULN / LLN only and work in any unit). */
export interface UnitGrading {
  unit?: string;
  steps: readonly GradeStep[];
}

/** Why a grade is what it is, or why there is none. */
export type LabReasonCode =
  | 'noRange' // neither the record nor the table has a range: in or out cannot be told
  | 'unknownUnit' // the unit is missing or not understood, and the grade needs it
  | 'implausible' // the value in its unit is not a possible value of the analyte (a unit error)
  | 'notInTable' // out of range, but not an analyte that CTCAE v5.0 grades by value
  | 'noCtcaeTerm' // out of range on a side CTCAE v5.0 has no term for (ALT low)
  | 'clinicalOnly' // CTCAE v5.0 grades this by clinical criteria only (hyperglycemia)
  | 'censored' // the value is a bound ('<0.5', '>200'): the grade is the least it can be, or unknown
  | 'flagOnly' // out of range by the record's flag (no bounds); the grade uses the fallback range
  | 'baselineNotKnown' // v5.0 grades against baseline when baseline was abnormal (or on anticoagulation)
  | 'symptomsNotKnown' // v5.0 gives a higher grade with symptoms, intervention or hospitalisation
  | 'clinicalGrade'; // the next grade exists only by clinical criteria (transfusion, life-threatening)

export interface CtcaeNote {
  /** the computed grades the note applies to */
  grades: readonly number[];
  code: LabReasonCode;
  text: string;
}

/** One side (high or low) of an analyte as CTCAE v5.0 grades it. */
export interface CtcaeRule {
  term: LocalizedTerm;
  /** by unit, the canonical unit first; null: v5.0 grades this side by clinical criteria only */
  grading: readonly UnitGrading[] | null;
  notes?: readonly CtcaeNote[];
}

export interface RangeBounds {
  low?: number;
  high?: number;
}

/** A typical adult range in the analyte's canonical unit (see the file comment for the sources). */
export interface FallbackRange extends RangeBounds {
  male?: RangeBounds;
  female?: RangeBounds;
}

export interface LabAnalyte {
  id: string;
  name: LocalizedTerm;
  dim: UnitDimension;
  /** canonical unit (UCUM); values, ranges and fallbacks are reported in it */
  unit: string;
  /** g/mol, for mg/dL ↔ mmol/L */
  molarMass?: number;
  /** charge, for mEq/L ↔ mmol/L */
  valence?: number;
  /** LOINC codes: serum / plasma / blood variants, mass and molar variants */
  loinc: readonly string[];
  /** names hospitals use, English and Chinese, matched whole after normalisation (see analyte-match.ts) */
  names: readonly string[];
  fallback?: FallbackRange;
  /** values outside this (canonical unit) are unit errors, not results */
  plausible: readonly [number, number];
  high?: CtcaeRule;
  low?: CtcaeRule;
}

// ── step builders ──

type Bands = Partial<Record<CtcaeGrade, number>>;
const GRADES_DOWN: readonly CtcaeGrade[] = [4, 3, 2, 1];

/** high side, multiples of ULN: { 4: 20, 3: 5, 2: 3, 1: 1 } = ">20 × ULN" … ">ULN" */
function timesUln(bands: Bands): UnitGrading {
  return {
    steps: GRADES_DOWN.filter((g) => bands[g] !== undefined).map((g) => ({
      grade: g,
      op: '>',
      of: 'ULN',
      k: bands[g]!,
    })),
  };
}
/** high side, absolute bounds in `unit`, grade 1 from ULN unless `grade1` is given */
function above(
  unit: string,
  bands: Bands,
  grade1: 'ULN' | 'none' | { op: StepOp; abs: number } = 'ULN',
): UnitGrading {
  const steps: GradeStep[] = GRADES_DOWN.filter((g) => g !== 1 && bands[g] !== undefined).map((g) => ({
    grade: g,
    op: '>',
    abs: bands[g]!,
  }));
  if (grade1 === 'ULN') steps.push({ grade: 1, op: '>', of: 'ULN', k: 1 });
  else if (grade1 !== 'none') steps.push({ grade: 1, ...grade1 });
  return { unit, steps };
}
/** low side, absolute bounds in `unit`, grade 1 from LLN */
function below(unit: string, bands: Bands, grade1: 'LLN' | 'none' = 'LLN'): UnitGrading {
  const steps: GradeStep[] = GRADES_DOWN.filter((g) => g !== 1 && bands[g] !== undefined).map((g) => ({
    grade: g,
    op: '<',
    abs: bands[g]!,
  }));
  if (grade1 === 'LLN') steps.push({ grade: 1, op: '<', of: 'LLN', k: 1 });
  return { unit, steps };
}

const BASELINE_NOTE: CtcaeNote = {
  grades: [1, 2, 3, 4],
  code: 'baselineNotKnown',
  text: 'graded against ULN; CTCAE v5.0 grades against baseline when the baseline was abnormal',
};
const term = (en: string, zh: string): LocalizedTerm => ({ en, zh });

// LOINC codes are LOINC's; the Chinese CTCAE terms follow the Chinese translation of CTCAE v5.0.
export const CTCAE_ANALYTES: readonly LabAnalyte[] = [
  {
    id: 'alt',
    name: term('Alanine aminotransferase', '丙氨酸氨基转移酶'),
    dim: 'activity',
    unit: 'U/L',
    loinc: ['1742-6', '1743-4', '1744-2', '76625-3'],
    names: [
      'alt',
      'sgpt',
      'gpt',
      'alat',
      'alt/sgpt',
      'sgpt/alt',
      'alt/gpt',
      'gpt/alt',
      'alanine aminotransferase',
      'alanine transaminase',
      'alt(sgpt)',
      '谷丙转氨酶',
      '丙氨酸氨基转移酶',
      '丙氨酸转氨酶',
      '血清丙氨酸氨基转移酶',
      '谷丙',
      '丙氨酸氨基转换酶',
    ],
    fallback: { male: { low: 9, high: 50 }, female: { low: 7, high: 40 } },
    plausible: [0, 100_000],
    // v5.0: >ULN-3.0 / >3.0-5.0 / >5.0-20.0 / >20.0 × ULN if baseline was normal; × baseline (1.5-3.0 …) if abnormal
    high: {
      term: term('Alanine aminotransferase increased', '丙氨酸氨基转移酶增高'),
      grading: [timesUln({ 4: 20, 3: 5, 2: 3, 1: 1 })],
      notes: [BASELINE_NOTE],
    },
  },
  {
    id: 'ast',
    name: term('Aspartate aminotransferase', '天门冬氨酸氨基转移酶'),
    dim: 'activity',
    unit: 'U/L',
    loinc: ['1920-8', '30239-8'],
    names: [
      'ast',
      'sgot',
      'got',
      'asat',
      'ast/sgot',
      'sgot/ast',
      'ast/got',
      'got/ast',
      'aspartate aminotransferase',
      'aspartate transaminase',
      'ast(sgot)',
      '谷草转氨酶',
      '天门冬氨酸氨基转移酶',
      '天冬氨酸氨基转移酶',
      '天冬氨酸转氨酶',
      '门冬氨酸氨基转移酶',
      '血清天门冬氨酸氨基转移酶',
      '谷草',
    ],
    fallback: { male: { low: 15, high: 40 }, female: { low: 13, high: 35 } },
    plausible: [0, 100_000],
    high: {
      term: term('Aspartate aminotransferase increased', '天门冬氨酸氨基转移酶增高'),
      grading: [timesUln({ 4: 20, 3: 5, 2: 3, 1: 1 })],
      notes: [BASELINE_NOTE],
    },
  },
  {
    id: 'alp',
    name: term('Alkaline phosphatase', '碱性磷酸酶'),
    dim: 'activity',
    unit: 'U/L',
    loinc: ['6768-6', '1783-0'],
    names: [
      'alp',
      'akp',
      'alkp',
      'alk phos',
      'alkaline phosphatase',
      'alkaline phosphatase total',
      '碱性磷酸酶',
      '血清碱性磷酸酶',
    ],
    // WS/T 404.1: women 35-100 (20-49 y) and 50-135 (50-79 y)
    fallback: { male: { low: 45, high: 125 }, female: { low: 35, high: 135 } },
    plausible: [0, 100_000],
    // v5.0: >ULN-2.5 / >2.5-5.0 / >5.0-20.0 / >20.0 × ULN (baseline normal); 2.0-2.5 × baseline … if abnormal
    high: {
      term: term('Alkaline phosphatase increased', '碱性磷酸酶增高'),
      grading: [timesUln({ 4: 20, 3: 5, 2: 2.5, 1: 1 })],
      notes: [BASELINE_NOTE],
    },
  },
  {
    id: 'ggt',
    name: term('Gamma-glutamyltransferase', 'γ-谷氨酰转移酶'),
    dim: 'activity',
    unit: 'U/L',
    loinc: ['2324-2'],
    names: [
      'ggt',
      'γgt',
      'gammagt',
      'ggtp',
      'rgt',
      'γgtp',
      'gamma glutamyl transferase',
      'gamma glutamyltransferase',
      'gammaglutamyltransferase',
      'gamma glutamyl transpeptidase',
      'γ谷氨酰转移酶',
      'γ谷氨酰基转移酶',
      'γ谷氨酰转肽酶',
      'r谷氨酰转肽酶',
      'r谷氨酰转移酶',
      '谷氨酰转肽酶',
      '谷氨酰转移酶',
      '谷氨酰基转移酶',
      '转肽酶',
    ],
    fallback: { male: { low: 10, high: 60 }, female: { low: 7, high: 45 } },
    plausible: [0, 100_000],
    high: {
      term: term('GGT increased', 'γ-谷氨酰转移酶增高'),
      grading: [timesUln({ 4: 20, 3: 5, 2: 2.5, 1: 1 })],
      notes: [BASELINE_NOTE],
    },
  },
  {
    id: 'bilirubin',
    name: term('Total bilirubin', '总胆红素'),
    dim: 'molar',
    unit: 'umol/L',
    molarMass: 584.66,
    loinc: ['1975-2', '42719-5', '14631-6'],
    names: [
      'tbil',
      'tbili',
      'bilt',
      'total bilirubin',
      'bilirubin total',
      'bilirubin',
      'bilirubintotal',
      'serum bilirubin',
      '总胆红素',
      '血清总胆红素',
      '胆红素总',
      '胆红素',
    ],
    // WS/T 404.9-2018: men ≤ 26, women ≤ 21 µmol/L
    fallback: { male: { low: 0, high: 26 }, female: { low: 0, high: 21 } },
    plausible: [0, 1500],
    // v5.0: >ULN-1.5 / >1.5-3.0 / >3.0-10.0 / >10.0 × ULN (baseline normal); >1.0-1.5 × baseline … if abnormal
    high: {
      term: term('Blood bilirubin increased', '血胆红素增高'),
      grading: [timesUln({ 4: 10, 3: 3, 2: 1.5, 1: 1 })],
      notes: [BASELINE_NOTE],
    },
  },
  {
    id: 'creatinine',
    name: term('Creatinine', '肌酐'),
    dim: 'molar',
    unit: 'umol/L',
    molarMass: 113.12,
    loinc: ['2160-0', '38483-4', '14682-9', '59826-8'],
    names: [
      'cr',
      'crea',
      'creat',
      'scr',
      'creatinine',
      'serum creatinine',
      'creatinine serum',
      '肌酐',
      '血肌酐',
      '血清肌酐',
      '肌酐酶法',
      '肌酐(酶法)',
      '肌酐苦味酸法',
    ],
    // WS/T 404.4-2018 (enzymatic), 20-79 y: men 57-111, women 41-81 µmol/L
    fallback: { male: { low: 57, high: 111 }, female: { low: 41, high: 81 } },
    plausible: [5, 5000],
    // v5.0: >ULN-1.5 × ULN / >1.5-3.0 × baseline; >1.5-3.0 × ULN / >3.0 × baseline; >3.0-6.0 × ULN / >6.0 × ULN
    high: {
      term: term('Creatinine increased', '肌酐增高'),
      grading: [timesUln({ 4: 6, 3: 3, 2: 1.5, 1: 1 })],
      notes: [
        {
          grades: [1, 2],
          code: 'baselineNotKnown',
          text: 'graded against ULN; CTCAE v5.0 also gives grade 2 for >1.5 and grade 3 for >3.0 × baseline',
        },
      ],
    },
  },
  {
    id: 'hemoglobin',
    name: term('Hemoglobin', '血红蛋白'),
    dim: 'mass',
    unit: 'g/L',
    // per haem monomer: CTCAE's 6.2 mmol/L = 10.0 g/dL
    molarMass: 16_114.5,
    loinc: ['718-7', '20509-6', '30313-1', '30350-3', '30352-9', '59260-0'],
    names: [
      'hgb',
      'hb',
      'hemoglobin',
      'haemoglobin',
      'hemoglobin(hgb)',
      'hgb(hemoglobin)',
      'blood hemoglobin',
      '血红蛋白',
      '血红蛋白浓度',
      '血红蛋白量',
      '血色素',
    ],
    fallback: { male: { low: 130, high: 175 }, female: { low: 115, high: 150 } },
    plausible: [10, 260],
    // v5.0 anemia: Hgb <LLN-10.0 g/dL; <LLN-6.2 mmol/L; <LLN-100 g/L · <10.0-8.0 g/dL; <6.2-4.9; <100-80 ·
    // <8.0 g/dL; <4.9 mmol/L; <80 g/L; transfusion indicated · grade 4: life-threatening (clinical only)
    low: {
      term: term('Anemia', '贫血'),
      grading: [
        below('g/L', { 3: 80, 2: 100 }),
        below('g/dL', { 3: 8, 2: 10 }),
        below('mmol/L', { 3: 4.9, 2: 6.2 }),
      ],
      notes: [
        {
          grades: [3],
          code: 'clinicalGrade',
          text: 'CTCAE v5.0 grade 4 (life-threatening consequences) is clinical',
        },
      ],
    },
    // v5.0 hemoglobin increased: increase in >0-2 / >2-4 / >4 g/dL (above ULN; v5.0 says baseline when it was above ULN)
    high: {
      term: term('Hemoglobin increased', '血红蛋白增高'),
      grading: [
        {
          unit: 'g/L',
          steps: [
            { grade: 3, op: '>', of: 'ULN', plus: 40 },
            { grade: 2, op: '>', of: 'ULN', plus: 20 },
            { grade: 1, op: '>', of: 'ULN', k: 1 },
          ],
        },
        {
          unit: 'g/dL',
          steps: [
            { grade: 3, op: '>', of: 'ULN', plus: 4 },
            { grade: 2, op: '>', of: 'ULN', plus: 2 },
            { grade: 1, op: '>', of: 'ULN', k: 1 },
          ],
        },
      ],
      notes: [
        {
          grades: [1, 2, 3],
          code: 'baselineNotKnown',
          text: 'increase counted from ULN; CTCAE v5.0 counts from baseline when the baseline was above ULN',
        },
      ],
    },
  },
  {
    id: 'platelets',
    name: term('Platelet count', '血小板计数'),
    dim: 'count',
    unit: '10*9/L',
    loinc: ['777-3', '26515-7', '778-1', '13056-7'],
    names: [
      'plt',
      'platelet',
      'platelets',
      'platelet count',
      'platelets count',
      'thrombocytes',
      'thrombocyte count',
      'plt count',
      '血小板',
      '血小板计数',
      '血小板数',
      '血小板数目',
      '血小板总数',
    ],
    fallback: { low: 125, high: 350 },
    plausible: [0, 5000],
    // v5.0: <LLN-75.0 / <75.0-50.0 / <50.0-25.0 / <25.0 × 10e9/L
    low: {
      term: term('Platelet count decreased', '血小板计数降低'),
      grading: [below('10*9/L', { 4: 25, 3: 50, 2: 75 })],
    },
  },
  {
    id: 'wbc',
    name: term('White blood cell count', '白细胞计数'),
    dim: 'count',
    unit: '10*9/L',
    loinc: ['6690-2', '26464-8', '804-5'],
    names: [
      'wbc',
      'wbc count',
      'white blood cell',
      'white blood cells',
      'white blood cell count',
      'white cell count',
      'leukocytes',
      'leukocyte count',
      'leucocytes',
      'leucocyte count',
      'total leukocyte count',
      '白细胞',
      '白细胞计数',
      '白细胞数',
      '白细胞总数',
      '白细胞数目',
    ],
    fallback: { low: 3.5, high: 9.5 },
    plausible: [0, 1000],
    // v5.0: <LLN-3.0 / <3.0-2.0 / <2.0-1.0 / <1.0 × 10e9/L
    low: {
      term: term('White blood cell decreased', '白细胞计数降低'),
      grading: [below('10*9/L', { 4: 1, 3: 2, 2: 3 })],
    },
    // v5.0 leukocytosis: grade 3 >100,000/mm3; grade 4 clinical manifestations of leucostasis (no grades 1-2)
    high: {
      term: term('Leukocytosis', '白细胞增多'),
      grading: [above('10*9/L', { 3: 100 }, 'none')],
      notes: [{ grades: [3], code: 'clinicalGrade', text: 'CTCAE v5.0 grade 4 (leucostasis) is clinical' }],
    },
  },
  {
    id: 'neutrophils',
    name: term('Neutrophil count', '中性粒细胞计数'),
    dim: 'count',
    unit: '10*9/L',
    loinc: ['751-8', '26499-4', '753-4'],
    names: [
      'anc',
      'neut#',
      'neu#',
      'ne#',
      'gran#',
      'neut',
      'neutrophils',
      'neutrophil count',
      'neutrophils count',
      'absolute neutrophil count',
      'neutrophils absolute',
      'neutrophil absolute count',
      'neutrophils #',
      'neutrophil#',
      '中性粒细胞',
      '中性粒细胞绝对值',
      '中性粒细胞计数',
      '中性粒细胞数',
      '中性粒细胞绝对数',
      '中性粒细胞数目',
      '中性粒细胞总数',
      '中性细胞数',
    ],
    fallback: { low: 1.8, high: 6.3 },
    plausible: [0, 500],
    // v5.0: <LLN-1.5 / <1.5-1.0 / <1.0-0.5 / <0.5 × 10e9/L
    low: {
      term: term('Neutrophil count decreased', '中性粒细胞计数降低'),
      grading: [below('10*9/L', { 4: 0.5, 3: 1, 2: 1.5 })],
    },
  },
  {
    id: 'lymphocytes',
    name: term('Lymphocyte count', '淋巴细胞计数'),
    dim: 'count',
    unit: '10*9/L',
    loinc: ['731-0', '26474-7', '732-8'],
    names: [
      'alc',
      'lym#',
      'lymph#',
      'ly#',
      'lymphocytes',
      'lymphocyte count',
      'lymphocytes count',
      'absolute lymphocyte count',
      'lymphocytes absolute',
      'lymphocyte absolute count',
      'lymphocytes #',
      '淋巴细胞',
      '淋巴细胞绝对值',
      '淋巴细胞计数',
      '淋巴细胞数',
      '淋巴细胞绝对数',
      '淋巴细胞数目',
    ],
    fallback: { low: 1.1, high: 3.2 },
    plausible: [0, 1000],
    // v5.0: <LLN-800/mm3 / <800-500 / <500-200 / <200/mm3 (0.8 / 0.5 / 0.2 × 10e9/L)
    low: {
      term: term('Lymphocyte count decreased', '淋巴细胞计数降低'),
      grading: [below('10*9/L', { 4: 0.2, 3: 0.5, 2: 0.8 })],
    },
    // v5.0: grade 2 >4000/mm3 - 20,000/mm3, grade 3 >20,000/mm3 (no grade 1 or 4)
    high: {
      term: term('Lymphocyte count increased', '淋巴细胞计数增高'),
      grading: [above('10*9/L', { 3: 20, 2: 4 }, 'none')],
    },
  },
  {
    id: 'potassium',
    name: term('Potassium', '钾'),
    dim: 'molar',
    unit: 'mmol/L',
    molarMass: 39.098,
    valence: 1,
    loinc: ['2823-3', '6298-4', '32713-0'],
    names: [
      'k',
      'k+',
      'potassium',
      'serum potassium',
      'potassium serum',
      'kalium',
      '钾',
      '血钾',
      '钾离子',
      '血清钾',
      '钾(k)',
      '血清钾离子',
    ],
    fallback: { low: 3.5, high: 5.3 },
    plausible: [0.5, 15],
    // v5.0 hyperkalemia: >ULN-5.5 · >5.5-6.0 (intervention initiated) · >6.0-7.0 (hospitalization) · >7.0 mmol/L
    high: { term: term('Hyperkalemia', '高钾血症'), grading: [above('mmol/L', { 4: 7, 3: 6, 2: 5.5 })] },
    // v5.0 hypokalemia: <LLN-3.0 · symptomatic with <LLN-3.0, intervention indicated · <3.0-2.5 · <2.5 mmol/L
    low: {
      term: term('Hypokalemia', '低钾血症'),
      grading: [below('mmol/L', { 4: 2.5, 3: 3 })],
      notes: [
        {
          grades: [1],
          code: 'symptomsNotKnown',
          text: 'CTCAE v5.0 grade 2 if symptomatic with intervention indicated',
        },
      ],
    },
  },
  {
    id: 'sodium',
    name: term('Sodium', '钠'),
    dim: 'molar',
    unit: 'mmol/L',
    molarMass: 22.99,
    valence: 1,
    loinc: ['2951-2', '2947-0', '32717-1'],
    names: [
      'na',
      'na+',
      'sodium',
      'serum sodium',
      'sodium serum',
      'natrium',
      '钠',
      '血钠',
      '钠离子',
      '血清钠',
      '钠(na)',
      '血清钠离子',
    ],
    fallback: { low: 137, high: 147 },
    plausible: [80, 220],
    // v5.0 hypernatremia: >ULN-150 · >150-155 · >155-160 · >160 mmol/L
    high: { term: term('Hypernatremia', '高钠血症'), grading: [above('mmol/L', { 4: 160, 3: 155, 2: 150 })] },
    // v5.0 hyponatremia: <LLN-130 · 125-129 asymptomatic · 125-129 symptomatic or 120-124 · <120 mmol/L
    // ("125-129" is read as [125, 130): a value between 129 and 130 is grade 2)
    low: {
      term: term('Hyponatremia', '低钠血症'),
      grading: [below('mmol/L', { 4: 120, 3: 125, 2: 130 })],
      notes: [{ grades: [2], code: 'symptomsNotKnown', text: 'CTCAE v5.0 grade 3 if symptomatic' }],
    },
  },
  {
    id: 'calcium',
    name: term('Calcium', '钙'),
    dim: 'molar',
    unit: 'mmol/L',
    molarMass: 40.078,
    valence: 2,
    // total and albumin-corrected calcium; v5.0 grades corrected calcium, a total is graded as it is
    loinc: ['17861-6', '49765-1', '2000-8', '29265-6'],
    names: [
      'ca',
      'calcium',
      'total calcium',
      'calcium total',
      'serum calcium',
      'corrected calcium',
      'calcium corrected',
      'tca',
      '钙',
      '血钙',
      '总钙',
      '血清钙',
      '血清总钙',
      '校正钙',
      '钙(ca)',
    ],
    fallback: { low: 2.11, high: 2.52 },
    plausible: [0.5, 6],
    // v5.0: corrected serum calcium >ULN-11.5 mg/dL; >ULN-2.9 mmol/L · >11.5-12.5; >2.9-3.1 · >12.5-13.5; >3.1-3.4 · >13.5; >3.4
    high: {
      term: term('Hypercalcemia', '高钙血症'),
      grading: [above('mmol/L', { 4: 3.4, 3: 3.1, 2: 2.9 }), above('mg/dL', { 4: 13.5, 3: 12.5, 2: 11.5 })],
    },
    // v5.0: <LLN-8.0 mg/dL; <LLN-2.0 mmol/L · <8.0-7.0; <2.0-1.75 · <7.0-6.0; <1.75-1.5 · <6.0; <1.5
    low: {
      term: term('Hypocalcemia', '低钙血症'),
      grading: [below('mmol/L', { 4: 1.5, 3: 1.75, 2: 2 }), below('mg/dL', { 4: 6, 3: 7, 2: 8 })],
    },
  },
  {
    id: 'calcium-ionized',
    name: term('Ionized calcium', '离子钙'),
    dim: 'molar',
    unit: 'mmol/L',
    molarMass: 40.078,
    valence: 2,
    loinc: ['1994-3', '1995-0'],
    names: [
      'ica',
      'ca++',
      'ca2+',
      'ionized calcium',
      'ionised calcium',
      'calcium ionized',
      'calcium ionised',
      'free calcium',
      'calcium free',
      '离子钙',
      '游离钙',
      '钙离子',
      '血离子钙',
    ],
    fallback: { low: 1.12, high: 1.32 },
    plausible: [0.2, 4],
    // v5.0: ionized calcium >ULN-1.5 · >1.5-1.6 · >1.6-1.8 · >1.8 mmol/L
    high: { term: term('Hypercalcemia', '高钙血症'), grading: [above('mmol/L', { 4: 1.8, 3: 1.6, 2: 1.5 })] },
    // v5.0: ionized calcium <LLN-1.0 · <1.0-0.9 · <0.9-0.8 · <0.8 mmol/L
    low: { term: term('Hypocalcemia', '低钙血症'), grading: [below('mmol/L', { 4: 0.8, 3: 0.9, 2: 1 })] },
  },
  {
    id: 'glucose',
    name: term('Glucose', '葡萄糖'),
    dim: 'molar',
    unit: 'mmol/L',
    molarMass: 180.156,
    loinc: ['2345-7', '2339-0', '41653-7', '1558-6', '14749-6', '15074-8'],
    names: [
      'glu',
      'glucose',
      'blood glucose',
      'fasting glucose',
      'fasting blood glucose',
      'fasting plasma glucose',
      'fpg',
      'serum glucose',
      'plasma glucose',
      'glucose serum',
      'glucose fasting',
      '葡萄糖',
      '血糖',
      '空腹血糖',
      '空腹葡萄糖',
      '血葡萄糖',
      '血清葡萄糖',
      '空腹血浆葡萄糖',
      '葡萄糖(空腹)',
    ],
    fallback: { low: 3.9, high: 6.1 },
    plausible: [0.2, 120],
    // v5.0 hypoglycemia: <LLN-55 mg/dL; <LLN-3.0 mmol/L · <55-40; <3.0-2.2 · <40-30; <2.2-1.7 · <30 mg/dL; <1.7 mmol/L
    low: {
      term: term('Hypoglycemia', '低血糖'),
      grading: [below('mmol/L', { 4: 1.7, 3: 2.2, 2: 3 }), below('mg/dL', { 4: 30, 3: 40, 2: 55 })],
    },
    // v5.0 hyperglycemia is graded by the change in diabetic therapy and hospitalisation, not by a value
    high: { term: term('Hyperglycemia', '高血糖'), grading: null },
  },
  {
    id: 'albumin',
    name: term('Albumin', '白蛋白'),
    dim: 'mass',
    unit: 'g/L',
    loinc: ['1751-7', '61151-7', '61152-5'],
    names: [
      'alb',
      'albumin',
      'serum albumin',
      'albumin serum',
      '白蛋白',
      '血清白蛋白',
      '清蛋白',
      '血清清蛋白',
      '白蛋白(alb)',
    ],
    // WS/T 404.2-2012: 40-55 g/L (20-59 y), 38-55 g/L (60-79 y)
    fallback: { low: 38, high: 55 },
    plausible: [3, 80],
    // v5.0: <LLN-3 g/dL; <LLN-30 g/L · <3-2 g/dL; <30-20 g/L · <2 g/dL; <20 g/L · grade 4 clinical
    low: {
      term: term('Hypoalbuminemia', '低白蛋白血症'),
      grading: [below('g/L', { 3: 20, 2: 30 }), below('g/dL', { 3: 2, 2: 3 })],
      notes: [
        {
          grades: [3],
          code: 'clinicalGrade',
          text: 'CTCAE v5.0 grade 4 (life-threatening consequences) is clinical',
        },
      ],
    },
  },
  {
    id: 'cholesterol',
    name: term('Total cholesterol', '总胆固醇'),
    dim: 'molar',
    unit: 'mmol/L',
    molarMass: 386.65,
    loinc: ['2093-3', '14647-2'],
    names: [
      'tc',
      'chol',
      'tcho',
      'tch',
      'cholesterol',
      'total cholesterol',
      'cholesterol total',
      'serum cholesterol',
      '总胆固醇',
      '胆固醇',
      '血清总胆固醇',
      '血总胆固醇',
    ],
    fallback: { high: 5.2 },
    plausible: [0.2, 60],
    // v5.0: >ULN-300 mg/dL; >ULN-7.75 mmol/L · >300-400; >7.75-10.34 · >400-500; >10.34-12.92 · >500; >12.92
    high: {
      term: term('Cholesterol high', '胆固醇增高'),
      grading: [above('mmol/L', { 4: 12.92, 3: 10.34, 2: 7.75 }), above('mg/dL', { 4: 500, 3: 400, 2: 300 })],
    },
  },
  {
    id: 'triglycerides',
    name: term('Triglycerides', '甘油三酯'),
    dim: 'molar',
    unit: 'mmol/L',
    molarMass: 885.7,
    loinc: ['2571-8', '14927-8'],
    names: [
      'tg',
      'trig',
      'trigs',
      'triglyceride',
      'triglycerides',
      'serum triglycerides',
      '甘油三酯',
      '三酰甘油',
      '甘油三脂',
      '血清甘油三酯',
    ],
    fallback: { high: 1.7 },
    plausible: [0.05, 200],
    // v5.0: 150-300 mg/dL; 1.71-3.42 mmol/L · >300-500; >3.42-5.7 · >500-1000; >5.7-11.4 · >1000; >11.4 (grade 1 from 150 inclusive, not from ULN)
    high: {
      term: term('Hypertriglyceridemia', '高甘油三酯血症'),
      grading: [
        above('mmol/L', { 4: 11.4, 3: 5.7, 2: 3.42 }, { op: '>=', abs: 1.71 }),
        above('mg/dL', { 4: 1000, 3: 500, 2: 300 }, { op: '>=', abs: 150 }),
      ],
    },
  },
  {
    id: 'lipase',
    name: term('Lipase', '脂肪酶'),
    dim: 'activity',
    unit: 'U/L',
    loinc: ['3040-3'],
    names: ['lps', 'lip', 'lipase', 'serum lipase', 'lipase serum', '脂肪酶', '血清脂肪酶', '血脂肪酶'],
    fallback: { low: 13, high: 60 },
    plausible: [0, 100_000],
    // v5.0: >ULN-1.5 · >1.5-2.0 or >2.0-5.0 asymptomatic · >2.0-5.0 with signs or symptoms or >5.0 asymptomatic · >5.0 with signs or symptoms
    high: {
      term: term('Lipase increased', '脂肪酶增高'),
      grading: [timesUln({ 3: 5, 2: 1.5, 1: 1 })],
      notes: [
        {
          grades: [2, 3],
          code: 'symptomsNotKnown',
          text: 'CTCAE v5.0 grade 3 for >2.0-5.0 and grade 4 for >5.0 × ULN with signs or symptoms',
        },
      ],
    },
  },
  {
    id: 'amylase',
    name: term('Amylase', '淀粉酶'),
    dim: 'activity',
    unit: 'U/L',
    loinc: ['1798-8'],
    names: [
      'amy',
      'amyl',
      'amylase',
      'serum amylase',
      'amylase serum',
      'amylase total',
      '淀粉酶',
      '血淀粉酶',
      '血清淀粉酶',
      'α淀粉酶',
      '血清α淀粉酶',
    ],
    fallback: { low: 35, high: 135 },
    plausible: [0, 100_000],
    high: {
      term: term('Serum amylase increased', '血清淀粉酶增高'),
      grading: [timesUln({ 3: 5, 2: 1.5, 1: 1 })],
      notes: [
        {
          grades: [2, 3],
          code: 'symptomsNotKnown',
          text: 'CTCAE v5.0 grade 3 for >2.0-5.0 and grade 4 for >5.0 × ULN with signs or symptoms',
        },
      ],
    },
  },
  {
    id: 'ck',
    name: term('Creatine kinase', '肌酸激酶'),
    dim: 'activity',
    unit: 'U/L',
    loinc: ['2157-6'],
    names: [
      'ck',
      'cpk',
      'ck total',
      'total ck',
      'creatine kinase',
      'creatine phosphokinase',
      'creatine kinase total',
      '肌酸激酶',
      '肌酸磷酸激酶',
      '血清肌酸激酶',
      '磷酸肌酸激酶',
      '肌酸激酶(ck)',
    ],
    fallback: { male: { low: 50, high: 310 }, female: { low: 40, high: 200 } },
    plausible: [0, 1_000_000],
    // v5.0: >ULN-2.5 · >2.5-5 · >5-10 · >10 × ULN
    high: {
      term: term('CPK increased', '肌酸磷酸激酶增高'),
      grading: [timesUln({ 4: 10, 3: 5, 2: 2.5, 1: 1 })],
    },
  },
  {
    id: 'magnesium',
    name: term('Magnesium', '镁'),
    dim: 'molar',
    unit: 'mmol/L',
    molarMass: 24.305,
    valence: 2,
    loinc: ['19123-9', '2601-3'],
    names: [
      'mg',
      'mg++',
      'mg2+',
      'magnesium',
      'serum magnesium',
      'magnesium serum',
      '镁',
      '血镁',
      '血清镁',
      '镁离子',
      '镁(mg)',
    ],
    fallback: { low: 0.75, high: 1.02 },
    plausible: [0.05, 10],
    // v5.0 hypermagnesemia: >ULN-3.0 mg/dL; >ULN-1.23 mmol/L · (no grade 2) · >3.0-8.0; >1.23-3.30 · >8.0; >3.30
    high: {
      term: term('Hypermagnesemia', '高镁血症'),
      grading: [above('mmol/L', { 4: 3.3, 3: 1.23 }), above('mg/dL', { 4: 8, 3: 3 })],
    },
    // v5.0 hypomagnesemia: <LLN-1.2 mg/dL; <LLN-0.5 mmol/L · <1.2-0.9; <0.5-0.4 · <0.9-0.7; <0.4-0.3 · <0.7; <0.3
    low: {
      term: term('Hypomagnesemia', '低镁血症'),
      grading: [below('mmol/L', { 4: 0.3, 3: 0.4, 2: 0.5 }), below('mg/dL', { 4: 0.7, 3: 0.9, 2: 1.2 })],
    },
  },
  {
    id: 'inr',
    name: term('INR', '国际标准化比值'),
    dim: 'ratio',
    unit: '{INR}',
    loinc: ['6301-6', '34714-6', '46418-0'],
    names: [
      'inr',
      'ptinr',
      'pt inr',
      'inr(pt)',
      'pt(inr)',
      'international normalized ratio',
      'international normalised ratio',
      'prothrombin time inr',
      'prothrombin inr',
      '国际标准化比值',
      '国际标准化比率',
      '凝血酶原国际标准化比值',
      '凝血酶原时间国际标准化比值',
      '凝血酶原时间inr',
    ],
    fallback: { low: 0.8, high: 1.2 },
    plausible: [0.3, 20],
    // v5.0: >1.2-1.5 · >1.5-2.5 · >2.5 (absolute, not from ULN); × baseline if on anticoagulation
    high: {
      term: term('INR increased', '国际标准化比值增高'),
      grading: [above('{INR}', { 3: 2.5, 2: 1.5 }, { op: '>', abs: 1.2 })],
      notes: [
        {
          grades: [1, 2, 3],
          code: 'baselineNotKnown',
          text: 'graded by value; CTCAE v5.0 grades against baseline for a patient on anticoagulation',
        },
      ],
    },
  },
  {
    id: 'aptt',
    name: term('Activated partial thromboplastin time', '活化部分凝血活酶时间'),
    dim: 'time',
    unit: 's',
    loinc: ['3173-2', '14979-9'],
    names: [
      'aptt',
      'ptt',
      'a.p.t.t',
      'activated partial thromboplastin time',
      'partial thromboplastin time',
      'partial thromboplastin time activated',
      '活化部分凝血活酶时间',
      '部分凝血活酶时间',
      '活化部分凝血酶原时间',
      '活化部分凝血活酶时间(aptt)',
    ],
    plausible: [5, 400],
    // v5.0: >ULN-1.5 · >1.5-2.5 · >2.5 × ULN; bleeding
    high: {
      term: term('Activated partial thromboplastin time prolonged', '活化部分凝血活酶时间延长'),
      grading: [timesUln({ 3: 2.5, 2: 1.5, 1: 1 })],
    },
  },
  {
    id: 'fibrinogen',
    name: term('Fibrinogen', '纤维蛋白原'),
    dim: 'mass',
    unit: 'g/L',
    loinc: ['3255-7'],
    names: [
      'fib',
      'fibrinogen',
      'fibrinogen level',
      'plasma fibrinogen',
      '纤维蛋白原',
      '血浆纤维蛋白原',
      '纤维蛋白原含量',
      '纤维蛋白原浓度',
    ],
    fallback: { low: 2, high: 4 },
    plausible: [0, 20],
    // v5.0: <1.0-0.75 × LLN · <0.75-0.5 × LLN · <0.5-0.25 × LLN · <0.25 × LLN or absolute <50 mg/dL (and % decrease
    // from an abnormal baseline, not known here)
    low: {
      term: term('Fibrinogen decreased', '纤维蛋白原降低'),
      grading: [
        {
          unit: 'g/L',
          steps: [
            { grade: 4, op: '<', abs: 0.5 },
            { grade: 4, op: '<', of: 'LLN', k: 0.25 },
            { grade: 3, op: '<', of: 'LLN', k: 0.5 },
            { grade: 2, op: '<', of: 'LLN', k: 0.75 },
            { grade: 1, op: '<', of: 'LLN', k: 1 },
          ],
        },
      ],
      notes: [BASELINE_NOTE],
    },
  },
  {
    id: 'uric-acid',
    name: term('Uric acid', '尿酸'),
    dim: 'molar',
    unit: 'umol/L',
    molarMass: 168.11,
    loinc: ['3084-1', '14933-6'],
    names: ['uric acid', 'urate', 'serum uric acid', 'uric acid serum', '尿酸', '血尿酸', '血清尿酸'],
    fallback: { male: { low: 208, high: 428 }, female: { low: 155, high: 357 } },
    plausible: [10, 2500],
    // v5.0 hyperuricemia: >ULN without physiologic consequences · grade 3 >ULN with physiologic consequences
    high: {
      term: term('Hyperuricemia', '高尿酸血症'),
      grading: [timesUln({ 1: 1 })],
      notes: [
        { grades: [1], code: 'symptomsNotKnown', text: 'CTCAE v5.0 grade 3 with physiologic consequences' },
      ],
    },
  },
];
