/**
 * Mapping rule evaluation (issue 11 item 3, DESIGN §6): from a subject's source records to the value one eCRF item
 * would be filled with, or the reason it cannot be (spec §8 messages). Pure: no database, no clock unless given.
 *
 * 1. match: by code (optionally within a code system), by display text equal to one of the rule's terms or their
 *    synonyms (case-, width- and space-insensitive), or by a FHIRPath expression on the raw FHIR resource;
 * 2. keep the records inside the visit window (windowOnly);
 * 3. select one: nearest to the planned date, first, last, or worst (highest/lowest value in the wanted unit);
 * 4. convert its unit with UCUM and coerce it to the item's type. Nothing is guessed: a text into a number item, a
 *    coded value without an option, a unit that does not convert or a value out of the item's bounds is a problem.
 *
 * Performance: build one RecordIndex per call (by code and by display text) and evaluate every rule of a form on
 * it; FHIRPath runs only for FHIRPath rules and only on records of the expression's resource type and doc types.
 */
import { valueProblem, type FieldComponent, type PrefillProblem, type SelectionRule, type ValueClock } from '@esource/shared';
import { compileExpression, expressionValue, type CompiledExpression, type ExpressionValue } from './fhirpath';
import { convertUnit, isUcumUnit } from './ucum';

export interface MappingRule {
  method: 'code' | 'fhirpath';
  /** 1..8; empty = any */
  docTypes: readonly number[];
  codes: readonly { system?: string | null; code: string }[];
  useSynonyms: boolean;
  expression?: string | null;
  /** UCUM unit the item wants; absent: the item's own unit when it is UCUM, else no conversion */
  unit?: string | null;
  selection: SelectionRule;
  worst?: 'high' | 'low' | null;
  windowOnly: boolean;
  optionMap: readonly { source: string; value: string }[];
}

/** A source record as the mapping reads it (source_records row at one version). */
export interface MappingRecord {
  id: number;
  version: number;
  docType: number;
  resourceType: string;
  codeSystem: string | null;
  code: string | null;
  display: string | null;
  valueNum: number | null;
  valueText: string | null;
  unit: string | null;
  /** YYYY-MM-DD */
  effectiveDate: string | null;
  /** ISO 8601 instant */
  effectiveAt: string | null;
  rawFormat?: string | null;
  /** the raw payload (FHIR JSON), read only by FHIRPath rules */
  raw?: string | null;
}

export interface VisitWindowRange {
  planned: string;
  start: string;
  end: string;
}

export interface RuleEvaluation<R extends MappingRecord = MappingRecord> {
  /** the coerced value; null when there is no candidate or a problem */
  value: unknown;
  problem: PrefillProblem | null;
  problemDetail: string | null;
  /** the selected record (also set with a problem: the record that could not be filled) */
  record: R | null;
  /** records matching the rule (before the window) */
  matched: number;
  inWindow: number;
  conversion: { fromValue: number; fromUnit: string; toUnit: string } | null;
  /** the matching records, in the order the selection rule ranks them (best first) */
  ranked: R[];
}

const norm = (s: string) => s.normalize('NFKC').toLowerCase().replace(/\s+/g, '');
const codeKey = (s: string) => s.trim().toLowerCase();

const SYSTEM_ALIASES: Record<string, string> = {
  loinc: 'http://loinc.org',
  'http://loinc.org': 'http://loinc.org',
  'urn:oid:2.16.840.1.113883.6.1': 'http://loinc.org',
  snomed: 'http://snomed.info/sct',
  'snomed ct': 'http://snomed.info/sct',
  sct: 'http://snomed.info/sct',
  'http://snomed.info/sct': 'http://snomed.info/sct',
  ucum: 'http://unitsofmeasure.org',
  rxnorm: 'http://www.nlm.nih.gov/research/umls/rxnorm',
};
const systemKey = (s: string) => {
  const k = s.trim().toLowerCase();
  return SYSTEM_ALIASES[k] ?? k;
};

/** Synonym groups (term → synonyms): a term or any of its synonyms stands for the whole group. */
export class SynonymIndex {
  private readonly groups = new Map<string, Set<string>>();
  constructor(groups: readonly { term: string; synonyms: readonly string[] }[] = []) {
    for (const g of groups) {
      const all = [g.term, ...g.synonyms].map(norm).filter((s) => s !== '');
      for (const w of all) {
        const set = this.groups.get(w) ?? new Set<string>();
        for (const x of all) set.add(x);
        this.groups.set(w, set);
      }
    }
  }
  /** the normalised terms plus every synonym of each */
  expand(terms: readonly string[]): Set<string> {
    const out = new Set<string>();
    for (const t of terms) {
      const n = norm(t);
      if (n === '') continue;
      out.add(n);
      for (const x of this.groups.get(n) ?? []) out.add(x);
    }
    return out;
  }
}

/** A subject's records indexed once per call: by code and by normalised display text. */
export class RecordIndex<R extends MappingRecord = MappingRecord> {
  readonly byCode = new Map<string, R[]>();
  readonly byDisplay = new Map<string, R[]>();
  private parsed = new Map<number, unknown>();
  constructor(readonly records: readonly R[]) {
    for (const r of records) {
      if (r.code) push(this.byCode, codeKey(r.code), r);
      if (r.display) push(this.byDisplay, norm(r.display), r);
    }
  }
  /** the raw FHIR resource, parsed once per call; null when the record is not FHIR JSON */
  resource(r: R): unknown {
    if (this.parsed.has(r.id)) return this.parsed.get(r.id);
    let v: unknown = null;
    if ((r.rawFormat === undefined || r.rawFormat === null || r.rawFormat === 'fhir') && r.raw) {
      try {
        v = JSON.parse(r.raw);
      } catch {
        v = null;
      }
    }
    this.parsed.set(r.id, v);
    return v;
  }
}
function push<K, V>(m: Map<K, V[]>, k: K, v: V) {
  const a = m.get(k);
  if (a) a.push(v);
  else m.set(k, [v]);
}

export function recordDate(r: Pick<MappingRecord, 'effectiveDate' | 'effectiveAt'>): string | null {
  return r.effectiveDate ?? (r.effectiveAt ? r.effectiveAt.slice(0, 10) : null);
}
const dayNo = (d: string) => Date.parse(`${d}T00:00:00Z`) / 86_400_000;

/** The UCUM unit a number item is filled in: the rule's, else the item's own when it is UCUM. */
export function targetUnit(rule: Pick<MappingRule, 'unit'>, field: Pick<FieldComponent, 'unit'>): string | null {
  if (rule.unit && rule.unit.trim() !== '') return rule.unit.trim();
  if (field.unit && isUcumUnit(field.unit)) return field.unit.trim();
  return null;
}

export interface EvaluateInput<R extends MappingRecord> {
  rule: MappingRule;
  field: FieldComponent;
  index: RecordIndex<R>;
  window: VisitWindowRange | null;
  synonyms?: SynonymIndex;
  /** a compiled expression to reuse across calls (compileExpression(rule.expression)) */
  compiled?: CompiledExpression;
  /** IANA zone for datetime items filled from an instant (default UTC) */
  timeZone?: string;
  /** for date checks (no future dates unless the item allows them) */
  clock?: ValueClock;
}

/** Records a rule matches, with the values a FHIRPath expression gave (by record id). */
export function matchRecords<R extends MappingRecord>(
  rule: MappingRule,
  field: Pick<FieldComponent, 'label' | 'labelEn'>,
  index: RecordIndex<R>,
  synonyms?: SynonymIndex,
  compiled?: CompiledExpression,
): { records: R[]; values: Map<number, ExpressionValue> } {
  const values = new Map<number, ExpressionValue>();
  const docOk = rule.docTypes.length === 0 ? () => true : (r: R) => rule.docTypes.includes(r.docType);
  const seen = new Set<number>();
  const out: R[] = [];
  const add = (r: R) => {
    if (!seen.has(r.id) && docOk(r)) {
      seen.add(r.id);
      out.push(r);
    }
  };
  // by code (within its system when the rule names one)
  const byCode = (): void => {
    for (const c of rule.codes) {
      const sys = c.system ? systemKey(c.system) : null;
      for (const r of index.byCode.get(codeKey(c.code)) ?? []) if (!sys || (r.codeSystem !== null && systemKey(r.codeSystem) === sys)) add(r);
    }
  };
  // by display text: the codes themselves (local codes are often names), the item's labels, and their synonyms
  const byText = (): void => {
    const terms = [...rule.codes.map((c) => c.code), field.label, ...(field.labelEn ? [field.labelEn] : [])];
    for (const t of synonyms ? synonyms.expand(terms) : new Set(terms.map(norm))) for (const r of index.byDisplay.get(t) ?? []) add(r);
  };
  if (rule.method === 'code') {
    byCode();
    if (rule.useSynonyms) byText();
    return { records: out, values };
  }
  // FHIRPath: on the expression's resource types (and the rule's codes when it has any) only
  let fn = compiled;
  let types: string[] = [];
  const c = rule.expression ? compileExpression(rule.expression) : null;
  if (c?.ok) {
    fn ??= c.fn;
    types = c.resourceTypes;
  }
  if (!fn) return { records: [], values };
  let pool: readonly R[];
  if (rule.codes.length > 0) {
    byCode();
    if (rule.useSynonyms) byText();
    pool = out.splice(0);
    seen.clear();
  } else pool = index.records;
  for (const r of pool) {
    if (types.length > 0 && !types.includes(r.resourceType)) continue;
    if (!docOk(r)) continue;
    const res = index.resource(r);
    if (!res) continue;
    let v: ExpressionValue | null;
    try {
      v = expressionValue(fn(res));
    } catch {
      v = null;
    }
    if (v) {
      values.set(r.id, v);
      add(r);
    }
  }
  return { records: out, values };
}

/** The record's value as the rule reads it (a FHIRPath result overrides the stored columns). */
function readValue(r: MappingRecord, v: ExpressionValue | undefined): { num: number | null; text: string | null; unit: string | null; code: string | null } {
  if (v && !v.useRecord) return { num: v.valueNum ?? null, text: v.valueText ?? null, unit: v.unit ?? null, code: v.code ?? null };
  return { num: r.valueNum, text: r.valueText, unit: r.unit, code: r.code };
}

/** A converted number as the item keeps it: rounded to the item's precision, else to 12 significant digits (UCUM float noise). */
export function formatNumberForField(n: number, precision: number | undefined): number {
  const x = precision !== undefined ? Number(n.toFixed(precision)) : Number(n.toPrecision(12));
  return Object.is(x, -0) ? 0 : x;
}

const NUMBER_TEXT = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)\s*$/;

/** Orders matching records by the selection rule, best first (stable: ties by later time, then higher id). */
export function rankRecords<R extends MappingRecord>(
  records: readonly R[],
  rule: Pick<MappingRule, 'selection' | 'worst'>,
  planned: string | null,
  numeric?: (r: R) => number | null,
): R[] {
  const at = (r: R) => r.effectiveAt ?? (recordDate(r) ? `${recordDate(r)}T00:00:00Z` : '');
  const tie = (a: R, b: R) => (at(a) < at(b) ? 1 : at(a) > at(b) ? -1 : b.id - a.id);
  const keyed = records.map((r) => ({ r, d: recordDate(r) }));
  const noDateLast = (a: { d: string | null }, b: { d: string | null }) => (a.d === null ? 1 : 0) - (b.d === null ? 1 : 0);
  switch (rule.selection) {
    case 'first':
      keyed.sort((a, b) => noDateLast(a, b) || (at(a.r) < at(b.r) ? -1 : at(a.r) > at(b.r) ? 1 : a.r.id - b.r.id));
      break;
    case 'last':
      keyed.sort((a, b) => noDateLast(a, b) || tie(a.r, b.r));
      break;
    case 'worst': {
      const sign = rule.worst === 'low' ? 1 : -1;
      const n = new Map(records.map((r) => [r.id, numeric ? numeric(r) : r.valueNum]));
      keyed.sort((a, b) => {
        const x = n.get(a.r.id) ?? null;
        const y = n.get(b.r.id) ?? null;
        if (x === null || y === null) return (x === null ? 1 : 0) - (y === null ? 1 : 0) || tie(a.r, b.r);
        return sign * (x - y) || tie(a.r, b.r);
      });
      break;
    }
    case 'nearest': {
      const p = planned ? dayNo(planned) : null;
      const dist = new Map(keyed.map((k) => [k.r.id, p === null || k.d === null ? Infinity : Math.abs(dayNo(k.d) - p)]));
      keyed.sort((a, b) => noDateLast(a, b) || dist.get(a.r.id)! - dist.get(b.r.id)! || tie(a.r, b.r));
    }
  }
  return keyed.map((k) => k.r);
}

/** `detail` is data only (the source value, the units): it reaches users as is, so it carries no English prose or library text. */
type Coerced = { value: unknown; conversion: RuleEvaluation['conversion'] } | { problem: PrefillProblem; detail: string | null };

const dtFormatters = new Map<string, Intl.DateTimeFormat>();
function localDateTime(instant: string, timeZone: string): string | null {
  const t = Date.parse(instant);
  if (!Number.isFinite(t)) return null;
  let f = dtFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('sv-SE', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    dtFormatters.set(timeZone, f);
  }
  return f.format(new Date(t)).replace('T', ' ');
}

/** Converts and coerces one record's value to the item's type. */
export function coerce(
  rule: MappingRule,
  field: FieldComponent,
  r: MappingRecord,
  ev: ExpressionValue | undefined,
  opts: { timeZone?: string; clock?: ValueClock } = {},
): Coerced {
  const v = readValue(r, ev);
  const check = (value: unknown, conversion: RuleEvaluation['conversion'] = null): Coerced => {
    const p = valueProblem(field, value, opts.clock);
    return p ? { problem: 'DATA_ABNORMAL', detail: Array.isArray(value) ? value.join(', ') : String(value) } : { value, conversion };
  };
  switch (field.type) {
    case 'number': {
      let n = v.num;
      if (n === null && v.text !== null) {
        if (!NUMBER_TEXT.test(v.text)) return { problem: 'TEXT_NOT_ALLOWED', detail: v.text.slice(0, 100) };
        n = Number(v.text);
      }
      if (n === null) return { problem: 'DATA_ABNORMAL', detail: null };
      if (!Number.isFinite(n)) return { problem: 'DATA_ABNORMAL', detail: String(n) };
      const to = targetUnit(rule, field);
      let conversion: RuleEvaluation['conversion'] = null;
      if (to) {
        if (!v.unit) return { problem: 'DATA_ABNORMAL', detail: `${n} ? → ${to}` };
        if (v.unit.trim() !== to) {
          const c = convertUnit(n, v.unit, to);
          if (!c.ok) return { problem: 'DATA_ABNORMAL', detail: `${n} ${v.unit} → ${to}` };
          conversion = { fromValue: n, fromUnit: v.unit, toUnit: to };
          n = c.value;
        }
      }
      return check(formatNumberForField(n, field.precision), conversion);
    }
    case 'text':
    case 'textarea': {
      const t = v.text ?? (v.num !== null ? `${v.num}${v.unit ? ` ${v.unit}` : ''}` : (r.display ?? null));
      if (t === null || t.trim() === '') return { problem: 'DATA_ABNORMAL', detail: null };
      return check(t.trim());
    }
    case 'date': {
      if (v.text !== null && /^\d{4}-\d{2}-\d{2}/.test(v.text)) return check(v.text.slice(0, 10));
      if (v.text !== null || v.num !== null) return { problem: 'DATA_ABNORMAL', detail: String(v.text ?? v.num) };
      const d = recordDate(r);
      return d ? check(d) : { problem: 'DATA_ABNORMAL', detail: null };
    }
    case 'datetime': {
      const src = v.text !== null && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(v.text) ? v.text : v.text === null && v.num === null ? r.effectiveAt : null;
      const dt = src ? localDateTime(src, opts.timeZone ?? 'UTC') : null;
      return dt ? check(dt) : { problem: 'DATA_ABNORMAL', detail: v.text ?? (v.num !== null ? String(v.num) : null) };
    }
    case 'radio':
    case 'select':
    case 'checkbox': {
      const keys = [v.code, v.text, r.display, v.num !== null ? String(v.num) : null].filter((k): k is string => k !== null && k.trim() !== '').map(norm);
      const options = field.options ?? [];
      let value: string | undefined;
      for (const k of keys) {
        value = rule.optionMap.find((m) => norm(m.source) === k)?.value;
        if (value !== undefined) break;
      }
      if (value === undefined)
        for (const k of keys) {
          value = options.find((o) => norm(o.value) === k || norm(o.label) === k || (o.labelEn !== undefined && norm(o.labelEn) === k))?.value;
          if (value !== undefined) break;
        }
      if (value === undefined || !options.some((o) => o.value === value)) return { problem: 'NO_OPTION_MAPPING', detail: (v.code ?? v.text ?? r.display ?? '').slice(0, 100) };
      return check(field.type === 'checkbox' ? [value] : value);
    }
    case 'file':
      return { problem: 'DATA_ABNORMAL', detail: null };
  }
}

/** Evaluates one rule for one item: match → window → select → convert → coerce. */
export function evaluateRule<R extends MappingRecord>(input: EvaluateInput<R>): RuleEvaluation<R> {
  const { rule, field, index, window } = input;
  const { records, values } = matchRecords(rule, field, index, input.synonyms, input.compiled);
  const inWin = window ? records.filter((r) => {
    const d = recordDate(r);
    return d !== null && d >= window.start && d <= window.end;
  }) : [];
  const pool = rule.windowOnly ? inWin : records;
  const to = field.type === 'number' ? targetUnit(rule, field) : null;
  const numeric = (r: R): number | null => {
    const v = readValue(r, values.get(r.id));
    const n = v.num ?? (v.text !== null && NUMBER_TEXT.test(v.text) ? Number(v.text) : null);
    if (n === null || !Number.isFinite(n)) return null;
    if (!to || !v.unit || v.unit.trim() === to) return to && !v.unit ? null : n;
    const c = convertUnit(n, v.unit, to);
    return c.ok ? c.value : null;
  };
  const ranked = rankRecords(pool, rule, window?.planned ?? null, numeric);
  const base = { matched: records.length, inWindow: inWin.length, ranked };
  const best = ranked[0];
  if (!best) return { ...base, value: null, problem: null, problemDetail: null, record: null, conversion: null };
  const c = coerce(rule, field, best, values.get(best.id), { timeZone: input.timeZone, clock: input.clock });
  if ('problem' in c) return { ...base, value: null, problem: c.problem, problemDetail: c.detail, record: best, conversion: null };
  return { ...base, value: c.value, problem: null, problemDetail: null, record: best, conversion: c.conversion };
}
