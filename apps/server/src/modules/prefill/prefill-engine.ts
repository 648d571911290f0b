/**
 * The pre-fill engine: for one subject visit form, the candidates the mapping rules give from the subject's source
 * records (packages/interop mapping), beside the eCRF's current values, minus what a user ignored for the same record
 * version. Used by execute (what the screen shows), confirm (recomputed server-side: the client's values are never
 * trusted), the visit list counts, the inject runs and the mapping test.
 */
import { and, asc, eq, getTableColumns, gte, inArray, isNull, lte, or, sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import {
  formFields,
  latestClock,
  visitWindow,
  type FieldComponent,
  type FormDefinition,
  type PrefillProblem,
  type CandidateState,
} from '@esource/shared';
import { compileExpression, evaluateRule, RecordIndex, SynonymIndex, type MappingRecord, type MappingRule, type RuleEvaluation, type VisitWindowRange } from '@esource/interop';
import type { Db, Tx } from '../../db/client';
import { rowsOf } from '../../lib/sql';
import { crfInstances, crfValues, mappingRules, prefillDecisions, projects, sourceRecords, subjectUnscheduledVisits, synonyms, type subjects, type visits } from '../../db/schema';

export type SubjectRow = typeof subjects.$inferSelect;
export type VisitRow = typeof visits.$inferSelect;
export type RuleRow = typeof mappingRules.$inferSelect;

export interface EngineRecord extends MappingRecord {
  rawFormat: string;
}

export interface ItemCandidate {
  field: FieldComponent;
  rule: RuleRow;
  evaluation: RuleEvaluation<EngineRecord>;
  state: CandidateState;
  problem: PrefillProblem | null;
  currentValue: unknown;
  currentEntryMode: number | null;
  currentSourceRef: string | null;
}

export interface FormCandidates {
  window: VisitWindowRange | null;
  instance: typeof crfInstances.$inferSelect | null;
  /** items with a candidate (or a problem), in form order; ignored record versions left out */
  items: ItemCandidate[];
  ignored: number;
  rules: number;
}

const blank = (v: unknown) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);
export const sameValue = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

export function ruleOf(r: Pick<RuleRow, 'method' | 'docTypes' | 'codes' | 'useSynonyms' | 'expression' | 'unit' | 'selection' | 'worst' | 'windowOnly' | 'optionMap'>): MappingRule {
  return {
    method: r.method,
    docTypes: r.docTypes,
    codes: r.codes,
    useSynonyms: r.useSynonyms,
    expression: r.expression,
    unit: r.unit,
    selection: r.selection,
    worst: r.worst,
    windowOnly: r.windowOnly,
    optionMap: r.optionMap,
  };
}

/** The visit's window: scheduled from the first-visit date; unscheduled = its own date. */
export async function windowOf(db: Db | Tx, subject: SubjectRow, visit: VisitRow, unscheduledId: number): Promise<VisitWindowRange | null> {
  if (unscheduledId > 0) {
    const [u] = await db
      .select({ d: subjectUnscheduledVisits.visitDate })
      .from(subjectUnscheduledVisits)
      .where(and(eq(subjectUnscheduledVisits.id, unscheduledId), eq(subjectUnscheduledVisits.subjectId, subject.id)));
    return u ? { planned: u.d, start: u.d, end: u.d } : null;
  }
  return subject.firstVisitDate ? visitWindow(subject.firstVisitDate, visit) : null;
}

/** Global + project synonyms (text kind: source text; ocr kind: OCR'd labels — both name the same things). */
export async function synonymIndex(db: Db | Tx, projectId: number): Promise<SynonymIndex> {
  const rows = await db
    .select({ term: synonyms.term, synonyms: synonyms.synonyms })
    .from(synonyms)
    .where(or(isNull(synonyms.projectId), eq(synonyms.projectId, projectId)));
  return new SynonymIndex(rows);
}

/**
 * The subject's records a set of rules can read: only the rules' window (when every rule keeps to it), and only
 * records a rule can match — its codes, the display texts its terms and their synonyms name, or (FHIRPath without
 * codes) the expression's resource types — so one visit reads a few rows of a large history. The rule evaluation
 * checks every record again; this only narrows what is read.
 */
export async function loadRecords(
  db: Db | Tx,
  env: string,
  projectId: number,
  subjectId: number,
  rules: readonly (MappingRule & { label?: string; labelEn?: string | null })[],
  window: VisitWindowRange | null,
  syn?: SynonymIndex,
): Promise<EngineRecord[]> {
  if (rules.length === 0) return [];
  const conds: (SQL | undefined)[] = [eq(sourceRecords.subjectId, subjectId), eq(sourceRecords.env, env), eq(sourceRecords.projectId, projectId), isNull(sourceRecords.deletedAt)];
  const windowOnly = rules.every((r) => r.windowOnly);
  if (windowOnly) {
    if (!window) return [];
    conds.push(gte(sourceRecords.effectiveDate, window.start), lte(sourceRecords.effectiveDate, window.end));
  }
  const windowSql = (alias: string) =>
    windowOnly && window ? sql` and ${sql.raw(alias)}.effective_date >= ${window.start} and ${sql.raw(alias)}.effective_date <= ${window.end}` : sql``;
  const codes = new Set<string>();
  const texts = new Set<string>();
  const types = new Set<string>();
  let everything = false;
  for (const r of rules) {
    for (const c of r.codes) codes.add(c.code.trim().toLowerCase());
    if (r.useSynonyms) {
      const terms = [...r.codes.map((c) => c.code), ...(r.label ? [r.label] : []), ...(r.labelEn ? [r.labelEn] : [])];
      for (const t of syn ? syn.expand(terms) : terms.map((x) => x.normalize('NFKC').toLowerCase().replace(/\s+/g, ''))) texts.add(t);
    }
    if (r.method === 'fhirpath' && r.codes.length === 0) {
      const c = r.expression ? compileExpression(r.expression) : null;
      if (c?.ok && c.resourceTypes.length) for (const t of c.resourceTypes) types.add(t);
      else everything = true;
    }
  }
  if (!everything) {
    const any: SQL[] = [];
    const list = (xs: Set<string>) => sql.join([...xs].map((x) => sql`${x}`), sql`, `);
    if (codes.size) any.push(sql`lower(${sourceRecords.code}) in (${list(codes)})`);
    // the display-text test (NFKC, no white space, lower case) is costly per row: it runs on the subject's distinct
    // display texts (a few dozen) instead of on every record, behind an `offset 0` fence so the planner keeps it there
    if (texts.size)
      any.push(sql`${sourceRecords.display} in (
        select d.display from (
          select distinct s.display from ${sourceRecords} s
          where s.subject_id = ${subjectId} and s.env = ${env} and s.project_id = ${projectId} and s.deleted_at is null${windowSql('s')}
          offset 0) d
        where lower(regexp_replace(normalize(d.display, NFKC), '[[:space:]]+', '', 'g')) in (${list(texts)}))`);
    if (types.size) any.push(sql`${sourceRecords.resourceType} in (${list(types)})`);
    if (any.length === 0) return [];
    conds.push(or(...any));
  }
  const withRaw = rules.some((r) => r.method === 'fhirpath');
  // the rows come back as one JSON array of arrays: one field for the driver to decode instead of 14 per record (on
  // the embedded database decoding the wire format of 1,750 rows cost more than the query), then JSON.parse
  const res = await db.execute(sql`select coalesce(json_agg(json_build_array(
      ${sourceRecords.id}, ${sourceRecords.version}, ${sourceRecords.docType}, ${sourceRecords.resourceType}, ${sourceRecords.codeSystem},
      ${sourceRecords.code}, ${sourceRecords.display}, ${sourceRecords.valueNum}, ${sourceRecords.valueText}, ${sourceRecords.unit},
      ${sourceRecords.effectiveDate}, ${sourceRecords.effectiveAt}, ${sourceRecords.rawFormat}, ${withRaw ? sourceRecords.raw : sql`null::text`})), '[]'::json) as rows
    from ${sourceRecords} where ${and(...conds)}`);
  type Tuple = [number, number, number, string, string | null, string | null, string | null, number | string | null, string | null, string | null, string | null, string | null, string, string | null];
  const rows = rowsOf<{ rows: Tuple[] }>(res)[0]?.rows ?? [];
  return rows.map((r) => ({
    id: r[0],
    version: r[1],
    docType: r[2],
    resourceType: r[3],
    codeSystem: r[4],
    code: r[5],
    display: r[6],
    // float8 NaN / Infinity are JSON strings
    valueNum: typeof r[7] === 'string' ? Number(r[7]) : r[7],
    valueText: r[8],
    unit: r[9],
    effectiveDate: r[10],
    // as the driver gives it: a Date (millisecond precision) in ISO form
    effectiveAt: r[11] == null ? null : new Date(r[11]).toISOString(),
    rawFormat: r[12],
    raw: r[13],
  }));
}

export interface FormTarget {
  env: string;
  projectId: number;
  subject: SubjectRow;
  visit: VisitRow;
  unscheduledId: number;
  formId: number;
  def: FormDefinition;
  repeatNo: number;
}

/** The project's time zone (datetime items filled from an instant). */
export async function projectZone(db: Db | Tx, projectId: number): Promise<string> {
  const [p] = await db.select({ tz: projects.timezone }).from(projects).where(eq(projects.id, projectId));
  return p?.tz ?? 'UTC';
}

/** `json_build_object` of every column of a table, keyed by the Drizzle property names (camelCase). */
export function jsonOfColumns(table: PgTable): SQL {
  return sql`json_build_object(${sql.join(
    Object.entries(getTableColumns(table)).map(([key, col]) => sql`${sql.raw(`'${key}'`)}, ${col}`),
    sql`, `,
  )})`;
}

/** A row read back from jsonOfColumns: timestamps (ISO strings in JSON) become Dates as Drizzle's select gives them. */
export function rowFromJson<T extends PgTable>(table: T, row: Record<string, unknown>): T['$inferSelect'] {
  const out: Record<string, unknown> = { ...row };
  for (const [key, col] of Object.entries(getTableColumns(table))) {
    if (col.dataType === 'date' && typeof out[key] === 'string') out[key] = new Date(out[key]);
  }
  return out;
}

interface FormContext {
  rules: RuleRow[] | null;
  instance: typeof crfInstances.$inferSelect | null;
  values: { variable: string; value: { v: unknown } | null; entryMode: number; sourceRef: string | null }[];
  ignores: { variable: string; recordId: number; version: number }[];
  timeZone: string | null;
  synonyms: { term: string; synonyms: string[] }[] | null;
  unscheduledDate: string | null;
}

/**
 * Everything computeForm needs besides the records, in one statement: the form's rules (unless given), the instance,
 * its values, the ignore decisions, the project's time zone and synonyms (unless given), an unscheduled visit's date.
 */
async function loadFormContext(db: Db | Tx, t: FormTarget, want: { rules: boolean; synonyms: boolean; timeZone: boolean }): Promise<FormContext> {
  const inst = sql`${crfInstances.subjectId} = ${t.subject.id} and ${crfInstances.visitId} = ${t.visit.id} and ${crfInstances.unscheduledId} = ${t.unscheduledId}
    and ${crfInstances.formId} = ${t.formId} and ${crfInstances.repeatNo} = ${t.repeatNo} and ${crfInstances.deletedAt} is null`;
  const res = await db.execute(sql`select
    ${want.rules ? sql`(select coalesce(json_agg(${jsonOfColumns(mappingRules)} order by ${mappingRules.id}), '[]'::json) from ${mappingRules} where ${mappingRules.formId} = ${t.formId})` : sql`null::json`} as rules,
    (select ${jsonOfColumns(crfInstances)} from ${crfInstances} where ${inst} order by ${crfInstances.id} limit 1) as instance,
    (select coalesce(json_agg(json_build_object('variable', ${crfValues.variable}, 'value', ${crfValues.value}, 'entryMode', ${crfValues.entryMode}, 'sourceRef', ${crfValues.sourceRef})), '[]'::json)
       from ${crfValues} where ${crfValues.instanceId} = (select ${crfInstances.id} from ${crfInstances} where ${inst} order by ${crfInstances.id} limit 1)) as vals,
    (select coalesce(json_agg(json_build_object('variable', ${prefillDecisions.variable}, 'recordId', ${prefillDecisions.sourceRecordId}, 'version', ${prefillDecisions.sourceVersion})), '[]'::json)
       from ${prefillDecisions}
       where ${prefillDecisions.subjectId} = ${t.subject.id} and ${prefillDecisions.visitId} = ${t.visit.id} and ${prefillDecisions.unscheduledId} = ${t.unscheduledId}
         and ${prefillDecisions.formId} = ${t.formId} and ${prefillDecisions.repeatNo} = ${t.repeatNo} and ${prefillDecisions.decision} = 'ignore') as ignores,
    ${want.timeZone ? sql`(select ${projects.timezone} from ${projects} where ${projects.id} = ${t.projectId})` : sql`null::text`} as tz,
    ${want.synonyms ? sql`(select coalesce(json_agg(json_build_object('term', ${synonyms.term}, 'synonyms', ${synonyms.synonyms})), '[]'::json) from ${synonyms} where ${synonyms.projectId} is null or ${synonyms.projectId} = ${t.projectId})` : sql`null::json`} as syn,
    ${t.unscheduledId > 0 ? sql`(select ${subjectUnscheduledVisits.visitDate}::text from ${subjectUnscheduledVisits} where ${subjectUnscheduledVisits.id} = ${t.unscheduledId} and ${subjectUnscheduledVisits.subjectId} = ${t.subject.id})` : sql`null::text`} as udate`);
  const row = rowsOf<{
    rules: Record<string, unknown>[] | null;
    instance: Record<string, unknown> | null;
    vals: FormContext['values'];
    ignores: FormContext['ignores'];
    tz: string | null;
    syn: FormContext['synonyms'];
    udate: string | null;
  }>(res)[0]!;
  return {
    rules: row.rules ? row.rules.map((r) => rowFromJson(mappingRules, r)) : null,
    instance: row.instance ? rowFromJson(crfInstances, row.instance) : null,
    values: row.vals,
    ignores: row.ignores,
    timeZone: row.tz,
    synonyms: row.syn,
    unscheduledDate: row.udate,
  };
}

/**
 * Candidates of one form instance (see the file comment). `rulesOverride` replaces the saved rules (mapping test).
 * Two statements: the form's context (loadFormContext), then the records the rules can read (loadRecords).
 */
export async function computeForm(db: Db | Tx, t: FormTarget, shared?: { synonyms?: SynonymIndex; timeZone?: string; rules?: RuleRow[] }): Promise<FormCandidates> {
  const ctx = await loadFormContext(db, t, { rules: !shared?.rules, synonyms: !shared?.synonyms, timeZone: shared?.timeZone === undefined });
  const rules = shared?.rules ?? ctx.rules!;
  const fields = new Map(formFields(t.def.components).map((f) => [f.variable, f]));
  const usable = rules.filter((r) => fields.has(r.variable));
  const window: VisitWindowRange | null =
    t.unscheduledId > 0
      ? ctx.unscheduledDate
        ? { planned: ctx.unscheduledDate, start: ctx.unscheduledDate, end: ctx.unscheduledDate }
        : null
      : t.subject.firstVisitDate
        ? visitWindow(t.subject.firstVisitDate, t.visit)
        : null;
  const inst = ctx.instance;
  if (usable.length === 0) return { window, instance: inst, items: [], ignored: 0, rules: 0 };
  const syn = shared?.synonyms ?? new SynonymIndex(usable.some((r) => r.useSynonyms) ? (ctx.synonyms ?? []) : []);
  const zone = shared?.timeZone ?? ctx.timeZone ?? 'UTC';
  const records = await loadRecords(db, t.env, t.projectId, t.subject.id, usable.map((r) => ({ ...ruleOf(r), label: fields.get(r.variable)!.label, labelEn: fields.get(r.variable)!.labelEn ?? null })), window, syn);
  const current = ctx.values;
  const ignores = ctx.ignores;
  const ignored = new Set(ignores.map((i) => `${i.variable}|${i.recordId}|${i.version}`));
  const values = new Map(current.map((v) => [v.variable, v]));
  const index = new RecordIndex(records);
  const clock = latestClock();
  const items: ItemCandidate[] = [];
  let ignoredCount = 0;
  for (const rule of usable) {
    const field = fields.get(rule.variable)!;
    const evaluation = evaluateRule({ rule: ruleOf(rule), field, index, window, synonyms: syn, timeZone: zone, clock });
    const rec = evaluation.record;
    if (!rec) continue;
    if (ignored.has(`${rule.variable}|${rec.id}|${rec.version}`)) {
      ignoredCount++;
      continue;
    }
    const cur = values.get(rule.variable);
    const currentValue = cur?.value?.v ?? null;
    const state: CandidateState = evaluation.problem ? 'problem' : blank(currentValue) ? 'new' : sameValue(currentValue, evaluation.value) ? 'same' : 'conflict';
    items.push({
      field,
      rule,
      evaluation,
      state,
      problem: evaluation.problem,
      currentValue,
      currentEntryMode: cur?.entryMode ?? null,
      currentSourceRef: cur?.sourceRef ?? null,
    });
  }
  return { window, instance: inst ?? null, items, ignored: ignoredCount, rules: usable.length };
}

/** Mapping rules per form id (for the visit list's counts). */
export async function rulesByForm(db: Db | Tx, formIds: number[]): Promise<Map<number, RuleRow[]>> {
  const out = new Map<number, RuleRow[]>();
  if (formIds.length === 0) return out;
  for (const r of await db.select().from(mappingRules).where(inArray(mappingRules.formId, formIds)).orderBy(asc(mappingRules.id))) {
    out.set(r.formId, [...(out.get(r.formId) ?? []), r]);
  }
  return out;
}
