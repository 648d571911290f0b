/**
 * Candidate generation (issue 13 item 3), pure: a subject's source records (and flagged eCRF values) in, the
 * candidates for judgement out.
 *
 * - AE from lab results outside their reference range on or after consent, as episodes: consecutive out-of-range
 *   results of one analyte in one direction form one candidate (onset = the first, end = the first normal result
 *   after it, grade = the worst CTCAE v5.0 grade; packages/interop safety/gradeLab). A result before consent is
 *   baseline, not an event.
 * - AE from a diagnosis first recorded on or after consent; MH from one recorded before (a condition already present
 *   before consent is not a new event, whenever it is recorded again).
 * - CM from medication records taken at or after consent or within CM_LOOKBACK_DAYS before it, one per drug.
 * - PR from procedures on or after consent, HISS from those before, one per procedure and day.
 * - AE from an eCRF number item saved with a soft-range warning (quality 'range').
 *
 * Each candidate has a stable key (its first record, its code …) so that generating again updates it instead of
 * adding another, and a content hash that tells a changed source after a judgement.
 */
import { createHash } from 'node:crypto';
import { DOC_TYPE, gradeLab, type LabAssessment } from '@esource/interop';
import { CM_LOOKBACK_DAYS, type CandidateDetail, type CandidateOrigin, type SafetyCategory } from '@esource/shared';

export interface GenRecord {
  id: number;
  version: number;
  docType: number;
  resourceType: string;
  code: string | null;
  codeSystem: string | null;
  display: string | null;
  valueNum: number | null;
  valueText: string | null;
  unit: string | null;
  effectiveDate: string | null;
  status: string | null;
  rawFormat: 'fhir' | 'hl7v2' | 'sql' | 'ocr';
  raw: string;
  /** a lab result's assessment as stored with the record (source_records.lab); absent: graded here */
  lab?: LabAssessment | null;
}

/** an eCRF number item saved outside its soft range */
export interface GenFlaggedValue {
  instanceId: number;
  variable: string;
  label: string;
  formName: string;
  value: number;
  unit: string | null;
  date: string | null;
}

export interface GeneratedCandidate {
  category: SafetyCategory;
  origin: CandidateOrigin;
  key: string;
  term: string;
  code: string | null;
  codeSystem: string | null;
  startDate: string | null;
  endDate: string | null;
  grade: number | null;
  detail: CandidateDetail;
  recordIds: number[];
  contentHash: string;
}

const MEDICATION_TYPES = new Set(['MedicationRequest', 'MedicationStatement', 'MedicationAdministration', 'MedicationDispense']);
/** SNOMED CT semantic tags that name a context, not a condition ("Medication review due (situation)") */
const NOT_A_CONDITION = /\((situation|person|social concept|occupation|environment|event|regime\/therapy)\)\s*$/i;

function hash(v: unknown): string {
  return createHash('sha256').update(JSON.stringify(v)).digest('hex');
}

export function addDays(day: string, n: number): string {
  const d = new Date(`${day}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

const norm = (s: string | null | undefined) => (s ?? '').trim().toLowerCase();
/** one drug / condition / procedure across records: its code when it has one, else its name */
const identity = (r: GenRecord) => (r.code ? `${r.codeSystem ?? ''}|${r.code}` : `~${norm(r.display)}`).slice(0, 150);
const termOf = (r: GenRecord) => (r.display?.trim() || r.code || r.resourceType).slice(0, 300);

function parseJson(raw: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(raw);
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined);
const first = (v: unknown): Json | undefined => (Array.isArray(v) ? obj(v[0]) : undefined);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
const conceptText = (v: unknown): string | undefined => {
  const c = obj(v);
  return c ? (str(c.text) ?? str(first(c.coding)?.display) ?? str(first(c.coding)?.code)) : undefined;
};

/** FHIR timing → a CDISC frequency code (QD, BID …), from timing.code or repeat.frequency per period */
function frequencyOf(timing: Json | undefined): string | null {
  if (!timing) return null;
  const code = str(first(obj(timing.code)?.coding)?.code)?.toUpperCase();
  if (code && ['QD', 'BID', 'TID', 'QID', 'Q4H', 'Q6H', 'Q8H', 'Q12H', 'QOD', 'QW', 'PRN'].includes(code)) return code;
  const rep = obj(timing.repeat);
  const f = typeof rep?.frequency === 'number' ? rep.frequency : null;
  const p = typeof rep?.period === 'number' ? rep.period : null;
  const unit = str(rep?.periodUnit);
  if (f === null || p === null || !unit) return null;
  if (unit === 'd' && p === 1) return ({ 1: 'QD', 2: 'BID', 3: 'TID', 4: 'QID' } as Record<number, string>)[f] ?? null;
  if (unit === 'd' && p === 2 && f === 1) return 'QOD';
  if (unit === 'h' && f === 1) return ({ 4: 'Q4H', 6: 'Q6H', 8: 'Q8H', 12: 'Q12H', 24: 'QD' } as Record<number, string>)[p] ?? null;
  if (unit === 'wk' && p === 1 && f === 1) return 'QW';
  return null;
}

/** dose, unit, route, frequency and indication of a medication record (FHIR dosage; HL7/SQL: what the record says) */
export function medicationDetail(r: GenRecord): Pick<CandidateDetail, 'dose' | 'doseUnit' | 'route' | 'frequency' | 'indication'> {
  const out = { dose: null as number | null, doseUnit: null as string | null, route: null as string | null, frequency: null as string | null, indication: null as string | null };
  if (r.rawFormat !== 'fhir') {
    if (r.valueNum !== null) out.dose = r.valueNum;
    if (r.unit) out.doseUnit = r.unit;
    return out;
  }
  const res = parseJson(r.raw);
  if (!res) return out;
  const dosage = first(res.dosageInstruction) ?? first(res.dosage) ?? obj(res.dosage);
  const dq = obj(first(dosage?.doseAndRate)?.doseQuantity) ?? obj(dosage?.dose);
  if (typeof dq?.value === 'number') out.dose = dq.value;
  out.doseUnit = str(dq?.unit) ?? str(dq?.code) ?? null;
  out.route = conceptText(dosage?.route) ?? null;
  out.frequency = frequencyOf(obj(dosage?.timing)) ?? (dosage?.asNeededBoolean === true ? 'PRN' : null);
  out.indication = conceptText(first(res.reasonCode)) ?? str(obj(first(res.reasonReference))?.display) ?? null;
  return out;
}

/** a FHIR Condition's end (abatement) and whether it is still active */
function conditionEnd(r: GenRecord): { end: string | null; ongoing: boolean | null } {
  if (r.rawFormat !== 'fhir') return { end: null, ongoing: null };
  const res = parseJson(r.raw);
  const end = str(res?.abatementDateTime)?.slice(0, 10) ?? str(obj(res?.abatementPeriod)?.start)?.slice(0, 10) ?? null;
  const status = str(first(obj(res?.clinicalStatus)?.coding)?.code);
  return { end, ongoing: end ? false : status ? ['active', 'recurrence', 'relapse'].includes(status) : null };
}

function byDate(a: GenRecord, b: GenRecord): number {
  const x = a.effectiveDate ?? '';
  const y = b.effectiveDate ?? '';
  return x < y ? -1 : x > y ? 1 : a.id - b.id;
}

interface Episode {
  direction: 'high' | 'low';
  records: GenRecord[];
  worst: LabAssessment;
  worstRecord: GenRecord;
  end: string | null;
}

function labCandidates(records: GenRecord[], consent: string, out: GeneratedCandidate[]) {
  // every result of an analyte in date order: out-of-range runs become episodes, a normal result ends one
  const series = new Map<string, { rec: GenRecord; a: LabAssessment }[]>();
  for (const r of records) {
    if (r.docType !== DOC_TYPE.test || !r.effectiveDate) continue;
    const a = r.lab !== undefined ? r.lab : gradeLab(r);
    if (!a) continue;
    const k = a.analyteId ?? identity(r);
    let list = series.get(k);
    if (!list) series.set(k, (list = []));
    list.push({ rec: r, a });
  }
  for (const [analyte, list] of series) {
    list.sort((x, y) => byDate(x.rec, y.rec));
    let open: Episode | null = null;
    const episodes: Episode[] = [];
    for (const { rec, a } of list) {
      const after = (rec.effectiveDate ?? '') >= consent;
      if (!a.outOfRange) {
        if (open) open.end = rec.effectiveDate;
        open = null;
        continue;
      }
      if (!after) continue;
      if (open && open.direction !== a.direction) open = null;
      if (!open) {
        open = { direction: a.direction, records: [], worst: a, worstRecord: rec, end: null };
        episodes.push(open);
      }
      open.records.push(rec);
      if ((a.grade ?? 0) > (open.worst.grade ?? 0)) {
        open.worst = a;
        open.worstRecord = rec;
      }
    }
    for (const e of episodes) {
      const head = e.records[0]!;
      const w = e.worst;
      const term = w.known ? w.ctcaeTerm.en : `${termOf(e.worstRecord)} ${e.direction === 'high' ? '↑' : '↓'}`;
      const detail: CandidateDetail = {
        value: w.value,
        unit: w.unit ?? null,
        low: w.low ?? null,
        high: w.high ?? null,
        rangeSource: w.rangeSource,
        direction: e.direction,
        grade: w.grade ?? null,
        ctcaeTerm: w.known ? w.ctcaeTerm : null,
        results: e.records.length,
      };
      const c = {
        category: 'ae' as const,
        origin: 'lab' as const,
        key: `lab:${analyte}:${e.direction}:${head.id}`.slice(0, 200),
        term: term.slice(0, 300),
        code: e.worstRecord.code,
        codeSystem: e.worstRecord.codeSystem,
        startDate: head.effectiveDate,
        endDate: e.end,
        grade: w.grade ?? null,
        detail,
        recordIds: e.records.map((r) => r.id),
      };
      out.push({ ...c, contentHash: hash([c, e.records.map((r) => r.version)]) });
    }
  }
}

function diagnosisCandidates(records: GenRecord[], consent: string, out: GeneratedCandidate[]) {
  const groups = new Map<string, GenRecord[]>();
  for (const r of records) {
    if (r.docType !== DOC_TYPE.diagnosis || NOT_A_CONDITION.test(r.display ?? '')) continue;
    const k = identity(r);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(r);
  }
  for (const [k, g] of groups) {
    g.sort(byDate);
    const head = g[0]!;
    // undated: recorded at some point; only a dated diagnosis after consent is a new event
    const before = !head.effectiveDate || head.effectiveDate < consent;
    const end = conditionEnd(g[g.length - 1]!);
    const c = {
      category: (before ? 'mh' : 'ae') as SafetyCategory,
      origin: 'diagnosis' as const,
      key: `dx:${k}`.slice(0, 200),
      term: termOf(head),
      code: head.code,
      codeSystem: head.codeSystem,
      startDate: head.effectiveDate,
      endDate: end.end,
      grade: null,
      detail: { results: g.length } satisfies CandidateDetail,
      recordIds: g.map((r) => r.id),
    };
    out.push({ ...c, contentHash: hash([c, g.map((r) => r.version), end.ongoing]) });
  }
}

function medicationCandidates(records: GenRecord[], consent: string, out: GeneratedCandidate[]) {
  const from = addDays(consent, -CM_LOOKBACK_DAYS);
  const groups = new Map<string, GenRecord[]>();
  for (const r of records) {
    if (r.docType !== DOC_TYPE.doctorAdvice) continue;
    if (r.rawFormat === 'fhir' && !MEDICATION_TYPES.has(r.resourceType)) continue;
    if (!r.effectiveDate || r.effectiveDate < from) continue;
    const k = identity(r);
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(r);
  }
  for (const [k, g] of groups) {
    g.sort(byDate);
    const head = g[0]!;
    const last = g[g.length - 1]!;
    const c = {
      category: 'cm' as const,
      origin: 'medication' as const,
      key: `cm:${k}`.slice(0, 200),
      term: termOf(head),
      code: head.code,
      codeSystem: head.codeSystem,
      startDate: head.effectiveDate,
      endDate: g.length > 1 ? last.effectiveDate : null,
      grade: null,
      detail: { results: g.length, ...medicationDetail(last) } satisfies CandidateDetail,
      recordIds: g.map((r) => r.id),
    };
    out.push({ ...c, contentHash: hash([c, g.map((r) => r.version)]) });
  }
}

function procedureCandidates(records: GenRecord[], consent: string, out: GeneratedCandidate[]) {
  const groups = new Map<string, GenRecord[]>();
  for (const r of records) {
    if (r.docType !== DOC_TYPE.surgery) continue;
    const k = `${identity(r)}@${r.effectiveDate ?? ''}`;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(r);
  }
  for (const [k, g] of groups) {
    const head = g[0]!;
    const before = !head.effectiveDate || head.effectiveDate < consent;
    const c = {
      category: (before ? 'hiss' : 'pr') as SafetyCategory,
      origin: 'procedure' as const,
      key: `pr:${k}`.slice(0, 200),
      term: termOf(head),
      code: head.code,
      codeSystem: head.codeSystem,
      startDate: head.effectiveDate,
      endDate: null,
      grade: null,
      detail: { results: g.length } satisfies CandidateDetail,
      recordIds: g.map((r) => r.id),
    };
    out.push({ ...c, contentHash: hash([c, g.map((r) => r.version)]) });
  }
}

function ecrfCandidates(values: GenFlaggedValue[], out: GeneratedCandidate[]) {
  for (const v of values) {
    const a = gradeLab({ code: v.variable, codeSystem: null, display: v.label, valueNum: v.value, valueText: null, unit: v.unit, rawFormat: 'sql', raw: '{}' });
    const direction = a?.direction ?? null;
    const c = {
      category: 'ae' as const,
      origin: 'ecrf' as const,
      key: `crf:${v.instanceId}:${v.variable}`,
      term: (a?.known ? a.ctcaeTerm.en : `${v.label}${direction ? (direction === 'high' ? ' ↑' : ' ↓') : ''}`).slice(0, 300),
      code: null,
      codeSystem: null,
      startDate: v.date,
      endDate: null,
      grade: a?.grade ?? null,
      detail: {
        value: v.value,
        unit: v.unit,
        low: a?.low ?? null,
        high: a?.high ?? null,
        rangeSource: a?.rangeSource ?? null,
        direction,
        grade: a?.grade ?? null,
        ctcaeTerm: a?.known ? a.ctcaeTerm : null,
        formName: v.formName,
        itemLabel: v.label,
      } satisfies CandidateDetail,
      recordIds: [],
    };
    out.push({ ...c, contentHash: hash(c) });
  }
}

/** Every candidate of one subject: consent is the day of informed consent (YYYY-MM-DD). */
export function generateCandidates(records: GenRecord[], consent: string, flagged: GenFlaggedValue[] = []): GeneratedCandidate[] {
  const out: GeneratedCandidate[] = [];
  labCandidates(records, consent, out);
  diagnosisCandidates(records, consent, out);
  medicationCandidates(records, consent, out);
  procedureCandidates(records, consent, out);
  ecrfCandidates(flagged, out);
  return out;
}
