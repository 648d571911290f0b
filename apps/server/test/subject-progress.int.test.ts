/**
 * Current visit and form progress (issue 5, subject list columns): kept in the transaction of every eCRF change,
 * read by the list, and filterable by visit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { sites, subjects, visits } from '../src/db/schema';
import { DEMO_PASSWORD, sha256Hex, startTestServer, type TestServer } from './harness';

let s: TestServer;
const P = { proId: 1, proType: 'PRO' };
let crc1: string;
let ptsId: number;
type Row = { ptsId: number; currentVisitId: number | null; currentVisitName: string | null; formsDone: number; formsTotal: number };
type Sched = { visitId: number; code: string; forms: { formId: number; code: string }[] };
let plan: Record<string, Sched>;
let dmVersion = 0;

const row = async () => (await s.api.get<Row>('/project/manage/getPtsByProIdAndPtsId', { token: crc1, headers: P, query: { ptsId } })).body.data;
const list = async (body: Record<string, unknown>) =>
  (await s.api.post<{ totalCount: number; content: Row[] }>('/project/manage/ptsList', { token: crc1, headers: P, json: { pageSize: 200, ...body } })).body.data;
const save = (visit: string, form: string, body: Record<string, unknown>) =>
  s.api.post<{ instance: { id: number; version: number } }>('/crf/form/item/result/saveBatch', {
    token: crc1,
    headers: P,
    json: { ptsId, visitId: plan[visit]!.visitId, formId: plan[visit]!.forms.find((f) => f.code === form)!.formId, ...body },
  });

beforeAll(async () => {
  s = await startTestServer();
  crc1 = await s.api.login('crc1');
  const [siteA] = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  const r = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: crc1, headers: P, form: { siteId: siteA!.id, firstVisitDate: '2026-11-01' } });
  ptsId = r.body.data.ptsId;
  const sched = await s.api.get<Sched[]>('/project/pts/visits', { token: crc1, headers: P, query: { ptsId } });
  plan = Object.fromEntries(sched.body.data.map((v) => [v.code, v]));
});
afterAll(async () => {
  await s?.stop();
});

describe('current visit and form progress', () => {
  it('a new subject is at its first visit with every planned visit × form pair expected', async () => {
    // demo plan: V1 DM+VS, V2 VS+AE, V3 VS+LB+AE
    expect(await row()).toMatchObject({ currentVisitId: plan.V1!.visitId, currentVisitName: '筛选访视', formsDone: 0, formsTotal: 15 });
  });

  it('a draft does not count; a completed form does; the visit moves on when all its forms are completed', async () => {
    const draft = await save('V1', 'DM', { entryMode: 0, items: [{ variable: 'SEX', value: '1' }] });
    expect(draft.status, JSON.stringify(draft.body)).toBe(200);
    expect(await row()).toMatchObject({ formsDone: 0, currentVisitId: plan.V1!.visitId });
    const dm = await save('V1', 'DM', { entryMode: 2, version: 1, items: [{ variable: 'BRTHDTC', value: '1980-05-01' }] });
    expect(dm.status, JSON.stringify(dm.body)).toBe(200);
    dmVersion = dm.body.data.instance.version;
    expect(await row()).toMatchObject({ formsDone: 1, currentVisitId: plan.V1!.visitId });
    const vs = await save('V1', 'VS', { entryMode: 2, items: [{ variable: 'VSDTC', value: '2026-11-01 09:30' }, { variable: 'SYSBP', value: 120 }, { variable: 'DIABP', value: 80 }] });
    expect(vs.status, JSON.stringify(vs.body)).toBe(200);
    expect(await row()).toMatchObject({ formsDone: 2, formsTotal: 15, currentVisitId: plan.V2!.visitId });
  });

  it('the list shows the columns and filters by current visit', async () => {
    const atV2 = await list({ visitId: plan.V2!.visitId });
    expect(atV2.content.map((r) => r.ptsId)).toContain(ptsId);
    expect(atV2.totalCount).toBe(atV2.content.length);
    const atV1 = await list({ visitId: plan.V1!.visitId });
    expect(atV1.content.map((r) => r.ptsId)).not.toContain(ptsId);
    expect(atV2.content.find((r) => r.ptsId === ptsId)).toMatchObject({ formsDone: 2, formsTotal: 15, currentVisitName: '第 2 周' });
  });

  it('certifying keeps the form done; an unscheduled visit adds its forms to what is expected', async () => {
    const pi = await s.api.login('pi');
    const dmInst = (await save('V1', 'DM', { entryMode: 2, version: dmVersion, items: [] })).body.data.instance;
    const cert = await s.api.post('/crf/report/check', { token: pi, headers: P, json: { instanceId: dmInst.id, version: dmInst.version, password: sha256Hex(DEMO_PASSWORD) } });
    expect(cert.status, JSON.stringify(cert.body)).toBe(200);
    expect(await row()).toMatchObject({ formsDone: 2, currentVisitId: plan.V2!.visitId });
    const [uns] = await s.database.db
      .select()
      .from(visits)
      .where(and(eq(visits.code, 'UNS'), eq(visits.versionId, (await s.database.db.select().from(subjects).where(eq(subjects.id, ptsId)))[0]!.designVersionId!)));
    const added = await s.api.post('/crf/prefill/visit/addOrUpdateUnscheduled', { token: crc1, headers: P, json: { ptsId, visitId: uns!.id, visitDate: '2026-11-10' } });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    // UNS has VS and AE; the current visit stays a planned one
    expect(await row()).toMatchObject({ formsTotal: 17, formsDone: 2, currentVisitId: plan.V2!.visitId });
  });

  it('list totals come from counters that agree with the subjects table after every kind of change', async () => {
    const dm = await s.api.login('dm');
    const before = await list({});
    const del = await s.api.post('/project/managePts/delete', { token: dm, headers: P, json: { ptsId, reason: 'entered twice' } });
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect((await list({})).totalCount).toBe(before.totalCount - 1);
    expect((await list({ visitId: plan.V2!.visitId })).totalCount).toBe(0);
    const bin = await s.api.post<{ totalCount: number; content: (Row & { deleteReason: string | null })[] }>('/project/failedPts/list', { token: crc1, headers: P, json: {} });
    expect(bin.body.data.totalCount).toBe(bin.body.data.content.length);
    expect(bin.body.data.content.find((r) => r.ptsId === ptsId)?.deleteReason).toBe('entered twice');
    const restored = await s.api.post('/project/failedPts/restore', { token: dm, headers: P, json: { ptsId, reason: 'not a duplicate' } });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect((await list({ visitId: plan.V2!.visitId })).totalCount).toBe(1);
    expect(await row()).toMatchObject({ deleteReason: null });
    const mismatches = await s.database.executeSql(`
      (select project_id, env, site_id, status, coalesce(current_visit_id, 0) as visit_id, count(*)::int as n from subjects group by 1, 2, 3, 4, 5
       except select project_id, env, site_id, status, visit_id, n from subject_counts where n <> 0)
      union all
      (select project_id, env, site_id, status, visit_id, n from subject_counts where n <> 0
       except select project_id, env, site_id, status, coalesce(current_visit_id, 0), count(*)::int from subjects group by 1, 2, 3, 4, 5)`);
    expect(mismatches.rows).toEqual([]);
    // a filter the counters do not hold is counted exactly
    const byKeyword = await list({ keyword: 'zzz-none' });
    expect(byKeyword.totalCount).toBe(0);
  });
});
