/**
 * Safety review over the real API (issue 13 items 3, 4): candidates generated from a subject's hospital records
 * (lab episodes graded with CTCAE v5.0, diagnoses and procedures split at consent, medications with their dosage),
 * idempotent regeneration, judgement yes / no with the category's fields written into the study's log forms through
 * the eCRF's save path (entry mode gather, source linked), stale and changed judgements, validation, site scope,
 * permissions, the adverse-event product's cut-down permissions, a changed source after a judgement, the export.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { LAB_GRADER_VERSION, type ExtractedPatient, type ExtractedRecord } from '@esource/interop';
import type { CandidatePage, CandidateSource, CandidateView, GenerateResult } from '@esource/shared';
import { crfInstances, crfValues, sites, sourceConnections, sourceRecords, subjects } from '../src/db/schema';
import { rowsOf } from '../src/lib/sql';
import { generateCandidates, type GeneratedCandidate, type GenRecord } from '../src/modules/safety/generate';
import { GEN_RECORD_SELECT, generationRecords, SafetyService } from '../src/modules/safety/safety.service';
import { ingest, type StoreConnection } from '../src/modules/sources/source-store';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};
let ptsId = 0;
let ptsB = 0;
let conn: StoreConnection;
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
const FIRST = day(-28);

const patient: ExtractedPatient = { patientKey: 'sf-1', identifiers: [{ type: 'medicalRecordId', value: 'MRN-SAFETY-1' }] };
const rec = (r: Omit<ExtractedRecord, 'patientKey' | 'contentHash' | 'rawFormat' | 'raw'> & { raw: Record<string, unknown> }, hash?: string): ExtractedRecord => ({
  ...r,
  patientKey: 'sf-1',
  rawFormat: 'fhir',
  raw: JSON.stringify(r.raw),
  contentHash: hash ?? `${r.externalId}-${r.valueNum ?? ''}`,
});
const alt = (id: string, value: number, date: string, hash?: string) =>
  rec(
    {
      externalId: `Observation/${id}`,
      docType: 3,
      resourceType: 'Observation',
      codeSystem: 'http://loinc.org',
      code: '1742-6',
      display: 'Alanine aminotransferase [Enzymatic activity/volume] in Serum or Plasma',
      valueNum: value,
      unit: 'U/L',
      effectiveDate: date,
      raw: { resourceType: 'Observation', id, status: 'final', valueQuantity: { value, unit: 'U/L' }, referenceRange: [{ low: { value: 0, unit: 'U/L' }, high: { value: 40, unit: 'U/L' } }] },
    },
    hash,
  );
const hgb = (id: string, value: number, date: string) =>
  rec({ externalId: `Observation/${id}`, docType: 3, resourceType: 'Observation', codeSystem: 'http://loinc.org', code: '718-7', display: 'Hemoglobin [Mass/volume] in Blood', valueNum: value, unit: 'g/dL', effectiveDate: date, raw: { resourceType: 'Observation', id, status: 'final', valueQuantity: { value, unit: 'g/dL' } } });
const condition = (id: string, code: string, display: string, date: string) =>
  rec({ externalId: `Condition/${id}`, docType: 8, resourceType: 'Condition', codeSystem: 'http://snomed.info/sct', code, display, effectiveDate: date, raw: { resourceType: 'Condition', id, clinicalStatus: { coding: [{ code: 'active' }] } } });
const procedure = (id: string, code: string, display: string, date: string) =>
  rec({ externalId: `Procedure/${id}`, docType: 6, resourceType: 'Procedure', codeSystem: 'http://snomed.info/sct', code, display, effectiveDate: date, raw: { resourceType: 'Procedure', id } });
const medication = (id: string, date: string) =>
  rec({
    externalId: `MedicationRequest/${id}`,
    docType: 4,
    resourceType: 'MedicationRequest',
    codeSystem: 'http://www.nlm.nih.gov/research/umls/rxnorm',
    code: '308182',
    display: 'Amoxicillin 250 MG Oral Capsule',
    effectiveDate: date,
    raw: {
      resourceType: 'MedicationRequest',
      id,
      dosageInstruction: [{ timing: { repeat: { frequency: 3, period: 1, periodUnit: 'd' } }, route: { text: 'Oral' }, doseAndRate: [{ doseQuantity: { value: 500, unit: 'mg' } }] }],
      reasonCode: [{ text: 'Acute bronchitis' }],
    },
  });
const records = () => [
  alt('alt-base', 22, day(-35)),
  alt('alt-1', 150, day(-10)),
  alt('alt-2', 260, day(-5)),
  alt('alt-3', 30, day(-2)),
  hgb('hgb-old', 9.9, day(-40)),
  hgb('hgb-1', 7.5, day(-7)),
  condition('htn', '38341003', 'Hypertension', day(-400)),
  condition('bronch', '10509002', 'Acute bronchitis (disorder)', day(-3)),
  condition('review', '314529007', 'Medication review due (situation)', day(-3)),
  medication('amox', day(-3)),
  medication('amox-old', day(-200)),
  procedure('appy', '80146002', 'Appendectomy', day(-1000)),
  procedure('bmb', '396487001', 'Bone marrow biopsy', day(-4)),
];

const list = (who: string, body: Record<string, unknown> = {}) => s.api.post<CandidatePage>('/selection/list', { token: tok[who], headers: H, json: { pageSize: 100, ...body } });
const judge = (who: string, body: Record<string, unknown>, lang = 'en_US') => s.api.post<CandidateView>('/selection/judge', { token: tok[who], headers: { ...H, language: lang }, json: body });
const generate = (who: string, ptsIdArg?: number) => s.api.post<GenerateResult>('/selection/generate', { token: tok[who], headers: H, json: ptsIdArg ? { ptsId: ptsIdArg } : {} });
const find = async (pred: (c: CandidateView) => boolean, state = 'all') => (await list('dm', { state, ptsId })).body.data.content.find(pred);
const values = async (instanceId: number) => {
  const rows = await s.database.db.select().from(crfValues).where(eq(crfValues.instanceId, instanceId));
  return Object.fromEntries(rows.map((r) => [r.variable, { v: r.value?.v, mode: r.entryMode, ref: r.sourceRef }]));
};
const aeFields = { term: 'ALT increased', onset: day(-10), end: day(-2), grade: 3, serious: false, relatedness: 'POSSIBLY RELATED', action: 'DOSE REDUCED', outcome: 'RECOVERED/RESOLVED' };

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['dm', 'crc1', 'cra', 'pi', 'ae']) tok[a] = await s.api.login(a);
  const db = s.database.db;
  const [siteA] = await db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  const [siteB] = await db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '02')));
  const added = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: tok.crc1, headers: H, form: { siteId: siteA!.id, firstVisitDate: FIRST } });
  ptsId = added.body.data.ptsId;
  await db.update(subjects).set({ medicalRecordId: 'MRN-SAFETY-1' }).where(eq(subjects.id, ptsId));
  const addedB = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: tok.dm, headers: H, form: { siteId: siteB!.id, firstVisitDate: FIRST } });
  ptsB = addedB.body.data.ptsId;
  const [c] = await db.insert(sourceConnections).values({ env: 'PRO', projectId: 1, siteId: siteA!.id, kind: 'fhir_file', name: 'safety test' }).returning();
  conn = { id: c!.id, env: 'PRO', projectId: 1, siteId: siteA!.id };
  const stored = await db.transaction((tx) => ingest(tx, { connection: conn, patients: [patient], records: records() }));
  expect(stored.subjectIds).toEqual([ptsId]);
});
afterAll(async () => {
  await s?.stop();
});

describe('candidate generation', () => {
  it('finds lab episodes, diagnoses, medications and procedures, split at consent', async () => {
    const r = await generate('dm', ptsId);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.subjects).toBe(1);
    const all = (await list('dm', { state: 'toJudge', ptsId })).body.data.content;
    const by = (cat: string) => all.filter((c) => c.category === cat).map((c) => c.term).sort();
    // ALT: one episode (150 then 260, ended by 30), graded 3 on the worst (6.5 × ULN); the baseline before consent is not an event
    const altEp = all.find((c) => c.origin === 'lab' && c.code === '1742-6')!;
    expect(altEp).toMatchObject({ category: 'ae', startDate: day(-10), endDate: day(-2) });
    expect(altEp.detail).toMatchObject({ grade: 3, value: 260, high: 40, direction: 'high', results: 2, rangeSource: 'record' });
    expect(altEp.detail.ctcaeTerm?.en).toMatch(/alanine aminotransferase increased/i);
    // haemoglobin 7.5 g/dL after consent: anaemia grade 3 on the fallback range; 9.9 before consent is baseline
    const anaemia = all.filter((c) => c.origin === 'lab' && c.code === '718-7');
    expect(anaemia).toHaveLength(1);
    expect(anaemia[0]!.detail.grade).toBe(3);
    expect(anaemia[0]!.detail.rangeSource).toBe('fallback');
    expect(by('ae').filter((t) => t.includes('bronchitis'))).toEqual(['Acute bronchitis (disorder)']);
    expect(by('mh')).toEqual(['Hypertension']);
    expect(by('cm')).toEqual(['Amoxicillin 250 MG Oral Capsule']);
    expect(by('pr')).toEqual(['Bone marrow biopsy']);
    expect(by('hiss')).toEqual(['Appendectomy']);
    // a SNOMED "situation" is not a condition
    expect(all.some((c) => c.term.includes('Medication review'))).toBe(false);
    const cm = all.find((c) => c.category === 'cm')!;
    expect(cm.detail).toMatchObject({ dose: 500, doseUnit: 'mg', route: 'Oral', frequency: 'TID', indication: 'Acute bronchitis', results: 1 });
    const src = await s.api.post<CandidateSource[]>('/selection/source/list', { token: tok.dm, headers: H, json: { id: altEp.id } });
    expect(src.body.data.map((x) => [x.valueNum, x.grade, x.outOfRange])).toEqual([
      [150, 2, true],
      [260, 3, true],
    ]);
  });

  it('generating again changes nothing', async () => {
    const again = await generate('dm', ptsId);
    expect(again.body.data).toMatchObject({ created: 0, updated: 0, removed: 0, sourceChanged: 0 });
    const counts = await s.api.post<{ toJudge: Record<string, number>; judged: number }>('/selection/count', { token: tok.dm, headers: H });
    expect(counts.body.data.toJudge).toMatchObject({ ae: 3, cm: 1, pr: 1, mh: 1, hiss: 1 });
  });

  it('is refused without the permission, and scoped to the caller\'s sites', async () => {
    expect((await list('crc1')).status).toBe(403);
    expect((await list('cra')).status).toBe(403);
    expect((await generate('cra', ptsId)).status).toBe(403);
    // the investigator of site A sees site A's candidates; the subject of site B is not theirs
    expect((await list('pi', { state: 'all', ptsId })).body.data.totalCount).toBeGreaterThan(0);
    expect((await generate('pi', ptsB)).status).toBe(404);
    const one = (await list('dm', { state: 'all', ptsId })).body.data.content[0]!;
    expect((await s.api.get('/selection/detail', { token: tok.dm, headers: H, query: { id: 999_999 } })).status).toBe(404);
    expect(one.siteName).toBeTruthy();
  });
});

describe('judgement', () => {
  it('a "yes" AE is written into the AE log form through the eCRF save (entry mode gather, source linked)', async () => {
    const c = (await find((x) => x.origin === 'lab' && x.code === '1742-6'))!;
    const r = await judge('ae', { id: c.id, version: c.version, decision: 'yes', fields: { ...aeFields, coded: { code: 'R74.01', term: 'Elevation of levels of liver transaminase levels' } } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ status: 2, judgedBy: 'Eve Safety' });
    expect(r.body.data.written).toMatchObject({ formName: 'Adverse events' });
    const v = await values(r.body.data.written!.instanceId);
    expect(v.AETERM).toMatchObject({ v: 'ALT increased', mode: 5 });
    expect(v.AETERM!.ref).toMatch(/^source:\d+:v1$/);
    expect(v.AEDECOD!.v).toBe('Elevation of levels of liver transaminase levels');
    expect(v.AETOXGR!.v).toBe('3');
    expect(v.AESEV!.v).toBe('3');
    expect(v.AESER!.v).toBe('N');
    expect(v.AEREL!.v).toBe('3');
    expect(v.AEACN!.v).toBe('2');
    expect(v.AEOUT!.v).toBe('1');
    expect(v.AESTDTC!.v).toBe(day(-10));
  });

  it('refuses a stale judgement naming who judged, and a change without a reason', async () => {
    const c = (await find((x) => x.origin === 'lab' && x.code === '1742-6'))!;
    const stale = await judge('dm', { id: c.id, version: c.version - 1, decision: 'no' });
    expect(stale.status).toBe(409);
    expect(stale.body.errorCode).toBe('JUDGE_STALE');
    expect(stale.body.message).toContain('Eve Safety');
    const noReason = await judge('dm', { id: c.id, version: c.version, decision: 'yes', fields: { ...aeFields, grade: 2 } });
    expect(noReason.body.errorCode).toBe('JUDGE_REASON_REQUIRED');
    const zh = await judge('dm', { id: c.id, version: c.version, decision: 'yes', fields: aeFields }, 'zh_CN');
    expect(zh.body.message).toContain('原因');
  });

  it('a changed judgement rewrites the same record (with the reason in its history); "no" removes it', async () => {
    let c = (await find((x) => x.origin === 'lab' && x.code === '1742-6'))!;
    const instanceId = c.written!.instanceId;
    const r = await judge('dm', { id: c.id, version: c.version, decision: 'yes', fields: { ...aeFields, grade: 2 }, reason: 'Re-graded on the worst confirmed value' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.written!.instanceId).toBe(instanceId);
    expect((await values(instanceId)).AETOXGR!.v).toBe('2');
    c = r.body.data;
    const no = await judge('dm', { id: c.id, version: c.version, decision: 'no', reason: 'Lab error confirmed by the site' });
    expect(no.status, JSON.stringify(no.body)).toBe(200);
    expect(no.body.data).toMatchObject({ status: 3, written: null });
    const [inst] = await s.database.db.select().from(crfInstances).where(eq(crfInstances.id, instanceId));
    expect(inst!.deletedAt).not.toBeNull();
    const hist = await s.api.get<{ decision: string; reason: string | null }[]>('/selection/history', { token: tok.dm, headers: H, query: { id: c.id } });
    expect(hist.body.data.map((h) => h.decision)).toEqual(['no', 'yes', 'yes']);
  });

  it('validates the fields, naming them', async () => {
    const c = (await find((x) => x.term.startsWith('Acute bronchitis')))!;
    const missing = await judge('ae', { id: c.id, version: c.version, decision: 'yes', fields: { term: 'Bronchitis' } });
    expect(missing.status).toBe(400);
    expect(missing.body.detail?.map((d) => d.field)).toEqual(expect.arrayContaining(['onset', 'grade']));
    const noCriteria = await judge('ae', { id: c.id, version: c.version, decision: 'yes', fields: { ...aeFields, term: 'Bronchitis', onset: day(-3), end: undefined, serious: true } });
    expect(noCriteria.body.detail?.[0]?.field).toBe('criteria');
    const endBefore = await judge('ae', { id: c.id, version: c.version, decision: 'yes', fields: { ...aeFields, term: 'Bronchitis', onset: day(-3), end: day(-9) } });
    expect(endBefore.body.detail?.[0]?.field).toBe('end');
    const badDate = await judge('ae', { id: c.id, version: c.version, decision: 'yes', fields: { ...aeFields, onset: '2026-13-01' } });
    expect(badDate.status).toBe(400);
    // nothing was written by the refused attempts
    expect((await find((x) => x.id === c.id))!.status).toBe(1);
    const serious = await judge('ae', { id: c.id, version: c.version, decision: 'yes', fields: { ...aeFields, term: 'Bronchitis', onset: day(-3), end: undefined, ongoing: true, serious: true, criteria: ['AESHOSP'] } });
    expect(serious.status, JSON.stringify(serious.body)).toBe(200);
    const v = await values(serious.body.data.written!.instanceId);
    expect(v.AESER!.v).toBe('Y');
    expect(v.AEONGO!.v).toBe('Y');
  });

  it('CM and MH go into their own log forms with dosage and ongoing', async () => {
    const cm = (await find((x) => x.category === 'cm'))!;
    const r = await judge('ae', { id: cm.id, version: cm.version, decision: 'yes', fields: { term: 'Amoxicillin', dose: 500, unit: 'mg', route: 'ORAL', frequency: 'TID', indication: 'Acute bronchitis', start: day(-3), ongoing: true } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.written!.formName).toBe('Concomitant medications');
    const v = await values(r.body.data.written!.instanceId);
    expect([v.CMTRT!.v, v.CMDOSE!.v, v.CMROUTE!.v, v.CMDOSFRQ!.v, v.CMONGO!.v]).toEqual(['Amoxicillin', 500, '1', 'TID', 'Y']);
    const mh = (await find((x) => x.category === 'mh'))!;
    const m = await judge('ae', { id: mh.id, version: mh.version, decision: 'yes', fields: { term: 'Hypertension', onset: day(-400).slice(0, 7), ongoing: true } });
    expect(m.status, JSON.stringify(m.body)).toBe(200);
    expect(m.body.data.written).toMatchObject({ formName: 'Medical history', visitName: 'Week 2' });
    expect((await values(m.body.data.written!.instanceId)).MHSTDTC!.v).toBe(day(-400).slice(0, 7));
  });
});

describe('the medication overview', () => {
  it('lists each subject with its medications and judged AEs, filtered by drug', async () => {
    type Row = { ptsId: number; yes: number; toJudge: number; events: number; drugs: string[]; lastStart: string | null };
    const r = await s.api.post<{ totalCount: number; content: Row[] }>('/selection/medication/subjects', { token: tok.dm, headers: H, json: { pageSize: 50 } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const mine = r.body.data.content.find((x) => x.ptsId === ptsId)!;
    expect(mine).toMatchObject({ yes: 1, toJudge: 0, drugs: ['Amoxicillin'], lastStart: day(-3) });
    expect(mine.events).toBeGreaterThanOrEqual(1);
    const none = await s.api.post<{ totalCount: number }>('/selection/medication/subjects', { token: tok.dm, headers: H, json: { pageSize: 50, keyword: 'metformin' } });
    expect(none.body.data.totalCount).toBe(0);
    const bad = await s.api.post('/selection/medication/subjects', { token: tok.dm, headers: H, json: { pageSize: 7 } });
    expect(bad.status).toBe(400);
  });
});

describe('a source that changes after the judgement', () => {
  it('marks the judged candidate instead of changing it', async () => {
    const bronch = (await find((x) => x.term.startsWith('Acute bronchitis')))!;
    expect(bronch.status).toBe(2);
    // the hospital corrects the bronchitis record's date
    const corrected = condition('bronch', '10509002', 'Acute bronchitis (disorder)', day(-4));
    await s.database.db.transaction((tx) => ingest(tx, { connection: conn, patients: [patient], records: [{ ...corrected, contentHash: 'bronch-v2' }] }));
    const r = await generate('dm', ptsId);
    expect(r.body.data.sourceChanged).toBeGreaterThanOrEqual(1);
    const after = (await find((x) => x.id === bronch.id))!;
    expect(after).toMatchObject({ status: 2, sourceChanged: true, startDate: day(-4) });
    expect((await list('dm', { state: 'judged', sourceChanged: true, ptsId })).body.data.content.map((c) => c.id)).toContain(bronch.id);
  });
});

describe('the adverse-event product and the export', () => {
  it('a login of type 4 keeps only the safety review\'s permissions', async () => {
    const info = await s.api.post<{ pms: string[] }>('/auth/user/pmsInfo', { token: tok.ae, headers: H });
    expect(info.status).toBe(200);
    expect(info.body.data.pms.every((p) => /^(clinical|message):|^(project:info|patient:page|padoc:all-doc):query$/.test(p))).toBe(true);
  });

  it('exports what the list shows', async () => {
    const total = (await list('dm', { state: 'all', ptsId })).body.data.totalCount;
    const res = await fetch(`${s.url}/api/selection/export?state=all&ptsId=${ptsId}`, { headers: { token: tok.dm!, proId: '1', proType: 'PRO', language: 'en_US' } });
    expect(res.status).toBe(200);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(await res.arrayBuffer()) as unknown as ArrayBuffer);
    const ws = wb.worksheets[0]!;
    expect(ws.getRow(1).getCell(5).value).toBe('Term');
    expect(ws.rowCount - 1).toBe(total);
  });
});

describe('lab assessments stored with the record (migration 0053)', () => {
  const stored = async () =>
    Object.fromEntries(
      (
        await s.database.db
          .select({ externalId: sourceRecords.externalId, lab: sourceRecords.lab, analyte: sourceRecords.labAnalyte, out: sourceRecords.labOut, graded: sourceRecords.labGraded })
          .from(sourceRecords)
          .where(eq(sourceRecords.subjectId, ptsId))
      ).map((r) => [r.externalId, r]),
    );

  it('ingest grades each lab result as it stores it, and again when it changes', async () => {
    const before = await stored();
    expect(before['Observation/alt-1']).toMatchObject({ analyte: 'alt', out: true, graded: LAB_GRADER_VERSION });
    expect(before['Observation/alt-1']!.lab).toMatchObject({ grade: 2, direction: 'high', outOfRange: true });
    expect(before['Observation/alt-3']).toMatchObject({ analyte: 'alt', out: false, graded: LAB_GRADER_VERSION });
    // not a lab result: graded as nothing, by this grader
    expect(before['Condition/htn']).toMatchObject({ lab: null, analyte: null, out: null, graded: LAB_GRADER_VERSION });
    await s.database.db.transaction((tx) => ingest(tx, { connection: conn, patients: [patient], records: [alt('alt-3', 300, day(-2), 'alt-3-v2')] }));
    const after = await stored();
    expect(after['Observation/alt-3']).toMatchObject({ out: true, graded: LAB_GRADER_VERSION });
    expect(after['Observation/alt-3']!.lab).toMatchObject({ grade: 3, value: 300 });
    await s.database.db.transaction((tx) => ingest(tx, { connection: conn, patients: [patient], records: [alt('alt-3', 30, day(-2), 'alt-3-v3')] }));
    expect((await stored())['Observation/alt-3']).toMatchObject({ out: false });
  });

  it('results stored without one (before the migration, or by an older grader) are graded at the next generation, to the same candidates', async () => {
    const svc = new SafetyService(s.database.db);
    await svc.generateForSubject(ptsId, { force: true });
    const before = await stored();
    const candidates = async () => (await list('dm', { state: 'all', ptsId })).body.data.content.map((c) => [c.id, c.term, c.startDate, c.endDate, c.version, c.detail.grade ?? null, c.sourceChanged]).sort();
    const cands = await candidates();
    await s.database.db.update(sourceRecords).set({ lab: null, labAnalyte: null, labOut: null, labGraded: null }).where(and(eq(sourceRecords.subjectId, ptsId), eq(sourceRecords.docType, 3)));
    const r = await svc.generateForSubject(ptsId, { force: true });
    expect(r).toMatchObject({ created: 0, updated: 0, removed: 0, sourceChanged: 0 });
    expect(await stored()).toEqual(before);
    expect(await candidates()).toEqual(cands);
  });

  it('what generation reads (out-of-range results and the first after each) gives the candidates of grading every result', async () => {
    // 600 results of three analytes over 300 days, in and out of range in runs, both directions, several on a day
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const many: ExtractedRecord[] = [];
    for (let i = 0; i < 600; i++) {
      const d = day(-Math.floor(rnd() * 300));
      const k = i % 3;
      const v = rnd();
      if (k === 0) many.push(alt(`alt-r${i}`, v < 0.6 ? 20 : v < 0.8 ? 90 : 400, d));
      else if (k === 1) many.push(hgb(`hgb-r${i}`, v < 0.6 ? 14 : v < 0.8 ? 8 : 22, d));
      else
        many.push(
          rec({ externalId: `Observation/k-r${i}`, docType: 3, resourceType: 'Observation', codeSystem: 'http://loinc.org', code: '2823-3', display: 'Potassium', valueNum: v < 0.5 ? 4.2 : v < 0.75 ? 2.4 : 6.8, unit: 'mmol/L', effectiveDate: d, raw: { resourceType: 'Observation', id: `k-r${i}` } }),
        );
    }
    await s.database.db.transaction((tx) => ingest(tx, { connection: conn, patients: [patient], records: many }));
    const db = s.database.db;
    const [subj] = await db.select().from(subjects).where(eq(subjects.id, ptsId));
    const read = rowsOf<GenRecord>(await db.execute(generationRecords(subj!, FIRST)));
    const everything = rowsOf<GenRecord>(await db.execute(sql`select ${GEN_RECORD_SELECT} from ${sourceRecords} r where r.subject_id = ${ptsId} and r.deleted_at is null`));
    expect(read.length).toBeLessThan(everything.length);
    const labs = (xs: GeneratedCandidate[]) => xs.filter((c) => c.origin === 'lab').map((c) => [c.key, c.contentHash, c.endDate, c.recordIds.join(',')]).sort();
    const fromStored = labs(generateCandidates(read, FIRST));
    expect(fromStored.length).toBeGreaterThan(20);
    expect(fromStored).toEqual(labs(generateCandidates(everything, FIRST)));
  });
});
