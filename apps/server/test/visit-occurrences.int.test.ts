import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { sites, subjects, visits } from '../src/db/schema';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
const P = { proId: 1, proType: 'PRO' };
const DAY = 86_400_000;
const day = (n: number) => new Date(Date.now() + n * DAY).toISOString().slice(0, 10);
const today = day(0);
let crc1: string;
let crc2: string;
let dm: string;
let siteA: number;
let siteB: number;
let ptsA: number;
let ptsB: number;
let unsId: number;

type Occ = {
  ptsId: number;
  ptsNo: string;
  siteId: number;
  siteName: string;
  visitId: number;
  unscheduledId: number;
  code: string;
  name: string;
  planned: string;
  start: string;
  end: string;
  state: string;
  formsDone: number;
  formsTotal: number;
};
type Result = { items: Occ[]; truncated: boolean; limit: number };
type Sched = {
  visitId: number;
  unscheduledId: number;
  code: string;
  name: string;
  planned: string | null;
  start: string | null;
  end: string | null;
  state: string;
  forms: { formId: number; code: string; status: number }[];
};

const occurrences = (token: string, json: Record<string, unknown>, lang = 'en_US') =>
  s.api.post<Result>('/project/visits/occurrences', { token, headers: { ...P, language: lang }, json });
const schedule = async (token: string, ptsId: number) => (await s.api.get<Sched[]>('/project/pts/visits', { token, headers: P, query: { ptsId } })).body.data;

beforeAll(async () => {
  s = await startTestServer();
  [crc1, crc2, dm] = await Promise.all([s.api.login('crc1'), s.api.login('crc2'), s.api.login('dm')]);
  const siteOf = async (no: string) =>
    (await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, no))))[0]!.id;
  siteA = await siteOf('01');
  siteB = await siteOf('02');
  const add = async (token: string, siteId: number, firstVisitDate: string) => {
    const r = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token, headers: P, form: { siteId, firstVisitDate } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data.ptsId;
  };
  // day 20 of the study: V1 (day 0) and V2 (14 ±3) are past, V3 (28 −3/+7) is ahead
  ptsA = await add(crc1, siteA, day(-20));
  ptsB = await add(crc2, siteB, day(-12));

  const plan = await schedule(crc1, ptsA);
  const v1 = plan.find((v) => v.code === 'V1')!;
  const formOf = (code: string) => v1.forms.find((f) => f.code === code)!.formId;
  const save = (formId: number, entryMode: number, items: { variable: string; value: unknown }[]) =>
    s.api.post('/crf/form/item/result/saveBatch', { token: crc1, headers: P, json: { ptsId: ptsA, visitId: v1.visitId, formId, entryMode, items } });
  // V1 of subject A done: DM and VS completed
  expect((await save(formOf('DM'), 2, [{ variable: 'SEX', value: '1' }, { variable: 'BRTHDTC', value: '1980-05-01' }])).status).toBe(200);
  const vs = await save(formOf('VS'), 2, [
    { variable: 'VSDTC', value: `${day(-20)} 10:00` },
    { variable: 'SYSBP', value: 120 },
    { variable: 'DIABP', value: 80 },
  ]);
  expect(vs.status, JSON.stringify(vs.body)).toBe(200);

  const [a] = await s.database.db.select().from(subjects).where(eq(subjects.id, ptsA));
  const [uns] = await s.database.db.select().from(visits).where(and(eq(visits.code, 'UNS'), eq(visits.versionId, a!.designVersionId!)));
  unsId = uns!.id;
  const added = await s.api.post<{ id: number }>('/crf/prefill/visit/addOrUpdateUnscheduled', {
    token: crc1,
    headers: P,
    json: { ptsId: ptsA, visitId: unsId, visitDate: day(-1), label: 'fever' },
  });
  expect(added.status, JSON.stringify(added.body)).toBe(200);
  // a draft of one of its forms: not done
  const draft = await s.api.post('/crf/form/item/result/saveBatch', {
    token: crc1,
    headers: P,
    json: { ptsId: ptsA, visitId: unsId, unscheduledId: added.body.data.id, formId: formOf('VS'), entryMode: 0, items: [{ variable: 'SYSBP', value: 130 }] },
  });
  expect(draft.status, JSON.stringify(draft.body)).toBe(200);
});
afterAll(async () => {
  await s?.stop();
});

describe('visit occurrences', () => {
  it('agree with the per-subject schedule: dates, windows, states and forms done', async () => {
    const r = await occurrences(crc1, { from: day(-366), to: day(0) });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const plus = await occurrences(crc1, { from: day(0), to: day(366) });
    const mine = [...r.body.data.items, ...plus.body.data.items].filter((o) => o.ptsId === ptsA);
    const unique = new Map(mine.map((o) => [`${o.visitId}-${o.unscheduledId}`, o]));
    const plan = await schedule(crc1, ptsA);
    expect(unique.size).toBe(plan.length);
    for (const v of plan) {
      const o = unique.get(`${v.visitId}-${v.unscheduledId}`);
      expect(o, v.code).toBeDefined();
      expect(o).toMatchObject({
        code: v.code,
        name: v.name,
        planned: v.planned,
        start: v.start,
        end: v.end,
        state: v.state,
        formsTotal: v.forms.length,
        formsDone: v.forms.filter((f) => f.status >= 2).length,
        siteId: siteA,
        ptsNo: expect.any(String),
      });
    }
    const byCode = Object.fromEntries([...unique.values()].map((o) => [o.code, o]));
    expect(byCode.V1).toMatchObject({ state: 'done', formsDone: 2, formsTotal: 2 });
    expect(byCode.V2).toMatchObject({ state: 'overdue', formsDone: 0 });
    expect(byCode.V3).toMatchObject({ state: 'upcoming' });
    // an unscheduled visit has no window: yesterday's, not done, is open, not overdue
    expect(byCode.UNS).toMatchObject({ planned: day(-1), start: day(-1), end: day(-1), state: 'inWindow', name: expect.stringContaining('fever'), formsDone: 0, formsTotal: 2 });
    expect(byCode.UNS!.unscheduledId).toBeGreaterThan(0);
  });

  it('the task list range (today − 366 … today) returns overdue and in-window visits; states filter', async () => {
    const r = await occurrences(crc1, { from: day(-366), to: today, states: ['overdue', 'inWindow'] });
    const mine = r.body.data.items.filter((o) => o.ptsId === ptsA);
    expect(mine.map((o) => o.code).sort()).toEqual(['UNS', 'V2']);
    expect(r.body.data.items.every((o) => o.state === 'overdue' || o.state === 'inWindow')).toBe(true);
    const done = await occurrences(crc1, { from: day(-366), to: today, states: ['done'] });
    expect(done.body.data.items.map((o) => [o.ptsId, o.code])).toEqual([[ptsA, 'V1']]);
  });

  it('a window overlapping the range is returned; one wholly outside is not', async () => {
    const a = await schedule(crc1, ptsA);
    const v2 = a.find((v) => v.code === 'V2')!;
    const codes = async (from: string, to: string) =>
      (await occurrences(crc1, { from, to, ptsId: ptsA })).body.data.items.map((o) => o.code).sort();
    // only the last day of V2's window
    expect(await codes(v2.end!, v2.end!)).toEqual(['V2']);
    // the day after V2's window and before the unscheduled visit
    const after = new Date(Date.parse(`${v2.end!}T00:00:00Z`) + DAY).toISOString().slice(0, 10);
    expect(await codes(after, after)).toEqual([]);
    expect(await codes(day(-1), day(-1))).toEqual(['UNS']);
  });

  it('site users see only their sites; siteId narrows', async () => {
    const range = { from: day(-300), to: day(60) };
    const c2 = (await occurrences(crc2, range)).body.data.items;
    expect(c2.length).toBeGreaterThan(0);
    expect(c2.every((o) => o.siteId === siteB)).toBe(true);
    expect(c2.some((o) => o.ptsId === ptsA)).toBe(false);
    // asking for another site's subjects gives nothing
    expect((await occurrences(crc2, { ...range, siteId: siteA })).body.data.items).toEqual([]);
    expect((await occurrences(crc2, { ...range, ptsId: ptsA })).body.data.items).toEqual([]);
    const all = (await occurrences(dm, range)).body.data.items;
    expect(new Set(all.map((o) => o.ptsId))).toEqual(new Set([ptsA, ptsB]));
    const onlyB = (await occurrences(dm, { ...range, siteId: siteB })).body.data.items;
    expect(new Set(onlyB.map((o) => o.ptsId))).toEqual(new Set([ptsB]));
    expect(onlyB[0]!.siteName).toBeTruthy();
  });

  it('validates the range with translated messages', async () => {
    const bad = async (json: Record<string, unknown>, lang = 'en_US') => {
      const r = await occurrences(crc1, json, lang);
      expect(r.status).toBe(400);
      return r.body.detail;
    };
    expect(await bad({ from: day(1), to: day(0) })).toEqual([{ field: 'from', message: 'The start time must not be later than the end time' }]);
    expect(await bad({ from: day(-367), to: day(0) })).toEqual([{ field: 'to', message: 'The date range must not exceed 366 days' }]);
    expect(await bad({ from: day(-367), to: day(0) }, 'zh_CN')).toEqual([{ field: 'to', message: '日期跨度不能超过 366 天' }]);
    expect(await bad({ from: '2026-02-30', to: '2026-03-01' })).toEqual([{ field: 'from', message: 'must be a real date from 1900-01-01 to 2100-12-31 (YYYY-MM-DD)' }]);
    expect((await bad({ to: day(0) }))?.[0]?.field).toBe('from');
    expect((await bad({ from: day(0), to: day(1), states: ['late'] }))?.[0]?.field).toMatch(/^states/);
  });

  it('deleted subjects are left out', async () => {
    const c = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: crc1, headers: P, form: { siteId: siteA, firstVisitDate: day(-1) } });
    const ptsC = c.body.data.ptsId;
    const seen = async () => (await occurrences(crc1, { from: day(-30), to: day(30) })).body.data.items.some((o) => o.ptsId === ptsC);
    expect(await seen()).toBe(true);
    const del = await s.api.post('/project/managePts/delete', { token: dm, headers: P, json: { ptsId: ptsC, reason: 'entered twice' } });
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect(await seen()).toBe(false);
  });

  it('returns every subject of a large site (more than 200), in one response', async () => {
    const [a] = await s.database.db.select().from(subjects).where(eq(subjects.id, ptsA));
    await s.database.executeSql(
      `insert into subjects (env, project_id, site_id, pts_no, status, design_version_id, first_visit_date)
       select 'PRO', 1, $1, 'BULK-' || lpad(g::text, 4, '0'), 1, $2, $3::date from generate_series(1, 250) g`,
      [siteA, a!.designVersionId, day(-14)],
    );
    const r = await occurrences(crc1, { from: today, to: today });
    const bulk = r.body.data.items.filter((o) => o.ptsNo.startsWith('BULK-'));
    // V2 (day 14 ± 3) of each is in window today
    expect(bulk.length).toBe(250);
    expect(new Set(bulk.map((o) => o.ptsId)).size).toBe(250);
    expect(bulk.every((o) => o.code === 'V2' && o.state === 'inWindow' && o.formsTotal === 6)).toBe(true);
    expect(r.body.data.truncated).toBe(false);
    // sorted by planned date, then subject number
    const keys = r.body.data.items.map((o) => `${o.planned} ${o.ptsNo}`);
    expect(keys).toEqual([...keys].sort());
  });

  it('caps the result and says so, in one statement', async () => {
    const { VisitOccurrencesService } = await import('../src/modules/ecrf/visit-occurrences');
    const small = new VisitOccurrencesService(s.database.db, 10);
    const ctx = {
      env: 'PRO',
      language: 'en_US',
      project: { id: 1, siteIds: null },
      siteId: null,
      pms: new Set<string>(),
    } as unknown as Parameters<typeof small.list>[0];
    const spy = vi.spyOn(s.database.db, 'execute');
    const r = await small.list(ctx, { from: day(-300), to: day(60) });
    expect(r.items.length).toBe(10);
    expect(r).toMatchObject({ truncated: true, limit: 10 });
    // one statement for 250+ subjects: no query per subject
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });
});
