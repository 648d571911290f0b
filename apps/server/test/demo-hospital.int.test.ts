/**
 * The demo path of `npm start` (issue 11 item 7) over real HTTP: the seeded demo design, the demo hospital
 * (@medplum/fhir-router) on a free port with its demo-only date alignment (each patient's latest blood count on its
 * subject's week-4 visit date), the seeded demo connection, subjects and mapping rules; a coordinator extracts H-001
 * and the week-4 lab and vital-sign forms get their candidates — haemoglobin converted from g/dL to g/L — and,
 * through the automatic pre-fill after the extraction, their values (entry mode 6).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bundle, Observation, Patient } from '@medplum/fhirtypes';
import type { TaskView } from '@esource/shared';
import {
  DEMO_BUNDLES,
  DEMO_MRN_SYSTEM,
  alignBundle,
  demoAnchorDate,
  demoMrnOf,
  readSyntheaBundle,
  shiftFhirDate,
  shiftResourceDates,
  startDemoFhirServer,
  type DemoFhirServer,
} from '../src/modules/sources/demo-fhir-server';
import { DEMO_MAPPING, demoAlignment, seedDemoHospital, seedDemoMappingRules } from '../src/seed/seed-sources';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
let fhir: DemoFhirServer;
let alignTo: Partial<Record<string, string>> = {};
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const today = () => new Date().toISOString().slice(0, 10);

describe('demo-only date alignment', () => {
  it('moves every date, dateTime and instant by whole days, never birthDate', () => {
    expect(shiftFhirDate('2018-01-03', 30)).toBe('2018-02-02');
    expect(shiftFhirDate('2018-01-03T23:10:00-05:00', 1)).toBe('2018-01-04T23:10:00-05:00');
    expect(shiftFhirDate('2018-12-31T08:00:00.123Z', 1)).toBe('2019-01-01T08:00:00.123Z');
    expect(shiftFhirDate('not a date', 5)).toBe('not a date');
    const r = shiftResourceDates(
      {
        resourceType: 'Encounter',
        birthDate: '1944-11-28',
        period: { start: '2018-01-03T09:00:00-05:00', end: '2018-01-03T10:00:00-05:00' },
        note: [{ text: '2018-01-03' }],
        contained: [{ resourceType: 'Observation', effectiveDateTime: '2018-01-03', issued: '2018-01-03T10:00:00Z' }],
      },
      10,
    );
    expect(r).toEqual({
      resourceType: 'Encounter',
      birthDate: '1944-11-28',
      period: { start: '2018-01-13T09:00:00-05:00', end: '2018-01-13T10:00:00-05:00' },
      note: [{ text: '2018-01-03' }],
      contained: [{ resourceType: 'Observation', effectiveDateTime: '2018-01-13', issued: '2018-01-13T10:00:00Z' }],
    });
  });

  it("puts the patient's latest blood count on the target date and keeps the intervals between records", () => {
    const b = readSyntheaBundle(DEMO_BUNDLES[0]);
    const anchor = demoAnchorDate(b)!;
    const { bundle, days } = alignBundle(b, '2030-06-15');
    expect(demoAnchorDate(bundle)).toBe('2030-06-15');
    expect(days).toBe(Math.round((Date.parse('2030-06-15') - Date.parse(anchor)) / 86_400_000));
    const obs = (x: Bundle) => x.entry!.map((e) => e.resource!).filter((r): r is Observation => r.resourceType === 'Observation');
    const [o0, o1] = [obs(b)[5]!, obs(bundle)[5]!];
    expect(Date.parse(o1.effectiveDateTime!) - Date.parse(o0.effectiveDateTime!)).toBe(days * 86_400_000);
    const patient = (x: Bundle) => x.entry!.map((e) => e.resource!).find((r): r is Patient => r.resourceType === 'Patient')!;
    expect(patient(bundle).birthDate).toBe(patient(b).birthDate);
  });
});

describe('npm start demo: extraction and pre-fill for H-001', () => {
  beforeAll(async () => {
    s = await startTestServer();
    // as main.ts does: the server first (its URL goes into the connection), the seed, then the aligned fixtures
    fhir = await startDemoFhirServer({ bundles: [] });
    await seedDemoHospital(s.database.db, fhir.url);
    expect(await seedDemoMappingRules(s.database)).toBeGreaterThanOrEqual(DEMO_MAPPING.length);
    expect(await seedDemoMappingRules(s.database)).toBe(0); // idempotent
    alignTo = await demoAlignment(s.database.db);
    await fhir.load(DEMO_BUNDLES, alignTo);
  }, 180_000);

  afterAll(async () => {
    await s?.stop();
    await fhir?.close();
  });

  it("aligns each demo patient on the day before its subject's week-4 visit, which holds today", async () => {
    // first visit = today − 28 (UTC, as seeded), V3 = day 28 (today); the hospital's latest blood count is yesterday's
    const yesterday = new Date(Date.parse(`${today()}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    expect(alignTo[DEMO_BUNDLES[0]]).toBe(yesterday);
    const found = await fhir.request('GET', `/Patient?identifier=${encodeURIComponent(`${DEMO_MRN_SYSTEM}|${demoMrnOf(DEMO_BUNDLES[0])}`)}`);
    const p = (found.body as Bundle).entry![0]!.resource as Patient;
    expect(p.birthDate).toBe('1944-11-28');
    const hgb = await fhir.request('GET', `/Observation?subject=Patient/${p.id}&code=http://loinc.org|718-7&date=${yesterday}`);
    expect(((hgb.body as Bundle).entry ?? []).length).toBeGreaterThan(0);
    // a hospital holds no results from the future: what the shift would put after today is not loaded
    const later = await fhir.request('GET', `/Observation?subject=Patient/${p.id}&date=gt${today()}`);
    expect(((later.body as Bundle).entry ?? []).length).toBe(0);
  });

  it('a coordinator extracts H-001; the week-4 lab form has haemoglobin in g/L, pre-filled with entry mode 6', async () => {
    const crc1 = await s.api.login('crc1');
    const subjects = await s.api.post<{ content: { ptsId: number; ptsNo: string }[] }>('/project/manage/ptsList', { token: crc1, headers: H, form: { keyword: 'H-001', pageSize: 50 } });
    expect(subjects.body.code, JSON.stringify(subjects.body)).toBe(200);
    const h1 = subjects.body.data.content.find((x) => x.ptsNo === 'H-001')!;
    const started = Date.now();
    const add = await s.api.post<{ tasks: TaskView[] }>('/project/managePts/addPtsTask', { token: crc1, headers: H, form: { ptsId: h1.ptsId } });
    expect(add.body.code, JSON.stringify(add.body)).toBe(200);
    let t: TaskView;
    for (;;) {
      t = (await s.api.post<{ task: TaskView }>('/project/gatherData/detail', { token: crc1, headers: H, form: { taskId: add.body.data.tasks[0]!.id } })).body.data.task;
      if (t.status >= 2) break;
      expect(Date.now() - started).toBeLessThan(60_000);
      await new Promise((r) => setTimeout(r, 300));
    }
    expect(t.status).toBe(2);
    expect(t.stats.created).toBeGreaterThan(100);
    expect(t.stats.prefilled).toBeGreaterThanOrEqual(8);

    const visits = await s.api.get<{ visitId: number; code: string; forms: { formId: number; code: string }[] }[]>('/project/pts/visits', { token: crc1, headers: H, query: { ptsId: h1.ptsId } });
    const v3 = visits.body.data.find((v) => v.code === 'V3')!;
    const lb = v3.forms.find((f) => f.code === 'LB')!.formId;
    type Candidate = { variable: string; state: string; problem: string | null; candidateValue: unknown; conversion: { fromValue: number; fromUnit: string; toUnit: string } | null; source: { code: string; effectiveDate: string | null } };
    const ex = await s.api.post<{ window: { planned: string }; candidates: Candidate[] }>('/crf/prefill/execute', { token: crc1, headers: H, form: { ptsId: h1.ptsId, visitId: v3.visitId, formId: lb } });
    expect(ex.body.code, JSON.stringify(ex.body)).toBe(200);
    // the hospital's records are aligned to the day before the planned visit date (no result time lies in the future)
    const dayBefore = new Date(Date.parse(`${ex.body.data.window.planned}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);
    expect(alignTo[DEMO_BUNDLES[0]]).toBe(dayBefore);
    const by = new Map(ex.body.data.candidates.map((c) => [c.variable, c]));
    const hgb = by.get('HGB')!;
    expect(hgb).toMatchObject({ problem: null, conversion: { fromUnit: 'g/dL', toUnit: 'g/L' }, source: { code: '718-7' } });
    expect(hgb.candidateValue).toBe(Math.round(hgb.conversion!.fromValue * 10));
    expect(by.get('WBC')).toMatchObject({ problem: null, conversion: { fromUnit: '10*3/uL', toUnit: '10*9/L' } });
    for (const v of ['LBDTC', 'PLT', 'NA', 'K', 'CREAT', 'GLUC']) expect(by.get(v)?.problem, v).toBeNull();
    // already in the form: the automatic pre-fill after the extraction put them there (inject, entry mode 6)
    const values = await s.api.get<{ values: Record<string, { value: unknown; entryMode: number }> }>('/crf/form/item/result/list', { token: crc1, headers: H, query: { ptsId: h1.ptsId, visitId: v3.visitId, formId: lb } });
    expect(values.body.data.values.HGB).toMatchObject({ value: hgb.candidateValue, entryMode: 6 });
    expect(hgb.state).toBe('same');
  }, 120_000);
});
