/**
 * Automatic pre-fill after an extraction (issue 11 items 4, 5) over real HTTP against the demo hospital
 * (@medplum/fhir-router): a finished extraction with new or changed records fills the EMPTY items of the subject's
 * visits whose window holds today (or the visits the task names) with entry mode inject 6 and a source link, never
 * overwriting; nothing when the project's autoPrefillDisabled is set; a pre-fill failure is an 'Automatic prefill
 * failure' progress item while the extraction itself ends done.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { TaskView } from '@esource/shared';
import { projects, sites, subjects } from '../src/db/schema';
import { DEMO_BUNDLES, DEMO_MRN_SYSTEM, demoMrnOf, startDemoFhirServer, type DemoFhirServer } from '../src/modules/sources/demo-fhir-server';
import { PrefillService } from '../src/modules/prefill/prefill.service';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
let fhir: DemoFhirServer;
let dm = '';
let crc1 = '';
let ptsId = 0;
let ptsNo = '';
let patientRef = '';
let v2 = 0;
let v3 = 0;
let lb = 0;
let vs = 0;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const MRN = demoMrnOf(DEMO_BUNDLES[0]);
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
type Values = Record<string, { value: unknown; entryMode: number; sourceRef: string | null } | undefined>;

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`timed out; last value ${JSON.stringify(v).slice(0, 2000)}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function extract(extra: Record<string, string | number> = {}): Promise<TaskView> {
  const r = await s.api.post<{ tasks: TaskView[] }>('/project/managePts/addPtsTask', { token: crc1, headers: H, form: { ptsId, ...extra } });
  expect(r.body.code, JSON.stringify(r.body)).toBe(200);
  const id = r.body.data.tasks[0]!.id;
  return waitFor(
    async () => (await s.api.post<{ content: TaskView[] }>('/pts/extract/report/listByPage', { token: dm, headers: H, form: { pageSize: 200 } })).body.data.content.find((t) => t.id === id)!,
    (t) => !!t && t.status >= 2,
  );
}

const values = async (visitId: number, formId: number) =>
  (await s.api.get<{ values: Values }>('/crf/form/item/result/list', { token: crc1, headers: H, query: { ptsId, visitId, formId } })).body.data.values;

/** a lab result at the hospital, dated yesterday (inside week 4's window) */
async function hospitalLab(code: string, display: string, value: number, unit: string): Promise<string> {
  const r = await fhir.request('POST', '/Observation', {
    resourceType: 'Observation',
    status: 'final',
    category: [{ coding: [{ system: 'http://terminology.hl7.org/CodeSystem/observation-category', code: 'laboratory' }] }],
    code: { coding: [{ system: 'http://loinc.org', code, display }] },
    subject: { reference: patientRef },
    effectiveDateTime: `${day(-1)}T08:00:00Z`,
    valueQuantity: { value, unit, system: 'http://unitsofmeasure.org', code: unit },
  });
  expect(r.status).toBe(201);
  return r.body!.id!;
}

beforeAll(async () => {
  fhir = await startDemoFhirServer({ bundles: [DEMO_BUNDLES[0]] });
  s = await startTestServer();
  const db = s.database.db;
  [dm, crc1] = await Promise.all([s.api.login('dm'), s.api.login('crc1')]);
  const [site] = await db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  // week 4 (day 28, window −3/+7) holds today; week 2 (day 14 ± 3) does not
  const added = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: crc1, headers: H, form: { siteId: site!.id, firstVisitDate: day(-28) } });
  ptsId = added.body.data.ptsId;
  const [subj] = await db.update(subjects).set({ medicalRecordId: MRN }).where(eq(subjects.id, ptsId)).returning();
  ptsNo = subj!.ptsNo;
  const sched = await s.api.get<{ visitId: number; code: string; forms: { formId: number; code: string }[] }[]>('/project/pts/visits', { token: crc1, headers: H, query: { ptsId } });
  const week4 = sched.body.data.find((v) => v.code === 'V3')!;
  v3 = week4.visitId;
  v2 = sched.body.data.find((v) => v.code === 'V2')!.visitId;
  lb = week4.forms.find((f) => f.code === 'LB')!.formId;
  vs = week4.forms.find((f) => f.code === 'VS')!.formId;

  const conn = await s.api.post('/project/source/connection/add', {
    token: dm,
    headers: H,
    json: { siteId: site!.id, kind: 'fhir', name: 'Demo hospital', config: { baseUrl: fhir.url, auth: 'none', identifierSystems: [{ system: DEMO_MRN_SYSTEM, type: 'medicalRecordId' }], resourceTypes: ['Observation'], pageSize: 200 } },
  });
  expect(conn.body.code, JSON.stringify(conn.body)).toBe(200);
  const found = await fhir.request('GET', `/Patient?identifier=${encodeURIComponent(`${DEMO_MRN_SYSTEM}|${MRN}`)}`);
  patientRef = `Patient/${(found.body as unknown as { entry: { resource: { id: string } }[] }).entry[0]!.resource.id}`;

  // lab items by LOINC inside the window only; systolic pressure nearest to the visit date wherever it is
  for (const [formId, variable, code, windowOnly] of [
    [lb, 'HGB', '718-7', true],
    [lb, 'NA', '2947-0', true],
    [lb, 'K', '6298-4', true],
    [vs, 'SYSBP', '8480-6', false],
  ] as const) {
    const r = await s.api.post('/crf/config/mapping/save', { token: dm, headers: H, json: { formId, variable, method: 'code', codes: [{ system: 'http://loinc.org', code }], useSynonyms: false, selection: 'nearest', windowOnly } });
    expect(r.body.code, JSON.stringify(r.body)).toBe(200);
  }
  // the coordinator already entered sodium by hand
  const manual = await s.api.post('/crf/form/item/result/saveBatch', { token: crc1, headers: H, json: { ptsId, visitId: v3, formId: lb, entryMode: 0, items: [{ variable: 'NA', value: 150 }] } });
  expect(manual.body.code, JSON.stringify(manual.body)).toBe(200);
  await hospitalLab('718-7', 'Hemoglobin [Mass/volume] in Blood', 13.5, 'g/dL');
  await hospitalLab('2947-0', 'Sodium [Moles/volume] in Blood', 141, 'mmol/L');
}, 120_000);

afterAll(async () => {
  vi.restoreAllMocks();
  await s?.stop();
  await fhir?.close();
});

describe('automatic pre-fill after an extraction', () => {
  it('fills the empty items of the visit in window with entry mode 6 and a source link, never overwriting', async () => {
    const t = await extract();
    expect(t.status).toBe(2);
    expect(t.stats.created).toBeGreaterThan(0);
    const lab = await values(v3, lb);
    expect(lab.HGB).toMatchObject({ value: 135, entryMode: 6 }); // 13.5 g/dL → g/L
    expect(lab.HGB!.sourceRef).toMatch(/^source:\d+:v1$/);
    expect(lab.NA).toMatchObject({ value: 150, entryMode: 0, sourceRef: null }); // the hand-entered value stays
    // week 4's vital signs too (nearest blood pressure), but not week 2, whose window is not today
    const vital = await values(v3, vs);
    expect(vital.SYSBP).toMatchObject({ entryMode: 6 });
    expect((await values(v2, vs)).SYSBP).toBeUndefined();
    expect(t.stats.prefilled).toBe(2);
    // the decisions log names the automatic run
    const log = await s.api.post<{ content: { variable: string; decision: string }[] }>('/audit/log/preFillCrfQuery', { token: dm, headers: H, form: { ptsId, decision: 'inject' } });
    expect(log.body.data.content.map((x) => x.variable).sort()).toEqual(['HGB', 'SYSBP']);
  }, 120_000);

  it('a second run with nothing new pre-fills nothing', async () => {
    const t = await extract();
    expect(t.stats).toMatchObject({ created: 0, updated: 0 });
    expect(t.stats.prefilled).toBeUndefined();
  }, 120_000);

  it("nothing is pre-filled while the project's automatic pre-fill is off", async () => {
    await s.database.db.update(projects).set({ autoPrefillDisabled: true }).where(eq(projects.id, 1));
    try {
      await hospitalLab('6298-4', 'Potassium [Moles/volume] in Blood', 4.2, 'mmol/L');
      const t = await extract();
      expect(t.status).toBe(2);
      expect(t.stats.created).toBe(1);
      expect(t.stats.prefilled).toBeUndefined();
      expect((await values(v3, lb)).K).toBeUndefined();
    } finally {
      await s.database.db.update(projects).set({ autoPrefillDisabled: false }).where(eq(projects.id, 1));
    }
  }, 120_000);

  it('a task may name the visits to pre-fill instead of those in window', async () => {
    await hospitalLab('718-7', 'Hemoglobin [Mass/volume] in Blood', 13.9, 'g/dL');
    const t = await extract({ prefillVisitIds: String(v2) });
    expect(t.status).toBe(2);
    expect((await values(v2, vs)).SYSBP).toMatchObject({ entryMode: 6 });
    expect((await values(v3, lb)).K).toBeUndefined(); // week 4 was not named
    expect(t.stats.prefilled).toBe(1);
  }, 120_000);

  it("a pre-fill failure is an 'Automatic prefill failure' progress item; the extraction still ends done", async () => {
    const spy = vi.spyOn(PrefillService.prototype, 'prefillSubjectVisit').mockRejectedValueOnce(new Error('mapping engine unavailable'));
    await hospitalLab('2947-0', 'Sodium [Moles/volume] in Blood', 139, 'mmol/L');
    const t = await extract();
    expect(spy).toHaveBeenCalled();
    spy.mockRestore();
    expect(t.status).toBe(2);
    expect(t.errorMessage).toBeNull();
    const progress = await s.api.post<{ status: number; displayInformation: string; ptsNo: string | null }[]>('/proProgressDisplay/list', { token: crc1, headers: H, json: { type: 2 } });
    const failure = progress.body.data.find((p) => p.status === 3 && p.displayInformation.startsWith('Automatic prefill failure'));
    expect(failure).toMatchObject({ ptsNo, displayInformation: `Automatic prefill failure: ${ptsNo} Week 4: mapping engine unavailable` });
    expect((await values(v3, lb)).K).toBeUndefined();
  }, 120_000);
});
