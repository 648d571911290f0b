/**
 * Mapping, pre-fill and traceability over real HTTP (issue 11 items 3-5): a data manager maps lab items by LOINC
 * with unit conversion, a site coordinator executes pre-fill for a visit, accepts two values and ignores a
 * conflicting one; the values carry entry mode 5 and their source in values, history, audit and the
 * traceability report; a monitor reads but cannot confirm; the other site sees nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { ExtractedPatient, ExtractedRecord } from '@esource/interop';
import { auditEvents, prefillSchedules, progressItems, sites, sourceConnections, subjects } from '../src/db/schema';
import { ingest, type StoreConnection } from '../src/modules/sources/source-store';
import { PrefillScheduler } from '../src/modules/prefill/prefill-schedule.job';
import { changesOf } from '../src/modules/audit/audit.service';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
const P = { proId: 1, proType: 'PRO', language: 'en_US' };
let dm: string;
let crc1: string;
let crc2: string;
let cra: string;
let ptsId: number;
let v3: number;
let lbForm: number;
let dmForm: number;
let conn: StoreConnection;
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

const patient: ExtractedPatient = { patientKey: 'pf-1', identifiers: [{ type: 'medicalRecordId', value: 'MRN-PREFILL-1' }] };
const lab = (id: string, code: string, display: string, value: number, unit: string, date = day(-1), hash = `${id}-${value}`): ExtractedRecord => ({
  patientKey: 'pf-1',
  externalId: `Observation/${id}`,
  docType: 3,
  resourceType: 'Observation',
  codeSystem: 'http://loinc.org',
  code,
  display,
  valueNum: value,
  unit,
  effectiveAt: `${date}T01:30:00Z`,
  effectiveDate: date,
  rawFormat: 'fhir',
  raw: JSON.stringify({ resourceType: 'Observation', id, status: 'final', code: { coding: [{ system: 'http://loinc.org', code, display }] }, valueQuantity: { value, unit, system: 'http://unitsofmeasure.org', code: unit } }),
  contentHash: hash,
});
const records = () => [
  lab('hgb-1', '718-7', 'Hemoglobin [Mass/volume] in Blood', 13.2, 'g/dL'),
  lab('hgb-old', '718-7', 'Hemoglobin [Mass/volume] in Blood', 9.9, 'g/dL', day(-40)),
  lab('na-1', '2951-2', 'Sodium [Moles/volume] in Serum or Plasma', 140, 'mmol/L'),
  lab('k-1', '2823-3', 'Potassium [Moles/volume] in Serum or Plasma', 4.5, 'mmol/L'),
  lab('glu-1', '2345-7', 'Glucose [Moles/volume] in Serum or Plasma', 5.4, 'mmol/L'),
];

type Candidate = { variable: string; state: string; problem: string | null; problemMessage: string | null; candidateValue: unknown; currentValue: unknown; source: { id: number; version: number; code: string } };
type Exec = { instance: { id: number; version: number } | null; candidates: Candidate[]; ignored: number; window: { planned: string } | null };
const execKey = () => ({ ptsId, visitId: v3, formId: lbForm });
const execute = (token: string) => s.api.post<Exec>('/crf/prefill/execute', { token, headers: P, form: execKey() });

beforeAll(async () => {
  s = await startTestServer();
  [dm, crc1, crc2, cra] = await Promise.all([s.api.login('dm'), s.api.login('crc1'), s.api.login('crc2'), s.api.login('cra')]);
  const db = s.database.db;
  const [siteA] = await db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  // week 4 (day 28, window −3/+7) is today
  const added = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: crc1, headers: P, form: { siteId: siteA!.id, firstVisitDate: day(-28) } });
  ptsId = added.body.data.ptsId;
  await db.update(subjects).set({ medicalRecordId: 'MRN-PREFILL-1' }).where(eq(subjects.id, ptsId));
  const sched = await s.api.get<{ visitId: number; code: string; forms: { formId: number; code: string }[] }[]>('/project/pts/visits', { token: crc1, headers: P, query: { ptsId } });
  const week4 = sched.body.data.find((v) => v.code === 'V3')!;
  v3 = week4.visitId;
  lbForm = week4.forms.find((f) => f.code === 'LB')!.formId;
  const screening = sched.body.data.find((v) => v.code === 'V1')!;
  dmForm = screening.forms.find((f) => f.code === 'DM')!.formId;
  const [c] = await db.insert(sourceConnections).values({ env: 'PRO', projectId: 1, siteId: siteA!.id, kind: 'fhir_file', name: 'prefill test' }).returning();
  conn = { id: c!.id, env: 'PRO', projectId: 1, siteId: siteA!.id };
  const stored = await db.transaction((tx) => ingest(tx, { connection: conn, patients: [patient], records: records() }));
  expect(stored.subjectIds).toEqual([ptsId]);
});
afterAll(async () => {
  await s?.stop();
});

const saveRule = (token: string, body: Record<string, unknown>, language = 'en_US') => s.api.post<{ id: number; version: number }>('/crf/config/mapping/save', { token, headers: { ...P, language }, json: body });

describe('mapping rules', () => {
  it('a data manager maps lab items by LOINC; the item unit (g/L) drives the conversion', async () => {
    for (const [variable, code] of [['HGB', '718-7'], ['NA', '2951-2'], ['K', '2823-3']] as const) {
      const r = await saveRule(dm, { formId: lbForm, variable, method: 'code', codes: [{ system: 'http://loinc.org', code }], useSynonyms: false, selection: 'nearest', windowOnly: true });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    const list = await s.api.post<{ items: { variable: string; rule: { codes: { code: string }[] } | null }[] }>('/crf/config/listField', { token: cra, headers: P, form: { formId: lbForm } });
    expect(list.status).toBe(200);
    expect(list.body.data.items.find((i) => i.variable === 'HGB')!.rule!.codes[0]!.code).toBe('718-7');
    expect(list.body.data.items.find((i) => i.variable === 'WBC')!.rule).toBeNull();
    // a save from a stale screen is refused, naming who changed the rule last
    const hgbRule = list.body.data.items.find((i) => i.variable === 'HGB')!.rule as unknown as { id: number; version: number };
    const base = { formId: lbForm, variable: 'HGB', method: 'code', codes: [{ system: 'http://loinc.org', code: '718-7' }], useSynonyms: false, selection: 'nearest', windowOnly: true };
    expect((await saveRule(dm, { ...base, id: hgbRule.id, version: hgbRule.version })).status).toBe(200);
    const stale = await saveRule(dm, { ...base, id: hgbRule.id, version: hgbRule.version });
    expect(stale.status).toBe(409);
    expect(stale.body.message).toContain('Dana Manager');
  });

  it('refuses a FHIRPath expression that does not compile, a duplicate option source and a non-UCUM unit, translated', async () => {
    const bad = await saveRule(dm, { formId: lbForm, variable: 'WBC', method: 'fhirpath', expression: 'Observation.value.(' });
    expect(bad.status).toBe(400);
    expect(bad.body.detail![0]!.field).toBe('expression');
    expect(bad.body.message).toContain('FHIRPath expression does not compile');
    const zh = await saveRule(dm, { formId: lbForm, variable: 'WBC', method: 'fhirpath', expression: 'Observation.nosuchfn()' }, 'zh_CN');
    expect(zh.body.message).toContain('FHIRPath 表达式无法编译');
    const dup = await saveRule(dm, {
      formId: dmForm,
      variable: 'SEX',
      method: 'code',
      codes: [{ code: '76689-9' }],
      optionMap: [
        { source: 'male', value: '1' },
        { source: ' MALE', value: '2' },
      ],
    });
    expect(dup.status).toBe(400);
    expect(dup.body.detail).toContainEqual({ field: 'optionMap', message: "the source value 'MALE' is mapped twice" });
    const unit = await saveRule(dm, { formId: lbForm, variable: 'WBC', method: 'code', codes: [{ code: '6690-2' }], unit: 'mmHg' });
    expect(unit.body.detail).toContainEqual({ field: 'unit', message: "'mmHg' is not a UCUM unit" });
    // the coordinator may not configure
    expect((await saveRule(crc1, { formId: lbForm, variable: 'WBC', method: 'code', codes: [{ code: '6690-2' }] })).status).toBe(403);
  });

  it('tests an unsaved rule against the subject: value, record, window and the records outside it', async () => {
    const r = await s.api.post<{ value: unknown; matched: number; inWindow: number; record: { code: string } | null; records: { inWindow: boolean }[]; conversion: unknown }>('/crf/config/mapping/test', {
      token: dm,
      headers: P,
      json: { ptsId, visitId: v3, rule: { formId: lbForm, variable: 'HGB', method: 'code', codes: [{ code: '718-7' }], useSynonyms: false } },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ value: 132, matched: 2, inWindow: 1, conversion: { fromValue: 13.2, fromUnit: 'g/dL', toUnit: 'g/L' } });
    expect(r.body.data.records.map((x) => x.inWindow)).toEqual([true, false]);
    // glucose in mmol/L into a mg/dL item needs a molar mass: refused, never guessed
    const g = await s.api.post<{ problem: string; problemMessage: string }>('/crf/config/mapping/test', {
      token: dm,
      headers: P,
      json: { ptsId, visitId: v3, rule: { formId: lbForm, variable: 'GLUC', method: 'code', codes: [{ code: '2345-7' }], useSynonyms: false } },
    });
    expect(g.body.data).toMatchObject({ problem: 'DATA_ABNORMAL', problemMessage: 'Data abnormal, cannot be filled' });
  });
});

describe('pre-fill', () => {
  let version = 0;
  it('shows new and conflicting candidates beside the current values', async () => {
    // K was entered by hand first (4.0)
    const manual = await s.api.post<{ instance: { version: number } }>('/crf/form/item/result/saveBatch', { token: crc1, headers: P, json: { ...execKey(), entryMode: 0, items: [{ variable: 'K', value: 4 }] } });
    expect(manual.status, JSON.stringify(manual.body)).toBe(200);
    const r = await execute(crc1);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const by = Object.fromEntries(r.body.data.candidates.map((c) => [c.variable, c]));
    expect(by.HGB).toMatchObject({ state: 'new', candidateValue: 132, currentValue: null });
    expect(by.NA).toMatchObject({ state: 'new', candidateValue: 140 });
    expect(by.K).toMatchObject({ state: 'conflict', candidateValue: 4.5, currentValue: 4 });
    version = r.body.data.instance!.version;
    const visits = await s.api.post<{ visitId: number; waiting: number; forms: { formId: number; waiting: number }[] }[]>('/crf/prefill/visit/list', { token: crc1, headers: P, form: { ptsId } });
    expect(visits.body.data.find((v) => v.visitId === v3)!.forms.find((f) => f.formId === lbForm)!.waiting).toBe(3);
    const forms = await s.api.post<{ formId: number; rules: number }[]>('/crf/prefill/instance/listSelectedCrfForm', { token: crc1, headers: P, form: { ptsId, visitId: v3 } });
    expect(forms.body.data).toEqual([expect.objectContaining({ formId: lbForm, rules: 3, waiting: 3 })]);
  });

  it('the other site sees none of it; the monitor reads but cannot confirm', async () => {
    expect((await execute(crc2)).status).toBe(404);
    expect((await s.api.post('/crf/prefill/visit/list', { token: crc2, headers: P, form: { ptsId } })).status).toBe(404);
    expect((await execute(cra)).status).toBe(200);
    const r = await s.api.post('/crf/prefill/visit/confirm', { token: cra, headers: P, json: { ...execKey(), version, decisions: [{ variable: 'NA', sourceRecordId: 1, sourceVersion: 1, decision: 'new' }] } });
    expect(r.status).toBe(403);
  });

  it('confirms two new values and ignores the conflict; a stale version and an unreasoned merge are refused', async () => {
    const ex = await execute(crc1);
    const c = Object.fromEntries(ex.body.data.candidates.map((x) => [x.variable, x]));
    const d = (v: string, decision: string, reason?: string) => ({ variable: v, sourceRecordId: c[v]!.source.id, sourceVersion: c[v]!.source.version, decision, ...(reason ? { reason } : {}) });
    const stale = await s.api.post('/crf/prefill/visit/confirm', { token: crc1, headers: P, json: { ...execKey(), version: version + 5, decisions: [d('HGB', 'new')] } });
    expect(stale.status).toBe(409);
    const overwrite = await s.api.post('/crf/prefill/visit/confirm', { token: crc1, headers: P, json: { ...execKey(), version, decisions: [d('K', 'new')] } });
    expect(overwrite.status).toBe(400);
    expect(overwrite.body.message).toContain("'K' already holds a different value");
    const noReason = await s.api.post('/crf/prefill/visit/confirm', { token: crc1, headers: { ...P, language: 'zh_CN' }, json: { ...execKey(), version, decisions: [d('K', 'merge')] } });
    expect(noReason.status).toBe(400);
    expect(noReason.body.message).toContain('合并需要填写原因');
    // the client's value is never read: a forged record version is refused
    const forged = await s.api.post('/crf/prefill/visit/confirm', { token: crc1, headers: P, json: { ...execKey(), version, decisions: [{ ...d('NA', 'new'), sourceVersion: 7 }] } });
    expect(forged.status).toBe(400);
    const ok = await s.api.post<{ instance: { id: number; version: number }; saved: number; ignored: number }>('/crf/prefill/visit/confirm', {
      token: crc1,
      headers: P,
      json: { ...execKey(), version, decisions: [d('HGB', 'new'), d('NA', 'new'), d('K', 'ignore')] },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data).toMatchObject({ saved: 2, ignored: 1 });
    expect(ok.body.data.instance.version).toBe(version + 1);
    version = ok.body.data.instance.version;

    const view = await s.api.get<{ values: Record<string, { value: unknown; entryMode: number; sourceRef: string | null }> }>('/crf/form/item/result/list', { token: crc1, headers: P, query: execKey() });
    expect(view.body.data.values.HGB).toMatchObject({ value: 132, entryMode: 5, sourceRef: `source:${c.HGB!.source.id}:v1` });
    expect(view.body.data.values.K).toMatchObject({ value: 4, entryMode: 0, sourceRef: null });
    const hist = await s.api.get<{ entryMode: number; sourceRef: string | null; newValue: unknown }[]>('/crf/form/item/result/history', { token: crc1, headers: P, query: { instanceId: ok.body.data.instance.id, variable: 'HGB' } });
    expect(hist.body.data).toEqual([expect.objectContaining({ newValue: 132, entryMode: 5, sourceRef: `source:${c.HGB!.source.id}:v1` })]);
    const audits = await s.database.db.select().from(auditEvents).where(and(eq(auditEvents.subjectId, ptsId), eq(auditEvents.action, 'prefill.decision')));
    // one event for the decisions and one for the values (issue 16 item 3), each listing its items
    expect(audits).toHaveLength(1);
    expect(changesOf(audits[0]!.changes)!.map((c) => c.field).sort()).toEqual(['HGB', 'K', 'NA']);
    const valueAudit = (await s.database.db.select().from(auditEvents).where(and(eq(auditEvents.subjectId, ptsId), eq(auditEvents.action, 'crf.value'))))
      .flatMap((a) => changesOf(a.changes) ?? [])
      .filter((c) => c.field === 'HGB');
    expect(valueAudit).toEqual([{ field: 'HGB', oldValue: null, newValue: '132', reason: null, entryMode: 5 }]);

    // ignored: not offered again; accepted: now 'same'
    const again = await execute(crc1);
    expect(again.body.data.ignored).toBe(1);
    expect(again.body.data.candidates.map((x) => [x.variable, x.state])).toEqual([
      ['HGB', 'same'],
      ['NA', 'same'],
    ]);
    const log = await s.api.post<{ totalCount: number; content: { decision: string; userName: string }[] }>('/audit/log/preFillCrfQuery', { token: cra, headers: P, form: { ptsId } });
    expect(log.body.data.totalCount).toBe(3);
    expect(log.body.data.content[0]!.userName).toBe('Amy Coordinator');
  });

  it('clean brings the ignored candidate back; a merge with a reason replaces the value', async () => {
    const cleaned = await s.api.post<{ removed: number }>('/crf/prefill/clean', { token: crc1, headers: P, form: { ptsId, visitId: v3 } });
    expect(cleaned.body.data.removed).toBe(1);
    const ex = await execute(crc1);
    const k = ex.body.data.candidates.find((x) => x.variable === 'K')!;
    expect(k.state).toBe('conflict');
    const merged = await s.api.post<{ saved: number }>('/crf/prefill/visit/confirm', {
      token: crc1,
      headers: P,
      json: { ...execKey(), version: ex.body.data.instance!.version, decisions: [{ variable: 'K', sourceRecordId: k.source.id, sourceVersion: k.source.version, decision: 'merge', reason: 'lab report is authoritative' }] },
    });
    expect(merged.status, JSON.stringify(merged.body)).toBe(200);
    const view = await s.api.get<{ values: Record<string, { value: unknown; entryMode: number }> }>('/crf/form/item/result/list', { token: crc1, headers: P, query: execKey() });
    expect(view.body.data.values.K).toMatchObject({ value: 4.5, entryMode: 5 });
  });

  it('opens the source record behind a value (raw payload), only in scope', async () => {
    const ex = await execute(crc1);
    const hgb = ex.body.data.candidates.find((x) => x.variable === 'HGB')!;
    const r = await s.api.get<{ raw: string; version: number; latestVersion: number; code: string }>('/crf/prefill/source/record', { token: crc1, headers: P, query: { id: hgb.source.id, version: 1 } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ version: 1, latestVersion: 1, code: '718-7' });
    expect(JSON.parse(r.body.data.raw)).toMatchObject({ resourceType: 'Observation', valueQuantity: { value: 13.2 } });
    expect((await s.api.get('/crf/prefill/source/record', { token: crc2, headers: P, query: { id: hgb.source.id } })).status).toBe(404);
  });

  it('the traceability report lists value → source and flags a record changed at the hospital since', async () => {
    type Page = { totalCount: number; content: { variable: string; value: unknown; entryMode: number; code: string; recordVersion: number; latestVersion: number; changedSinceFill: boolean }[] };
    const before = await s.api.post<Page>('/project/icrc-source', { token: cra, headers: P, form: { ptsId } });
    expect(before.status).toBe(200);
    expect(before.body.data.content.map((r) => [r.variable, r.value, r.entryMode, r.code, r.changedSinceFill])).toEqual([
      ['HGB', 132, 5, '718-7', false],
      ['K', 4.5, 5, '2823-3', false],
      ['NA', 140, 5, '2951-2', false],
    ]);
    // the hospital corrects the haemoglobin result
    const changed = records().map((r) => (r.externalId === 'Observation/hgb-1' ? { ...lab('hgb-1', '718-7', 'Hemoglobin [Mass/volume] in Blood', 12.8, 'g/dL') } : r));
    await s.database.db.transaction((tx) => ingest(tx, { connection: conn, patients: [patient], records: changed }));
    const after = await s.api.post<Page>('/project/icrc-source', { token: cra, headers: P, form: { ptsId } });
    expect(after.body.data.content.find((r) => r.variable === 'HGB')).toMatchObject({ recordVersion: 1, latestVersion: 2, changedSinceFill: true });
    // a coordinator reads the report for their own sites' subjects; the other site's coordinator finds none of it
    const own = await s.api.post<Page>('/project/icrc-source', { token: crc1, headers: P, form: { ptsId } });
    expect(own.body.data.content.map((r) => r.variable)).toEqual(['HGB', 'K', 'NA']);
    const other = await s.api.post<Page>('/project/icrc-source', { token: crc2, headers: P, form: { ptsId } });
    expect(other.status).toBe(200);
    expect(other.body.data).toMatchObject({ totalCount: 0, content: [] });
    const x = await fetch(`${s.url}/api/project/icrc-source/export?ptsId=${ptsId}`, { headers: { token: cra, proId: '1', proType: 'PRO' } });
    expect(x.status).toBe(200);
    expect(x.headers.get('content-type')).toContain('spreadsheetml');
    // the changed record is a new candidate (conflict with the filled value)
    const ex = await execute(crc1);
    expect(ex.body.data.candidates.find((c) => c.variable === 'HGB')).toMatchObject({ state: 'conflict', candidateValue: 128, currentValue: 132 });
  });
});

describe('synonyms and schedule', () => {
  it('project synonyms: add, list, a duplicate term refused, and they match display text', async () => {
    const add = await s.api.post<{ id: number }>('/project/textConfig/same/save', { token: dm, headers: P, form: { term: '血红蛋白', synonyms: 'Hb, HGB测定' } });
    expect(add.status, JSON.stringify(add.body)).toBe(200);
    const dup = await s.api.post('/project/textConfig/same/save', { token: dm, headers: P, form: { term: ' 血红蛋白 ' } });
    expect(dup.status).toBe(409);
    const list = await s.api.post<{ totalCount: number; content: { synonyms: string[] }[] }>('/project/textConfig/same/list', { token: cra, headers: P, form: { term: '血红', pageSize: 50 } });
    expect(list.body.data.content[0]!.synonyms).toEqual(['Hb', 'HGB测定']);
    expect((await s.api.post('/project/textConfig/same/save', { token: cra, headers: P, form: { term: 'x' } })).status).toBe(403);
    // a local lab record named by a synonym matches the item labelled 血红蛋白
    await s.database.db.transaction((tx) =>
      ingest(tx, { connection: conn, patients: [patient], records: [{ ...lab('hb-local', 'L-HB', 'HGB 测定', 131, 'g/L', day(0)), codeSystem: 'urn:his:lab' }] }),
    );
    const t = await s.api.post<{ record: { code: string } | null; value: unknown }>('/crf/config/mapping/test', {
      token: dm,
      headers: P,
      json: { ptsId, visitId: v3, rule: { formId: lbForm, variable: 'HGB', method: 'code', codes: [], useSynonyms: true, selection: 'last' } },
    });
    expect(t.body.data).toMatchObject({ record: { code: 'L-HB' }, value: 131 });
  });

  it('pre-fill schedule: validated choices, saved and read back', async () => {
    const bad = await s.api.post('/crf/prefill/schedule/config/savaOrUpdate', { token: dm, headers: P, form: { startDate: day(0), endDate: day(30), frequency: 'weekly', days: '' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('choose weekdays from 1 (Monday) to 7 (Sunday)');
    const reversed = await s.api.post('/crf/prefill/schedule/config/savaOrUpdate', { token: dm, headers: P, form: { startDate: day(30), endDate: day(0), frequency: 'daily' } });
    expect(reversed.status).toBe(400);
    const ok = await s.api.post<{ days: number[]; version: number }>('/crf/prefill/schedule/config/savaOrUpdate', { token: dm, headers: P, form: { startDate: day(0), endDate: day(30), frequency: 'monthly', days: '31,1' } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data.days).toEqual([1, 31]);
    const info = await s.api.post<{ frequency: string }>('/crf/prefill/schedule/config/info', { token: crc1, headers: P });
    expect(info.body.data.frequency).toBe('monthly');
    expect((await s.api.post('/crf/prefill/schedule/config/savaOrUpdate', { token: crc1, headers: P, form: { startDate: day(0), endDate: day(1), frequency: 'daily' } })).status).toBe(403);
  });
});


describe('automatic pre-fill (inject)', () => {
  it('a due schedule is claimed once a day; the run fills only empty items with entry mode 6 and never overwrites', async () => {
    const rule = await saveRule(dm, { formId: lbForm, variable: 'WBC', method: 'code', codes: [{ system: 'http://loinc.org', code: '6690-2' }], useSynonyms: false, unit: '10*9/L' });
    expect(rule.status, JSON.stringify(rule.body)).toBe(200);
    await s.database.db.transaction((tx) => ingest(tx, { connection: conn, patients: [patient], records: [lab('wbc-1', '6690-2', 'Leukocytes [#/volume] in Blood', 6.1, '10*3/uL')] }));
    const before = await execute(crc1);
    const hgbBefore = before.body.data.candidates.find((c) => c.variable === 'HGB')!;
    expect(hgbBefore.state).toBe('conflict');

    const daily = await s.api.post<{ id: number }>('/crf/prefill/schedule/config/savaOrUpdate', { token: dm, headers: P, form: { startDate: day(-1), endDate: day(30), frequency: 'daily' } });
    expect(daily.status).toBe(200);
    const scheduler = new PrefillScheduler(s.database, s.jobs);
    expect(await scheduler.tick()).toBe(1);
    expect(await scheduler.tick()).toBe(0); // claimed for today
    const [sched] = await s.database.db.select().from(prefillSchedules).where(eq(prefillSchedules.id, daily.body.data.id));
    expect(sched!.lastRunOn).not.toBeNull();

    // run the inject directly (the queued job does the same in the worker)
    const progress: [number, number][] = [];
    const r = await scheduler.run({ scheduleId: daily.body.data.id, day: day(0) }, async (d, t) => void progress.push([d, t]), 'test');
    expect(r.failures).toEqual([]);
    expect(r.filled).toBeGreaterThanOrEqual(1);
    expect(progress.at(-1)![0]).toBe(progress.at(-1)![1]);
    const view = await s.api.get<{ values: Record<string, { value: unknown; entryMode: number; sourceRef: string | null }> }>('/crf/form/item/result/list', { token: crc1, headers: P, query: execKey() });
    expect(view.body.data.values.WBC).toMatchObject({ value: 6.1, entryMode: 6 });
    expect(view.body.data.values.WBC!.sourceRef).toMatch(/^source:\d+:v1$/);
    // the conflicting haemoglobin was not overwritten
    expect(view.body.data.values.HGB).toMatchObject({ value: 132, entryMode: 5 });
    const log = await s.api.post<{ content: { variable: string }[] }>('/audit/log/preFillCrfQuery', { token: cra, headers: P, form: { ptsId, decision: 'inject' } });
    expect(log.body.data.content.map((x) => x.variable)).toContain('WBC');
    const items = await s.database.db.select().from(progressItems).where(eq(progressItems.type, 2));
    expect(items.some((i) => i.displayInformation.startsWith('自动预填'))).toBe(true);
  });
});
