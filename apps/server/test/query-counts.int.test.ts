/**
 * Query counts on the subject list and on a subject's visits over the real API (issue 13 item 2: "query markers and
 * counts on the form, the visit and the subject list"): open and replied queries per subject of the page and per visit
 * occurrence, closed ones not counted; only in the caller's sites (another site's subject is never counted, nor
 * reached); no counts for a caller who may not read queries; the query list filtered the way the counts link to it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { QueryDetail, QueryPage, SubjectListRow, VisitQueryTally } from '@esource/shared';
import { sites } from '../src/db/schema';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};
let siteA = 0;
let siteB = 0;
/** site A: a1 with queries, a2 without; site B: b1 with one */
const pts = { a1: 0, a2: 0, b1: 0 };
let v1 = 0;
let v2 = 0;
let vsForm = 0;
type Sched = { visitId: number; code: string; forms: { formId: number; code: string }[] };
type Page = { totalCount: number; content: SubjectListRow[] };

const enrol = async (who: string, siteId: number) => {
  const r = await s.api.post<{ ptsId: number }>('/project/managePts/add', {
    token: tok[who],
    headers: H,
    form: { siteId, firstVisitDate: '2026-11-01' },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.ptsId;
};
const raise = async (body: Record<string, unknown>) => {
  const r = await s.api.post<QueryDetail>('/crf/query/add', { token: tok.cra, headers: H, json: body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data;
};
const act = async (q: QueryDetail, who: string, action: 'reply' | 'close', text: string) => {
  const r = await s.api.post<QueryDetail>('/crf/query/update', {
    token: tok[who],
    headers: H,
    json: { id: q.id, version: q.version, action, text },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data;
};
const list = (who: string, headers: Record<string, string | number> = H, url = '/project/manage/ptsList') =>
  s.api.post<Page>(url, { token: tok[who], headers, form: { pageSize: 200 } });
const tallyOf = (p: Page, ptsId: number) => p.content.find((r) => r.ptsId === ptsId)?.queries;
const visits = (who: string, ptsId: number) =>
  s.api.get<VisitQueryTally[]>('/project/pts/visitQueries', {
    token: tok[who],
    headers: H,
    query: { ptsId },
  });

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['crc1', 'crc2', 'cra', 'dm', 'pi', 'ae']) tok[a] = await s.api.login(a);
  const rows = await s.database.db
    .select()
    .from(sites)
    .where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO')));
  siteA = rows.find((r) => r.siteNo === '01')!.id;
  siteB = rows.find((r) => r.siteNo === '02')!.id;
  pts.a1 = await enrol('crc1', siteA);
  pts.a2 = await enrol('crc1', siteA);
  pts.b1 = await enrol('crc2', siteB);
  const sched = await s.api.get<Sched[]>('/project/pts/visits', {
    token: tok.crc1,
    headers: H,
    query: { ptsId: pts.a1 },
  });
  v1 = sched.body.data.find((v) => v.code === 'V1')!.visitId;
  v2 = sched.body.data.find((v) => v.code === 'V2')!.visitId;
  vsForm = sched.body.data.find((v) => v.code === 'V1')!.forms.find((f) => f.code === 'VS')!.formId;
  const saved = await s.api.post('/crf/form/item/result/saveBatch', {
    token: tok.crc1,
    headers: H,
    json: {
      ptsId: pts.a1,
      visitId: v1,
      formId: vsForm,
      entryMode: 2,
      items: [
        { variable: 'VSDTC', value: '2026-11-02 09:30' },
        { variable: 'SYSBP', value: 128 },
        { variable: 'DIABP', value: 82 },
        { variable: 'HR', value: 72 },
      ],
    },
  });
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  // a1: V1 one open (SYSBP) and one replied (DIABP); V2 one open on the visit; one on the subject itself (open); one closed
  await raise({
    ptsId: pts.a1,
    visitId: v1,
    formId: vsForm,
    variable: 'SYSBP',
    text: 'Please check the systolic pressure.',
  });
  await act(
    await raise({
      ptsId: pts.a1,
      visitId: v1,
      formId: vsForm,
      variable: 'DIABP',
      text: 'Please check the diastolic pressure.',
    }),
    'crc1',
    'reply',
    'Checked, as in the source.',
  );
  await raise({ ptsId: pts.a1, visitId: v2, text: 'Was this visit done in its window?' });
  await raise({ ptsId: pts.a1, text: 'Consent date missing in the source.' });
  await act(
    await raise({ ptsId: pts.a1, visitId: v1, formId: vsForm, variable: 'HR', text: 'Heart rate?' }),
    'cra',
    'close',
    'Raised by mistake.',
  );
  // b1 (site B): two open ones
  await raise({ ptsId: pts.b1, text: 'Enrolment date?' });
  await raise({ ptsId: pts.b1, text: 'Initials?' });
});
afterAll(async () => {
  await s?.stop();
});

describe('query counts on the subject list', () => {
  it("counts each subject's open and replied queries (closed not), zero for one without", async () => {
    const r = await list('crc1');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(tallyOf(r.body.data, pts.a1)).toEqual({ open: 3, replied: 1 });
    expect(tallyOf(r.body.data, pts.a2)).toEqual({ open: 0, replied: 0 });
    // the central list of the monitor counts the same
    const cra = await list('cra', H, '/project/manage/centerPtsPageQuery');
    expect(tallyOf(cra.body.data, pts.a1)).toEqual({ open: 3, replied: 1 });
    expect(tallyOf(cra.body.data, pts.b1)).toEqual({ open: 2, replied: 0 });
  });

  it("never counts another site's subject: not listed, and its queries in no one else's counts", async () => {
    const a = (await list('crc1')).body.data;
    expect(a.content.some((r) => r.ptsId === pts.b1)).toBe(false);
    // the site A coordinator's counts add up to site A's queries only
    const sum = a.content.reduce((n, r) => n + (r.queries?.open ?? 0) + (r.queries?.replied ?? 0), 0);
    expect(sum).toBe(4);
    const b = (await list('crc2')).body.data;
    expect(b.content.some((r) => r.ptsId === pts.a1)).toBe(false);
    expect(tallyOf(b, pts.b1)).toEqual({ open: 2, replied: 0 });
    // a central user working in site A (proSiteId) is narrowed the same way
    const narrowed = (await list('dm', { ...H, proSiteId: siteA })).body.data;
    expect(narrowed.content.some((r) => r.ptsId === pts.b1)).toBe(false);
    expect(tallyOf(narrowed, pts.a1)).toEqual({ open: 3, replied: 1 });
    // and the other site's visits are not reached
    expect((await visits('crc1', pts.b1)).status).toBe(404);
  });

  it('gives no counts to a caller who may not read queries', async () => {
    const r = await list('ae');
    expect(r.status).toBe(200);
    expect(r.body.data.content.length).toBeGreaterThan(0);
    for (const row of r.body.data.content) expect(row.queries).toBeNull();
    expect((await visits('ae', pts.a1)).status).toBe(403);
  });

  it('follows a change: a closed query leaves the count, a reopened one comes back', async () => {
    const q = await raise({ ptsId: pts.a2, visitId: v1, text: 'Visit date?' });
    expect(tallyOf((await list('crc1')).body.data, pts.a2)).toEqual({ open: 1, replied: 0 });
    const closed = await act(q, 'cra', 'close', 'Found it.');
    expect(tallyOf((await list('crc1')).body.data, pts.a2)).toEqual({ open: 0, replied: 0 });
    const reopened = await s.api.post('/crf/query/update', {
      token: tok.cra,
      headers: H,
      json: { id: q.id, version: closed.version, action: 'reopen', text: 'Not the right date after all.' },
    });
    expect(reopened.status).toBe(200);
    expect(tallyOf((await list('crc1')).body.data, pts.a2)).toEqual({ open: 1, replied: 0 });
  });
});

describe("query counts on a subject's visits", () => {
  it('counts per visit occurrence (queries on the subject itself belong to no visit)', async () => {
    const r = await visits('crc1', pts.a1);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toEqual([
      { visitId: v1, unscheduledId: 0, open: 1, replied: 1 },
      { visitId: v2, unscheduledId: 0, open: 1, replied: 0 },
    ]);
    expect((await visits('pi', pts.a1)).body.data).toEqual(r.body.data);
  });

  it('links to a query list filtered by subject and visit that shows what was counted', async () => {
    const q = (body: Record<string, unknown>) =>
      s.api.post<QueryPage>('/crf/query/list', {
        token: tok.crc1,
        headers: H,
        json: { pageSize: 50, ...body },
      });
    const open = await q({ ptsId: pts.a1, visitId: v1, unscheduledId: 0, status: 1 });
    expect(open.status, JSON.stringify(open.body)).toBe(200);
    expect(open.body.data.content.map((x) => x.variable)).toEqual(['SYSBP']);
    expect((await q({ ptsId: pts.a1, visitId: v1, unscheduledId: 0, status: 2 })).body.data.totalCount).toBe(
      1,
    );
    expect((await q({ ptsId: pts.a1, status: 1 })).body.data.totalCount).toBe(3);
    // an unscheduled occurrence the subject does not have: nothing
    expect((await q({ ptsId: pts.a1, visitId: v1, unscheduledId: 5, status: 1 })).body.data.totalCount).toBe(
      0,
    );
    expect((await q({ ptsId: pts.a1, unscheduledId: -1 })).status).toBe(400);
  });
});
