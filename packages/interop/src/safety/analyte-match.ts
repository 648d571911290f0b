/**
 * Which table analyte (ctcae-analytes.ts) a source record measures: by LOINC code, else by name (the record's display,
 * then its local code) in English or Chinese.
 *
 * What must always hold: a near miss is not a match. Names are compared whole, after normalisation — never as
 * substrings — so '直接胆红素' is not '胆红素', '糖化血红蛋白' is not '血红蛋白', 'CK-MB' is not 'CK', 'Hemoglobin
 * A1c/Hemoglobin.total' is not 'Hemoglobin'. A record coded in LOINC with a code the table does not list is not
 * matched by name (LOINC tells urine creatinine from serum creatinine, the name may not). A name part that changes
 * the analyte or the specimen ('Bilirubin, Direct', '肌酐(尿)', '中性粒细胞(%)') stops the match.
 */
import { CODE_SYSTEMS } from '../fhir/clinical-codes';
import { CTCAE_ANALYTES, type LabAnalyte } from './ctcae-analytes';

/** Comparable name: NFKC, lower case, without spaces and punctuation that hospitals vary ('γ-GT', 'T-BIL', 'K+' stays). */
export function nameKey(name: string): string {
  return name.normalize('NFKC').toLowerCase().replace(NAME_NOISE, '');
}
// '#' goes too: 'NEUT#' (absolute count) is 'neut', while 'NEUT%' stays 'neut%' and matches nothing
const NAME_NOISE = /[\s\-_.,:;·'’"*★☆△▲▼●■□◆#?？!！]/g;
const LEADING_MARKS = /^[\s*★☆△▲▼●■□◆#]+/;

/** LOINC long-name qualifiers: '[Mass/volume]', ' in Serum or Plasma', ' by Automated count' */
const LOINC_BRACKETS = /\[[^\]]*\]/g;
const LOINC_SYSTEM =
  /\s+(?:in|of)\s+(?:serum(?:\s+or\s+plasma)?|plasma|blood|venous\s+blood|arterial\s+blood|capillary\s+blood|whole\s+blood|ser\/plas|bld)\b.*$/i;
const LOINC_METHOD = /\s+by\s+.*$/i;
/** Chinese suffixes that name the test, not the analyte */
const TEST_SUFFIX = /(?:测定|检测|检查|定量|测量|含量|浓度测定)$/;
/** split into parts at brackets and list separators; '/' only between names ('ALT/GPT', not 'Neutrophils/100 leukocytes') */
const PARTS = /[()[\]（）【】、;；,，|]|\/(?!\s*\d)/;

/** Name parts that change what is measured: another fraction, a percentage, a non-blood specimen. */
const MODIFIERS: ReadonlySet<string> = new Set(
  [
    'direct',
    'indirect',
    'conjugated',
    'unconjugated',
    'neonatal',
    '直接',
    '间接',
    '结合',
    '非结合',
    'urine',
    'urinary',
    'ur',
    '尿',
    '尿液',
    '随机尿',
    '24h尿',
    '24小时尿',
    'csf',
    '脑脊液',
    '胸水',
    '腹水',
    '积液',
    '胸腹水',
    'fluid',
    'body fluid',
    'pleural fluid',
    'ascites',
    'peritoneal fluid',
    '%',
    'percent',
    'pct',
    '百分比',
    '百分率',
    '百分数',
    'ratio',
    '比值',
    '比率',
    'a1c',
    'hba1c',
    '糖化',
    'hdl',
    'ldl',
    'mb',
    'ckmb',
    'isoenzyme',
    'isoenzymes',
    '同工酶',
    'cord blood',
    '脐血',
  ].map(nameKey),
);

const BY_LOINC = new Map<string, LabAnalyte>();
const BY_NAME = new Map<string, LabAnalyte>();
for (const a of CTCAE_ANALYTES) {
  for (const c of a.loinc) BY_LOINC.set(c, a);
  for (const n of a.names) BY_NAME.set(nameKey(n), a);
}

/** The table analyte by LOINC code, or undefined. */
export function analyteByLoinc(code: string): LabAnalyte | undefined {
  return BY_LOINC.get(code.trim());
}

/** The table analyte by id ('alt', 'hemoglobin' …). */
export function analyteById(id: string): LabAnalyte | undefined {
  return CTCAE_ANALYTES.find((a) => a.id === id);
}

function isLoinc(system: string | null | undefined): boolean {
  if (!system) return false;
  if (system === CODE_SYSTEMS.loinc) return true;
  const s = system.trim().toLowerCase();
  return s === CODE_SYSTEMS.loinc || s === 'ln' || s === 'loinc' || s.includes('loinc.org');
}
const LOINC_CODE = /^\d{1,7}-\d$/;

const nameCache = new Map<string, LabAnalyte | null>();

/**
 * The table analyte a name denotes, or undefined: the whole name, then (if no part changes the analyte) each part,
 * after dropping LOINC qualifiers and Chinese test suffixes. Cached per name.
 */
export function analyteByName(name: string): LabAnalyte | undefined {
  let hit = nameCache.get(name);
  if (hit === undefined) {
    hit = matchName(name) ?? null;
    if (nameCache.size >= 10_000) nameCache.clear();
    nameCache.set(name, hit);
  }
  return hit ?? undefined;
}

function matchName(name: string): LabAnalyte | undefined {
  let n = name.normalize('NFKC').replace(LEADING_MARKS, '').trim();
  if (!n) return undefined;
  n = n.replace(LOINC_BRACKETS, ' ').replace(LOINC_SYSTEM, '').replace(LOINC_METHOD, '').trim();
  const whole = lookup(n);
  if (whole) return whole;
  const parts = n
    .split(PARTS)
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length < 2) return undefined;
  if (parts.some((p) => MODIFIERS.has(nameKey(p)))) return undefined;
  for (const p of parts) {
    const a = lookup(p);
    if (a) return a;
  }
  return undefined;
}

function lookup(text: string): LabAnalyte | undefined {
  const k = nameKey(text);
  return k ? (BY_NAME.get(k) ?? BY_NAME.get(k.replace(TEST_SUFFIX, ''))) : undefined;
}

/** The fields of a record that identify what it measures. */
export interface AnalyteIdentity {
  code?: string | null;
  codeSystem?: string | null;
  display?: string | null;
}

/**
 * The table analyte a record measures, or undefined: its LOINC code when it is coded in LOINC (a LOINC code the table
 * does not list is an analyte the table does not grade); else its display, else its local code read as a name
 * ('K', 'ALT').
 */
export function matchAnalyte(r: AnalyteIdentity): LabAnalyte | undefined {
  const code = r.code?.trim();
  if (code) {
    const loincSystem = isLoinc(r.codeSystem);
    if (loincSystem || (!r.codeSystem && LOINC_CODE.test(code))) {
      const a = BY_LOINC.get(code);
      if (a || loincSystem) return a;
    }
  }
  if (r.display) {
    const a = analyteByName(r.display);
    if (a) return a;
  }
  return code ? analyteByName(code) : undefined;
}
