/**
 * The study reports over the real API (issue 14 item 5): eCRF completion by site, visit and form on a seeded study
 * (the counts, and the same totals as the subjects' own forms_total / forms_done), missing required items down to the
 * item — shown by their display condition or not (checked against the eCRF's own rule form by form) — and the data
 * consistency report: a pre-filled value edited by hand and a value whose source changed at the hospital are listed,
 * an untouched one is not. Site scope (a site's coordinator sees none of the other site), the permissions of each
 * report and of its export, bad filters, and the Excel workbooks.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray, sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import type { ExtractedPatient, ExtractedRecord } from '@esource/interop';
import {
  missingRequired,
  type ConsistencyPage,
  type CrfMissingPage,
  type CrfReport,
  type FormDefinition,
  type ReportOptions,
} from '@esource/shared';
import {
  crfInstances,
  crfValues,
  forms,
  rolePermissions,
  roles,
  sites,
  sourceConnections,
  subjects,
  visits,
} from '../src/db/schema';
import { ingest, type StoreConnection } from '../src/modules/sources/source-store';
import { missingTuning } from '../src/modules/reports/reports-missing';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};
const site = { a: 0, b: 0 };
const pts = { a1: 0, a2: 0, a3: 0, b1: 0, gone: 0 };
const visit: Record<string, number> = {};
const form: Record<string, number> = {};
const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

const post = <T>(who: string, url: string, json: Record<string, unknown> = {}, lang = 'en_US') =>
  s.api.post<T>(url, { token: tok[who], headers: { ...H, language: lang }, json });
const crf = (who: string, body: Record<string, unknown> = {}, lang?: string) =>
  post<CrfReport>(who, '/visual/report/crfReport', body, lang);
const missing = (who: string, body: Record<string, unknown> = {}, lang?: string) =>
  post<CrfMissingPage>(who, '/visual/report/crfReportMissing', body, lang);
const consistency = (who: string, body: Record<string, unknown> = {}, lang?: string) =>
  post<ConsistencyPage>(who, '/dataConsistencyReport/list', body, lang);
const exportFile = (who: string, url: string, body: Record<string, unknown> = {}, lang = 'en_US') =>
  fetch(`${s.url}/api${url}`, {
    method: 'POST',
    headers: {
      token: tok[who]!,
      proId: '1',
      proType: 'PRO',
      language: lang,
      'content-type': 'application/json',
    },
    body: JSON.stringify(body),
  });
async function workbook(res: Response) {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(Buffer.from(await res.arrayBuffer()) as unknown as ArrayBuffer);
  const rows = (name: string) => {
    const out: unknown[][] = [];
    wb.getWorksheet(name)?.eachRow((r) => out.push((r.values as unknown[]).slice(1)));
    return out;
  };
  return { names: wb.worksheets.map((w) => w.name), rows };
}

/** Saves items of a form: 0 = draft (no required check), 2 = completed. */
async function save(
  who: string,
  ptsId: number,
  v: string,
  f: string,
  entryMode: 0 | 2,
  items: Record<string, unknown>,
  o: { unscheduledId?: number; reason?: string; version?: number } = {},
) {
  const r = await s.api.post<{ instance: { id: number; version: number } }>(
    '/crf/form/item/result/saveBatch',
    {
      token: tok[who],
      headers: H,
      json: {
        ptsId,
        visitId: visit[v],
        formId: form[f],
        unscheduledId: o.unscheduledId ?? 0,
        ...(o.version ? { version: o.version } : {}),
        entryMode,
        items: Object.entries(items).map(([variable, value]) => ({
          variable,
          value,
          ...(o.reason ? { reason: o.reason } : {}),
        })),
      },
    },
  );
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.instance;
}

const patient: ExtractedPatient = {
  patientKey: 'rp-1',
  identifiers: [{ type: 'medicalRecordId', value: 'MRN-REPORTS-1' }],
};
const lab = (
  id: string,
  code: string,
  display: string,
  value: number,
  unit: string,
  hash = `${id}-${value}-${unit}`,
): ExtractedRecord => ({
  patientKey: 'rp-1',
  externalId: `Observation/${id}`,
  docType: 3,
  resourceType: 'Observation',
  codeSystem: 'http://loinc.org',
  code,
  display,
  valueNum: value,
  unit,
  effectiveAt: `${day(-1)}T01:30:00Z`,
  effectiveDate: day(-1),
  rawFormat: 'fhir',
  raw: JSON.stringify({
    resourceType: 'Observation',
    id,
    status: 'final',
    code: { coding: [{ system: 'http://loinc.org', code, display }] },
    valueQuantity: { value, unit },
  }),
  contentHash: hash,
});
const HGB = ['718-7', 'Hemoglobin [Mass/volume] in Blood'] as const;
const NA = ['2951-2', 'Sodium [Moles/volume] in Serum or Plasma'] as const;
const K = ['2823-3', 'Potassium [Moles/volume] in Serum or Plasma'] as const;

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['dm', 'pi', 'crc1', 'crc2', 'cra']) tok[a] = await s.api.login(a);
  const db = s.database.db;
  const rows = await db
    .select()
    .from(sites)
    .where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO')));
  site.a = rows.find((r) => r.siteNo === '01')!.id;
  site.b = rows.find((r) => r.siteNo === '02')!.id;
  const add = async (who: string, siteId: number, firstVisitDate = '2026-01-02') => {
    const r = await s.api.post<{ ptsId: number }>('/project/managePts/add', {
      token: tok[who],
      headers: H,
      form: { siteId, firstVisitDate },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data.ptsId;
  };
  pts.a1 = await add('crc1', site.a);
  pts.a2 = await add('crc1', site.a);
  // week 4 (day 28, window −3/+7) is today: the hospital's lab results of yesterday fall in it
  pts.a3 = await add('crc1', site.a, day(-28));
  pts.gone = await add('crc1', site.a);
  pts.b1 = await add('crc2', site.b);
  const [subj] = await db.select().from(subjects).where(eq(subjects.id, pts.a1));
  for (const v of await db.select().from(visits).where(eq(visits.versionId, subj!.designVersionId!)))
    visit[v.code] = v.id;
  for (const f of await db.select().from(forms).where(eq(forms.versionId, subj!.designVersionId!)))
    form[f.code] = f.id;
});
afterAll(async () => {
  await s?.stop();
});

describe('eCRF completion', () => {
  beforeAll(async () => {
    // a1: screening done (demographics of a man, vital signs), week 2 vital signs a draft, an unscheduled visit
    await save('crc1', pts.a1, 'V1', 'DM', 2, { BRTHDTC: '1980-05-01', SEX: '1' });
    await save('crc1', pts.a1, 'V1', 'VS', 2, { VSDTC: '2026-01-02 09:00', SYSBP: 120, DIABP: 80 });
    await save('crc1', pts.a1, 'V2', 'VS', 0, { VSDTC: '2026-01-16 09:00' });
    const u = await s.api.post<{ id: number }>('/crf/prefill/visit/addOrUpdateUnscheduled', {
      token: tok.crc1,
      headers: H,
      json: { ptsId: pts.a1, visitId: visit.UNS, visitDate: '2026-01-20', label: 'chest pain' },
    });
    expect(u.status, JSON.stringify(u.body)).toBe(200);
    await save(
      'crc1',
      pts.a1,
      'UNS',
      'VS',
      0,
      { VSDTC: '2026-01-20 10:00' },
      { unscheduledId: u.body.data.id },
    );
    // a2: demographics of a woman, pregnancy not answered (a draft); two adverse events at week 2, one a draft
    await save('crc1', pts.a2, 'V1', 'DM', 0, { SEX: '2' });
    await save('crc1', pts.a2, 'V2', 'AE', 2, { AETERM: 'Headache', AESTDTC: '2026-01-10' });
    const ae2 = await s.api.post('/crf/form/item/result/saveBatch', {
      token: tok.crc1,
      headers: H,
      json: {
        ptsId: pts.a2,
        visitId: visit.V2,
        formId: form.AE,
        repeatNo: 2,
        entryMode: 0,
        items: [{ variable: 'AETERM', value: 'Nausea' }],
      },
    });
    expect(ae2.status, JSON.stringify(ae2.body)).toBe(200);
    // b1: demographics of a man without a birth date (a draft)
    await save('crc2', pts.b1, 'V1', 'DM', 0, { SEX: '1' });
    await save('crc2', pts.b1, 'V1', 'VS', 2, { VSDTC: '2026-01-02 08:00', SYSBP: 130, DIABP: 85 });
    // a1's vital signs certified (the investigator's signature, as the review leaves it); the row is changed
    // directly, so the subject's counts are refreshed as EcrfService.setCertified does in its transaction
    await s.database.db
      .update(crfInstances)
      .set({ status: 3 })
      .where(
        and(
          eq(crfInstances.subjectId, pts.a1),
          eq(crfInstances.visitId, visit.V1!),
          eq(crfInstances.formId, form.VS!),
        ),
      );
    await s.database.db.execute(sql`select refresh_subject_progress(array[${pts.a1}]::int[])`);
    // a removed subject's forms never count
    await save('crc1', pts.gone, 'V1', 'DM', 0, { SEX: '2' });
    await s.database.db.update(subjects).set({ status: 0 }).where(eq(subjects.id, pts.gone));
  });

  it("by site: expected, not started, draft, completed, certified and the rate; the totals are the subjects' own progress", async () => {
    const r = await crf('dm');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const { rows, totals } = r.body.data;
    // 15 planned forms a subject (V1 2, V2 6, V3 7) + 2 for a1's unscheduled visit
    expect(
      rows.map((x) => [x.code, x.expected, x.notStarted, x.draft, x.completed, x.certified, x.done]),
    ).toEqual([
      ['01', 15 * 3 + 2, 41, 4, 1, 1, 2],
      ['02', 15, 13, 1, 1, 0, 1],
    ]);
    expect(totals).toMatchObject({
      subjects: 4,
      expected: 62,
      draft: 5,
      completed: 2,
      certified: 1,
      done: 3,
      notStarted: 54,
    });
    expect(rows[0]!.rate).toBeCloseTo(2 / 47, 6);
    // the same figures as refresh_subject_progress keeps on each subject
    const [own] = await s.database.db
      .select({
        total: sql<number>`sum(${subjects.formsTotal})::int`,
        done: sql<number>`sum(${subjects.formsDone})::int`,
      })
      .from(subjects)
      .where(and(eq(subjects.projectId, 1), eq(subjects.env, 'PRO'), sql`${subjects.status} <> 0`));
    expect([totals.expected, totals.done]).toEqual([own!.total, own!.done]);
  });

  it('by visit and by form, in plan and design order; a cycle form counts once per visit (its lowest repeat)', async () => {
    const byVisit = (await crf('dm', { groupBy: 'visit' })).body.data.rows;
    expect(byVisit.map((x) => [x.code, x.expected, x.draft, x.completed, x.certified])).toEqual([
      ['V1', 8, 2, 2, 1],
      ['V2', 24, 2, 0, 0],
      ['V3', 28, 0, 0, 0],
      ['UNS', 2, 1, 0, 0],
    ]);
    expect(byVisit[0]!.name).toBe('Screening');
    const byForm = (await crf('dm', { groupBy: 'form' })).body.data.rows;
    expect(byForm.find((x) => x.code === 'AE')).toMatchObject({
      name: 'Adverse events',
      expected: 9,
      draft: 1,
      completed: 0,
    });
    expect(byForm.find((x) => x.code === 'DM')).toMatchObject({ expected: 4, draft: 2, completed: 1 });
    expect(byForm.map((x) => x.code).slice(0, 3)).toEqual(['DM', 'VS', 'LB']);
    const zh = (await crf('dm', { groupBy: 'form' }, 'zh_CN')).body.data.rows;
    expect(zh[0]!.name).toBe('人口学资料');
  });

  it('filters: site, visit, form, subject status, design version', async () => {
    const t = async (body: Record<string, unknown>) => (await crf('dm', body)).body.data.totals;
    expect(await t({ siteId: site.b })).toMatchObject({ subjects: 1, expected: 15, done: 1 });
    expect(await t({ visitCode: 'V1' })).toMatchObject({ expected: 8, done: 3, draft: 2 });
    expect(await t({ formCode: 'VS', visitCode: 'V1' })).toMatchObject({ expected: 4, done: 2 });
    expect(await t({ subjectStatus: 3 })).toMatchObject({ subjects: 0, expected: 0 });
    expect(await t({ subjectStatus: 1 })).toMatchObject({ subjects: 4 });
    const [subj] = await s.database.db.select().from(subjects).where(eq(subjects.id, pts.a1));
    expect(await t({ versionId: subj!.designVersionId })).toMatchObject({ expected: 62 });
    const bad = await crf('dm', { groupBy: 'week' });
    expect(bad.status).toBe(400);
    expect(bad.body.detail?.[0]?.field).toBe('groupBy');
    expect((await crf('dm', { versionId: 999_999 })).status).toBe(404);
  });

  it('the options: sites, versions, visits and forms by code with their items', async () => {
    const r = await post<ReportOptions>('dm', '/visual/report/pts/options');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.sites.map((x) => x.siteNo)).toEqual(['01', '02']);
    expect(r.body.data.visits.map((x) => x.code)).toEqual(['V1', 'V2', 'V3', 'UNS']);
    const dmForm = r.body.data.forms.find((f) => f.code === 'DM')!;
    expect(dmForm.items.filter((i) => i.required).map((i) => i.variable)).toEqual(['BRTHDTC', 'SEX', 'PREG']);
    const pi = await post<ReportOptions>('pi', '/visual/report/pts/options');
    // the investigator has no report permission
    expect(pi.status).toBe(403);
  });
});

describe('missing data', () => {
  it("lists required items that are empty and shown: pregnancy only for a woman, never in a removed subject's forms", async () => {
    const r = await missing('dm', { pageSize: 50 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const rows = r.body.data.content.map((x) => [x.ptsId, x.visitCode, x.formCode, x.variable, x.formStatus]);
    expect(rows).toEqual(
      expect.arrayContaining([
        [pts.a2, 'V1', 'DM', 'BRTHDTC', 1],
        [pts.a2, 'V1', 'DM', 'PREG', 1],
        [pts.b1, 'V1', 'DM', 'BRTHDTC', 1],
        [pts.a1, 'V2', 'VS', 'SYSBP', 1],
        [pts.a1, 'V2', 'VS', 'DIABP', 1],
        [pts.a1, 'UNS', 'VS', 'SYSBP', 1],
        [pts.a2, 'V2', 'AE', 'AESTDTC', 1],
      ]),
    );
    // a man's pregnancy is hidden by its condition: not missing
    expect(rows.filter((x) => x[0] === pts.b1 && x[3] === 'PREG')).toEqual([]);
    expect(rows.filter((x) => x[0] === pts.gone)).toEqual([]);
    expect(r.body.data.totalCount).toBe(8);
    const unscheduled = r.body.data.content.find((x) => x.visitCode === 'UNS')!;
    expect(unscheduled.visitName).toBe('Unscheduled visit · chest pain');
    expect(r.body.data.content.find((x) => x.variable === 'PREG')).toMatchObject({
      itemLabel: 'Pregnant',
      formName: 'Demographics',
      siteName: expect.any(String),
      updatedBy: 'Amy Coordinator',
    });
    expect(r.body.data.summary).toMatchObject({ missing: 8, formsWithMissing: 5 });
    expect(r.body.data.summary.byForm.map((x) => [x.formCode, x.forms, x.missing])).toEqual([
      ['DM', 2, 3],
      ['VS', 2, 4],
      ['AE', 1, 1],
    ]);
    expect(r.body.data.summary.byItem[0]).toMatchObject({ formCode: 'DM', variable: 'BRTHDTC', missing: 2 });
  });

  it("agrees with the eCRF's own rule applied to every saved form", async () => {
    const db = s.database.db;
    const saved = await db
      .select({ id: crfInstances.id, formId: crfInstances.formId, definition: forms.definition })
      .from(crfInstances)
      .innerJoin(forms, eq(forms.id, crfInstances.formId))
      .innerJoin(subjects, eq(subjects.id, crfInstances.subjectId))
      .where(
        and(
          eq(crfInstances.projectId, 1),
          eq(crfInstances.env, 'PRO'),
          inArray(crfInstances.status, [1, 2]),
          sql`${subjects.status} <> 0`,
        ),
      );
    let expected = 0;
    for (const i of saved) {
      const vals = await db.select().from(crfValues).where(eq(crfValues.instanceId, i.id));
      expected += missingRequired(
        i.definition as unknown as FormDefinition,
        Object.fromEntries(vals.map((v) => [v.variable, v.value?.v ?? null])),
      ).length;
    }
    expect((await missing('dm')).body.data.totalCount).toBe(expected);
  });

  it('filters, sorts and pages', async () => {
    const total = async (body: Record<string, unknown>) => (await missing('dm', body)).body.data.totalCount;
    expect(await total({ siteId: site.b })).toBe(1);
    expect(await total({ formCode: 'DM' })).toBe(3);
    expect(await total({ formCode: 'DM', variable: 'PREG' })).toBe(1);
    expect(await total({ visitCode: 'V2' })).toBe(3);
    expect(await total({ formStatus: 2 })).toBe(0);
    const [a2] = await s.database.db.select().from(subjects).where(eq(subjects.id, pts.a2));
    expect(await total({ ptsNo: a2!.ptsNo })).toBe(3);
    const byItem = (await missing('dm', { sortField: 'item', sortOrder: 'desc' })).body.data.content.map(
      (x) => x.variable,
    );
    expect(byItem).toEqual([...byItem].sort().reverse());
    const byVisit = (await missing('dm', { sortField: 'visit' })).body.data.content.map((x) => x.visitCode);
    expect(byVisit).toEqual(['V1', 'V1', 'V1', 'V2', 'V2', 'V2', 'UNS', 'UNS']);
    expect((await missing('dm', { pageSize: 7 })).status).toBe(400);
    expect((await missing('dm', { sortField: 'nope' })).body.detail?.[0]?.field).toBe('sortField');
    const past = await missing('dm', { pageNumber: 3 });
    expect(past.body.data).toMatchObject({ totalCount: 8, content: [] });
  });

  it('a page walked through the sort’s index reads the same rows as the whole set read and sorted', async () => {
    // large scopes walk (more than missingTuning.whole items): made to walk here, each sort and direction compared
    // with the whole read; page sizes 100 and 200, which no other test asks for, so neither answer is a cached one
    const ids = (r: Awaited<ReturnType<typeof missing>>) => {
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.data.content.map((x) => [x.instanceId, x.variable, x.formStatus, x.ptsNo, x.visitCode, x.siteName, x.updatedBy]);
    };
    const saved = missingTuning.whole;
    try {
      for (const sortField of ['ptsNo', 'updateTime', 'site', 'visit', 'form', 'item', 'formStatus']) {
        for (const sortOrder of ['asc', 'desc']) {
          missingTuning.whole = saved;
          const whole = ids(await missing('dm', { sortField, sortOrder, pageSize: 100 }));
          missingTuning.whole = 0;
          const walked = ids(await missing('dm', { sortField, sortOrder, pageSize: 200 }));
          expect(walked, `${sortField} ${sortOrder}`).toEqual(whole);
          expect(walked).toHaveLength(8);
        }
      }
    } finally {
      missingTuning.whole = saved;
    }
  });
});

describe('data consistency', () => {
  let conn: StoreConnection;
  beforeAll(async () => {
    const db = s.database.db;
    await db.update(subjects).set({ medicalRecordId: 'MRN-REPORTS-1' }).where(eq(subjects.id, pts.a3));
    const [c] = await db
      .insert(sourceConnections)
      .values({ env: 'PRO', projectId: 1, siteId: site.a, kind: 'fhir_file', name: 'reports test' })
      .returning();
    conn = { id: c!.id, env: 'PRO', projectId: 1, siteId: site.a };
    await db.transaction((tx) =>
      ingest(tx, {
        connection: conn,
        patients: [patient],
        records: [
          lab('hgb', ...HGB, 13.2, 'g/dL'),
          lab('na', ...NA, 140, 'mmol/L'),
          lab('k', ...K, 4.5, 'mmol/L'),
        ],
      }),
    );
    for (const [variable, code] of [
      ['HGB', HGB[0]],
      ['NA', NA[0]],
      ['K', K[0]],
    ] as const) {
      const r = await s.api.post('/crf/config/mapping/save', {
        token: tok.dm,
        headers: H,
        json: {
          formId: form.LB,
          variable,
          method: 'code',
          codes: [{ system: 'http://loinc.org', code }],
          useSynonyms: false,
          selection: 'nearest',
          windowOnly: true,
        },
      });
      // the demo mapping may hold the rule already
      expect([200, 409], JSON.stringify(r.body)).toContain(r.status);
    }
    const key = { ptsId: pts.a3, visitId: visit.V3!, formId: form.LB! };
    const ex = await s.api.post<{
      instance: { version: number } | null;
      candidates: { variable: string; source: { id: number; version: number } }[];
    }>('/crf/prefill/execute', { token: tok.crc1, headers: H, form: key });
    expect(ex.status, JSON.stringify(ex.body)).toBe(200);
    const decisions = ex.body.data.candidates
      .filter((x) => ['HGB', 'NA', 'K'].includes(x.variable))
      .map((x) => ({
        variable: x.variable,
        sourceRecordId: x.source.id,
        sourceVersion: x.source.version,
        decision: 'new',
      }));
    expect(decisions).toHaveLength(3);
    const ok = await s.api.post<{ instance: { version: number } }>('/crf/prefill/visit/confirm', {
      token: tok.crc1,
      headers: H,
      json: {
        ...key,
        ...(ex.body.data.instance ? { version: ex.body.data.instance.version } : {}),
        decisions,
      },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    // sodium corrected by hand; the hospital corrects the haemoglobin; potassium's record changes only in its content
    await save(
      'crc1',
      pts.a3,
      'V3',
      'LB',
      0,
      { NA: 138 },
      { reason: 'transcription check', version: ok.body.data.instance.version },
    );
    await db.transaction((tx) =>
      ingest(tx, {
        connection: conn,
        patients: [patient],
        records: [
          lab('hgb', ...HGB, 12.1, 'g/dL'),
          lab('na', ...NA, 140, 'mmol/L'),
          lab('k', ...K, 4.5, 'mmol/L', 'k-4.5-v2'),
        ],
      }),
    );
  });

  it('lists the hand-edited value and the value whose source changed, with both values; not the untouched one', async () => {
    const r = await consistency('dm');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const by = Object.fromEntries(r.body.data.content.map((x) => [x.variable, x]));
    expect(Object.keys(by).sort()).toEqual(['HGB', 'NA']);
    expect(r.body.data.totalCount).toBe(2);
    expect(by.NA).toMatchObject({
      ptsId: pts.a3,
      reasons: ['edited'],
      crfValue: 138,
      filledValue: 140,
      sourceValue: '140',
      sourceUnit: 'mmol/L',
      filledVersion: 1,
      currentVersion: 1,
      itemLabel: 'Sodium',
      itemUnit: 'mmol/L',
      updatedBy: 'Amy Coordinator',
      formName: 'Laboratory tests',
    });
    // g/dL → g/L at pre-fill: the eCRF holds what the pre-fill wrote; the source moved from 13.2 to 12.1
    expect(by.HGB).toMatchObject({
      reasons: ['sourceChanged'],
      crfValue: 132,
      filledValue: 132,
      sourceValue: '12.1',
      filledSourceValue: '13.2',
      sourceUnit: 'g/dL',
      filledVersion: 1,
      currentVersion: 2,
      sourceDate: day(-1),
    });
  });

  it('filters by reason, site, form and subject; sorts', async () => {
    const total = async (body: Record<string, unknown>) =>
      (await consistency('dm', body)).body.data.totalCount;
    expect(await total({ reason: 'edited' })).toBe(1);
    expect(await total({ reason: 'sourceChanged' })).toBe(1);
    expect(await total({ reason: 'sourceDeleted' })).toBe(0);
    expect(await total({ siteId: site.b })).toBe(0);
    expect(await total({ formCode: 'DM' })).toBe(0);
    expect(await total({ visitCode: 'V3', formCode: 'LB' })).toBe(2);
    const desc = (await consistency('dm', { sortField: 'item', sortOrder: 'desc' })).body.data.content.map(
      (x) => x.variable,
    );
    expect(desc).toEqual(['NA', 'HGB']);
    expect((await consistency('dm', { reason: 'other' })).status).toBe(400);
  });

  it('the same list from a database migrated to 0040 (the newest pre-fill taken from the history)', async () => {
    const before = (await consistency('dm', { pageSize: 50 })).body.data;
    const edited = (await consistency('dm', { reason: 'edited' })).body.data;
    const filled = () =>
      s.database.db
        .select({ id: crfValues.id, ref: crfValues.filledRef, value: crfValues.filledValue })
        .from(crfValues)
        .where(sql`${crfValues.filledRef} is not null`)
        .orderBy(crfValues.id);
    // what the saves kept: the three pre-filled values (sodium's kept after its change by hand)
    const kept = await filled();
    expect(kept).toHaveLength(3);
    // as before 0040: no value knows its pre-fill; then the migration's statement that takes it from the history
    await s.database.db.update(crfValues).set({ filledRef: null, filledValue: null });
    const migration = fs.readFileSync(
      path.join(import.meta.dirname, '../drizzle/0040_report_counters.sql'),
      'utf8',
    );
    const backfill = migration
      .split('--> statement-breakpoint')
      .map((x) => x.trim())
      .find((x) => x.startsWith('UPDATE crf_values v SET filled_ref'))!;
    await s.database.db.execute(sql.raw(backfill));
    expect((await consistency('dm', { pageSize: 50 })).body.data).toEqual(before);
    expect((await consistency('dm', { reason: 'edited' })).body.data).toEqual(edited);
    // the saves had kept exactly what the history says
    expect(await filled()).toEqual(kept);
  });

  it('a source record deleted at the hospital is listed too', async () => {
    await s.database.db.execute(
      sql`update source_records set deleted_at = now() where connection_id = ${conn.id} and external_id = 'Observation/k'`,
    );
    try {
      const r = await consistency('dm', { reason: 'sourceDeleted' });
      expect(r.body.data.content.map((x) => [x.variable, x.reasons])).toEqual([['K', ['sourceDeleted']]]);
    } finally {
      await s.database.db.execute(
        sql`update source_records set deleted_at = null where connection_id = ${conn.id} and external_id = 'Observation/k'`,
      );
    }
  });
});

describe('scope and permissions', () => {
  const granted = ['report:crf:query', 'report:crf-missing:query', 'report:data-consistency:query'] as const;
  let crcRole = 0;
  beforeAll(async () => {
    const [crc] = await s.database.db.select().from(roles).where(eq(roles.code, 'CRC'));
    crcRole = crc!.id;
    await s.database.db
      .insert(rolePermissions)
      .values(granted.map((permission) => ({ roleId: crcRole, permission })));
    tok.crc2 = await s.api.login('crc2');
  });
  afterAll(async () => {
    await s.database.db
      .delete(rolePermissions)
      .where(and(eq(rolePermissions.roleId, crcRole), inArray(rolePermissions.permission, [...granted])));
  });

  it("another site's coordinator sees none of site A: completion, missing items, consistency, options", async () => {
    const c = await crf('crc2');
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    expect(c.body.data.rows.map((x) => x.code)).toEqual(['02']);
    expect(c.body.data.totals).toMatchObject({ subjects: 1, expected: 15 });
    const m = await missing('crc2');
    expect(m.body.data.content.map((x) => x.ptsId)).toEqual([pts.b1]);
    expect(m.body.data.summary.missing).toBe(1);
    expect((await consistency('crc2')).body.data).toMatchObject({ totalCount: 0, content: [] });
    expect(
      (await post<ReportOptions>('crc2', '/visual/report/pts/options')).body.data.sites.map((x) => x.siteNo),
    ).toEqual(['02']);
    // naming site A is refused, not answered empty
    for (const res of [
      await crf('crc2', { siteId: site.a }),
      await missing('crc2', { siteId: site.a }),
      await consistency('crc2', { siteId: site.a }),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.errorCode).toBe('SITE_FORBIDDEN');
    }
  });

  it('refuses whoever lacks the permission; reading is not exporting', async () => {
    for (const [url, body] of [
      ['/visual/report/crfReport', {}],
      ['/visual/report/crfReportMissing', {}],
      ['/dataConsistencyReport/list', {}],
      ['/visual/report/crfReport/export', {}],
      ['/visual/report/crfReportMissing/export', {}],
      ['/dataConsistencyReport/export', {}],
    ] as const) {
      expect((await post('pi', url, body)).status, url).toBe(403);
    }
    // the coordinator now reads every report of its site, but exports none
    for (const url of [
      '/visual/report/crfReport/export',
      '/visual/report/crfReportMissing/export',
      '/dataConsistencyReport/export',
    ]) {
      expect((await exportFile('crc2', url)).status, url).toBe(403);
    }
    // the monitor reads and exports
    expect((await crf('cra')).status).toBe(200);
    expect((await exportFile('cra', '/dataConsistencyReport/export')).status).toBe(200);
  });
});

describe('exports', () => {
  it('completion: by site, by visit, by form, and the filters', async () => {
    const res = await exportFile('dm', '/visual/report/crfReport/export', { visitCode: 'V1' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('spreadsheetml');
    expect(res.headers.get('content-disposition')).toMatch(/crf-report-\d{8}-\d{4}\.xlsx/);
    const wb = await workbook(res);
    expect(wb.names).toEqual(['By site', 'By visit', 'By form', 'Filters']);
    const bySite = wb.rows('By site');
    expect(bySite[0]).toEqual([
      'Code',
      'Site',
      'Expected forms',
      'Not started',
      'Draft',
      'Completed',
      'Certified',
      'Completed or certified',
      'Completion rate',
    ]);
    expect(bySite.slice(1).map((r) => r.slice(2, 8))).toEqual([
      [6, 3, 1, 1, 1, 2],
      [2, 0, 1, 1, 0, 1],
      [8, 3, 2, 2, 1, 3],
    ]);
    const filters = Object.fromEntries(
      wb
        .rows('Filters')
        .slice(1)
        .map((r) => [r[0], r[1]]),
    );
    expect(filters).toMatchObject({ Visit: 'Screening', Site: 'All', 'Expected forms': 8 });
    const zh = await workbook(await exportFile('dm', '/visual/report/crfReport/export', {}, 'zh_CN'));
    expect(zh.names).toEqual(['按中心', '按访视', '按表单', '筛选条件']);
  });

  it('missing data: every item, by item, the filters', async () => {
    const res = await exportFile('dm', '/visual/report/crfReportMissing/export', {});
    expect(res.status).toBe(200);
    const wb = await workbook(res);
    expect(wb.names).toEqual(['Missing items', 'By item', 'Filters']);
    const rows = wb.rows('Missing items');
    expect(rows[0]!.slice(0, 8)).toEqual([
      'Subject',
      'Site',
      'Visit',
      'Form',
      'Repeat',
      'Form status',
      'Item',
      'Variable',
    ]);
    expect(rows).toHaveLength(1 + 8);
    expect(rows.filter((r) => r[7] === 'PREG').map((r) => [r[3], r[5], r[6]])).toEqual([
      ['Demographics', 'Draft', 'Pregnant'],
    ]);
    expect(wb.rows('By item')[1]).toEqual(['Demographics', 'Date of birth', 'BRTHDTC', 2]);
    // a refused filter is an error answer, not a broken download
    const bad = await exportFile('dm', '/visual/report/crfReportMissing/export', { versionId: 999_999 });
    expect(bad.status).toBe(404);
  });

  it('data consistency: both values and why, in Chinese too', async () => {
    const res = await exportFile('dm', '/dataConsistencyReport/export', {}, 'zh_CN');
    expect(res.status).toBe(200);
    const wb = await workbook(res);
    expect(wb.names).toEqual(['数据一致性', '筛选条件']);
    const rows = wb.rows('数据一致性');
    expect(rows[0]!.slice(0, 3)).toEqual(['受试者', '中心', '访视']);
    const na = rows.find((r) => r[6] === 'NA')!;
    expect([na[7], na[8], na[10], na[14]]).toEqual([138, 140, '预填后被修改', '140']);
    expect(rows).toHaveLength(3);
  });
});
