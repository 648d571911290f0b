/**
 * SDV and SDR over the real API (issue 13 item 1): a monitor verifies every item of a completed form, or the listed
 * ones, or every form of a visit; reviews a form (SDR); a changed value loses its mark and the form is listed again;
 * marks are removed with a reason; drafts are refused; permissions per kind, site scope; the risk level's
 * reproducible share of forms, and a subject's own level overriding its site's; audited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray, sql } from 'drizzle-orm';
import { SDV_SHARE, type MarkView, type SubjectRow, type VerificationPage } from '@esource/shared';
import { auditEvents, crfInstances, sites, subjects } from '../src/db/schema';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};
let siteA = 0;
let ptsId = 0;
let v1 = 0;
let vsForm = 0;
let dmForm = 0;
let vs = 0;
let dm = 0;
type View = { instance: { id: number; status: number; version: number } | null };
type Sched = { visitId: number; code: string; forms: { formId: number; code: string }[] };

const mark = (body: Record<string, unknown>, who = 'cra') => s.api.post<{ marked: number; already: number }>('/crf/report/saveItemMark', { token: tok[who], headers: H, json: body });
const marks = (instanceId: number, who = 'cra') => s.api.get<MarkView[]>('/crf/report/marks', { token: tok[who], headers: H, query: { instanceId } });
const page = (body: Record<string, unknown> = {}, who = 'cra') => s.api.post<VerificationPage>('/verification/page', { token: tok[who], headers: H, json: { pageSize: 200, ...body } });
const save = (formId: number, entryMode: number, items: { variable: string; value: unknown; reason?: string }[], version?: number) =>
  s.api.post<View>('/crf/form/item/result/saveBatch', { token: tok.crc1, headers: H, json: { ptsId, visitId: v1, formId, entryMode, ...(version ? { version } : {}), items } });

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['crc1', 'crc2', 'cra', 'dm', 'pi']) tok[a] = await s.api.login(a);
  const [a] = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  siteA = a!.id;
  const r = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: tok.crc1, headers: H, form: { siteId: siteA, firstVisitDate: '2026-11-01' } });
  ptsId = r.body.data.ptsId;
  const sched = await s.api.get<Sched[]>('/project/pts/visits', { token: tok.crc1, headers: H, query: { ptsId } });
  const screening = sched.body.data.find((v) => v.code === 'V1')!;
  v1 = screening.visitId;
  vsForm = screening.forms.find((f) => f.code === 'VS')!.formId;
  dmForm = screening.forms.find((f) => f.code === 'DM')!.formId;
  const a1 = await save(vsForm, 2, [
    { variable: 'VSDTC', value: '2026-11-02 09:30' },
    { variable: 'SYSBP', value: 128 },
    { variable: 'DIABP', value: 82 },
    { variable: 'HR', value: 72 },
  ]);
  expect(a1.status, JSON.stringify(a1.body)).toBe(200);
  vs = a1.body.data.instance!.id;
  // a draft form
  const d = await save(dmForm, 0, [{ variable: 'SEX', value: '1' }]);
  expect(d.status, JSON.stringify(d.body)).toBe(200);
  dm = d.body.data.instance!.id;
});
afterAll(async () => {
  await s?.stop();
});

describe('SDV and SDR marks', () => {
  it('verifies every item of a completed form once; refuses a draft and other roles', async () => {
    const r = await mark({ kind: 'sdv', instanceIds: [vs] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toEqual({ marked: 4, already: 0 });
    const again = await mark({ kind: 'sdv', instanceIds: [vs] });
    expect(again.body.data).toEqual({ marked: 0, already: 4 });
    const draft = await mark({ kind: 'sdv', instanceIds: [vs, dm] });
    expect(draft.status).toBe(409);
    expect(draft.body.errorCode).toBe('VERIFY_NOT_COMPLETED');
    expect(draft.body.message).toContain('Demographics');
    expect((await mark({ kind: 'sdv', instanceIds: [vs] }, 'crc1')).status).toBe(403);
    expect((await mark({ kind: 'sdv', instanceIds: [vs] }, 'pi')).status).toBe(403);
    const unknown = await mark({ kind: 'sdv', instanceIds: [vs], variables: ['WEIGHT'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.detail?.[0]?.field).toBe('variables.0');
    const sdr = await mark({ kind: 'sdr', instanceIds: [vs] });
    expect(sdr.body.data).toEqual({ marked: 1, already: 0 });
    const m = (await marks(vs)).body.data;
    expect(m.filter((x) => x.kind === 'sdv' && x.status === 1).map((x) => x.variable).sort()).toEqual(['DIABP', 'HR', 'SYSBP', 'VSDTC']);
    expect(m.find((x) => x.variable === 'SYSBP')).toMatchObject({ value: 128, markedBy: 'Chris Monitor' });
    const [audit] = await s.database.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'verification.sdv'), eq(auditEvents.entityId, String(vs))));
    expect(audit).toBeDefined();
    // the other site's coordinator reaches nothing of it
    expect((await marks(vs, 'crc2')).status).toBe(403);
  });

  it('verifying the same form twice at once leaves one mark per item', async () => {
    const removeAll = (await marks(vs)).body.data.filter((m) => m.kind === 'sdv' && m.status === 1).map((m) => m.id);
    await s.api.post('/crf/report/deleteItemMark', { token: tok.cra, headers: H, json: { ids: removeAll, reason: 'Re-verify in parallel' } });
    const rs = await Promise.all([mark({ kind: 'sdv', instanceIds: [vs] }), mark({ kind: 'sdv', instanceIds: [vs] })]);
    for (const r of rs) expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(rs.reduce((n, r) => n + r.body.data.marked, 0)).toBe(4);
    expect((await marks(vs)).body.data.filter((m) => m.kind === 'sdv' && m.status === 1)).toHaveLength(4);
  });

  it('lists the form as done, and again once a verified value changes (its mark and the SDR are lost)', async () => {
    const res = await page({ ptsNo: '', state: 'all', requiredOnly: false });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const before = res.body.data.content.find((r) => r.instanceId === vs)!;
    expect(before).toMatchObject({ items: 4, verified: 4, lost: 0, reviewed: true });
    const view = await s.api.get<View>('/crf/form/item/result/list', { token: tok.crc1, headers: H, query: { ptsId, visitId: v1, formId: vsForm } });
    const changed = await save(vsForm, 2, [{ variable: 'SYSBP', value: 138, reason: 'Transcription error' }], view.body.data.instance!.version);
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    const after = (await page({ state: 'remaining', requiredOnly: false })).body.data.content.find((r) => r.instanceId === vs)!;
    expect(after).toMatchObject({ items: 4, verified: 3, lost: 1, reviewed: false });
    const m = (await marks(vs)).body.data;
    expect(m.find((x) => x.variable === 'SYSBP')).toMatchObject({ status: 2, value: 128 });
    // verified again: no longer lost
    expect((await mark({ kind: 'sdv', instanceIds: [vs], variables: ['SYSBP'] })).body.data).toEqual({ marked: 1, already: 0 });
    const again = (await page({ state: 'all', requiredOnly: false })).body.data.content.find((r) => r.instanceId === vs)!;
    expect(again).toMatchObject({ verified: 4, lost: 0 });
  });

  it('removes a mark with a reason; a removed mark cannot be removed again', async () => {
    const m = (await marks(vs)).body.data.find((x) => x.variable === 'HR' && x.status === 1)!;
    expect((await s.api.post('/crf/report/deleteItemMark', { token: tok.cra, headers: H, json: { ids: [m.id], reason: ' ' } })).status).toBe(400);
    expect((await s.api.post('/crf/report/deleteItemMark', { token: tok.crc1, headers: H, json: { ids: [m.id], reason: 'x' } })).status).toBe(403);
    const r = await s.api.post<{ removed: number }>('/crf/report/deleteItemMark', { token: tok.cra, headers: H, json: { ids: [m.id], reason: 'Verified against the wrong report' } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const twice = await s.api.post('/crf/report/deleteItemMark', { token: tok.cra, headers: H, json: { ids: [m.id], reason: 'again' } });
    expect(twice.status).toBe(409);
    expect(twice.body.errorCode).toBe('VERIFY_MARK_ENDED');
    const [audit] = await s.database.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'verification.remove'), eq(auditEvents.entityId, String(m.id))));
    expect(audit?.reason).toBe('Verified against the wrong report');
  });

  it("the site's risk level selects a reproducible share of forms; only who manages sites sets it", async () => {
    expect((await s.api.post('/verification/risk', { token: tok.cra, headers: H, json: { siteId: siteA, riskLevel: 1 } })).status).toBe(403);
    const high = await s.api.post('/verification/risk', { token: tok.dm, headers: H, json: { siteId: siteA, riskLevel: 1 } });
    expect(high.status, JSON.stringify(high.body)).toBe(200);
    const all = (await page({ state: 'all', requiredOnly: true })).body.data;
    expect(all.content.filter((r) => r.siteId === siteA).every((r) => r.required)).toBe(true);
    expect(all.content.some((r) => r.instanceId === vs)).toBe(true);
    expect((await s.api.post('/verification/risk', { token: tok.dm, headers: H, json: { siteId: siteA, riskLevel: 4 } })).status).toBe(400);
    await s.api.post('/verification/risk', { token: tok.dm, headers: H, json: { siteId: siteA, riskLevel: 3 } });
    const low1 = (await page({ state: 'all', requiredOnly: true })).body.data.content.map((r) => r.instanceId);
    const low2 = (await page({ state: 'all', requiredOnly: true })).body.data.content.map((r) => r.instanceId);
    expect(low1).toEqual(low2);
    // a form a monitor has started verifying stays in scope whatever the sample
    expect(low1).toContain(vs);
    const summary = (await page({ state: 'all', requiredOnly: false })).body.data.summary;
    expect(summary.items).toBeGreaterThanOrEqual(4);
    expect(summary.forms).toBeGreaterThanOrEqual(1);
  });
});

describe("a subject's own risk level (overrides its site's for its forms)", () => {
  let p = 0;
  let pNo = '';
  let other = 0;
  let q = 0;
  let siteB = 0;
  const risk = (body: Record<string, unknown>, who = 'dm', headers: Record<string, string | number> = H) => s.api.post<null>('/verification/subjectRisk', { token: tok[who], headers, json: body });
  const siteRisk = async (siteId: number, riskLevel: number) => expect((await s.api.post('/verification/risk', { token: tok.dm, headers: H, json: { siteId, riskLevel } })).status).toBe(200);
  /** the subject's rows of the list, every form (not only the required ones) */
  const rowsOf = async (id: number) => (await page({ state: 'all', requiredOnly: false }, 'dm')).body.data.content.filter((r) => r.ptsId === id);
  /** the sample's own rule, computed by the database: the form's hash below the level's share */
  const sampled = async (ids: number[], share: number) => {
    const r = await s.database.db
      .select({ id: crfInstances.id })
      .from(crfInstances)
      .where(and(inArray(crfInstances.id, ids), sql`(abs(hashtext('sdv:' || ${crfInstances.id}::text)) % 100) < ${share}`));
    return new Set(r.map((x) => x.id));
  };
  /** a subject at site A with the vital signs of V1, V2 and V3 completed (three forms) */
  const enrolWithForms = async () => {
    const r = await s.api.post<{ ptsId: number; ptsNo: string }>('/project/managePts/add', { token: tok.crc1, headers: H, form: { siteId: siteA, firstVisitDate: '2026-11-01' } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const sched = await s.api.get<Sched[]>('/project/pts/visits', { token: tok.crc1, headers: H, query: { ptsId: r.body.data.ptsId } });
    for (const code of ['V1', 'V2', 'V3']) {
      const v = sched.body.data.find((x) => x.code === code)!;
      const formId = v.forms.find((f) => f.code === 'VS')!.formId;
      const saved = await s.api.post<View>('/crf/form/item/result/saveBatch', {
        token: tok.crc1,
        headers: H,
        json: { ptsId: r.body.data.ptsId, visitId: v.visitId, formId, entryMode: 2, items: [{ variable: 'VSDTC', value: '2026-11-02 09:30' }, { variable: 'SYSBP', value: 120 }, { variable: 'DIABP', value: 80 }, { variable: 'HR', value: 70 }] },
      });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    }
    return r.body.data;
  };

  beforeAll(async () => {
    ({ ptsId: p, ptsNo: pNo } = await enrolWithForms());
    ({ ptsId: other } = await enrolWithForms());
    const [b] = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '02')));
    siteB = b!.id;
    const r = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: tok.crc2, headers: H, form: { siteId: siteB, firstVisitDate: '2026-11-01' } });
    q = r.body.data.ptsId;
  });

  it('site middle, subject high: every form of the subject needs SDV; the site’s other subjects keep the sample', async () => {
    await siteRisk(siteA, 2);
    const set = await risk({ ptsId: p, riskLevel: 1 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const mine = await rowsOf(p);
    expect(mine).toHaveLength(3);
    for (const r of mine) expect(r).toMatchObject({ required: true, riskLevel: 1, subjectRiskLevel: 1 });
    const required = (await page({ state: 'all', requiredOnly: true }, 'dm')).body.data.content.filter((r) => r.ptsId === p);
    expect(required).toHaveLength(3);
    // a subject without a level of its own: the site's middle sample, the same rule
    const theirs = await rowsOf(other);
    const expected = await sampled(theirs.map((r) => r.instanceId), SDV_SHARE[2]!);
    for (const r of theirs) expect(r, String(r.instanceId)).toMatchObject({ riskLevel: 2, subjectRiskLevel: null, required: expected.has(r.instanceId) });
    // the detail of the subject carries both levels (the header's tag)
    const one = await s.api.get<SubjectRow>('/project/manage/getPtsByProIdAndPtsId', { token: tok.dm, headers: H, query: { ptsId: p } });
    expect(one.body.data).toMatchObject({ riskLevel: 1, siteRiskLevel: 2 });
  });

  it('subject low on a high site: only the low sample of its forms, reproducibly; audited with old, new and reason', async () => {
    await siteRisk(siteA, 1);
    expect((await risk({ ptsId: p, riskLevel: 3, reason: 'Few data points, stable site' })).status).toBe(200);
    const mine = await rowsOf(p);
    const expected = await sampled(mine.map((r) => r.instanceId), SDV_SHARE[3]!);
    // a sample, not all (a fresh database numbers these forms the same way every run)
    expect(expected.size).toBeLessThan(mine.length);
    for (const r of mine) expect(r, String(r.instanceId)).toMatchObject({ riskLevel: 3, subjectRiskLevel: 3, required: expected.has(r.instanceId) });
    expect((await rowsOf(p)).map((r) => r.required)).toEqual(mine.map((r) => r.required));
    // "what remains" and the totals follow the same selection
    const remaining = (await page({ state: 'remaining', requiredOnly: true }, 'dm')).body.data.content.filter((r) => r.ptsId === p);
    expect(remaining.map((r) => r.instanceId).sort()).toEqual([...expected].sort());
    // the site's other subject: the site's high level, every form
    for (const r of await rowsOf(other)) expect(r).toMatchObject({ riskLevel: 1, required: true });
    const audits = await s.database.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'verification.subjectRisk'), eq(auditEvents.entityId, String(p))));
    expect(audits.map((a) => [a.oldValue, a.newValue])).toEqual([
      [null, '1'],
      ['1', '3'],
    ]);
    expect(audits[1]).toMatchObject({ field: 'riskLevel', reason: 'Few data points, stable site', subjectId: p, siteId: siteA });
    // listed in the risk drawer
    const list = await s.api.get<{ ptsId: number; ptsNo: string; riskLevel: number; siteRiskLevel: number }[]>('/verification/subjectRisk/list', { token: tok.dm, headers: H });
    expect(list.body.data).toContainEqual(expect.objectContaining({ ptsId: p, ptsNo: pNo, riskLevel: 3, siteRiskLevel: 1 }));
    expect(list.body.data.some((r) => r.ptsId === other)).toBe(false);
  });

  it("null inherits the site's level again; the same level twice changes nothing", async () => {
    expect((await risk({ ptsId: p, riskLevel: null })).status).toBe(200);
    for (const r of await rowsOf(p)) expect(r).toMatchObject({ riskLevel: 1, subjectRiskLevel: null, required: true });
    expect((await risk({ ptsId: p, riskLevel: null })).status).toBe(200);
    const audits = await s.database.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'verification.subjectRisk'), eq(auditEvents.entityId, String(p))));
    expect(audits.map((a) => [a.oldValue, a.newValue])).toEqual([
      [null, '1'],
      ['1', '3'],
      ['3', null],
    ]);
    const list = await s.api.get<{ ptsId: number }[]>('/verification/subjectRisk/list', { token: tok.dm, headers: H });
    expect(list.body.data.some((r) => r.ptsId === p)).toBe(false);
  });

  it('only who sets site risk levels sets it; bad levels are named; another site’s subject is refused', async () => {
    expect((await risk({ ptsId: p, riskLevel: 1 }, 'cra')).status).toBe(403);
    expect((await risk({ ptsId: p, riskLevel: 1 }, 'crc1')).status).toBe(403);
    expect((await s.api.get('/verification/subjectRisk/list', { token: tok.cra, headers: H })).status).toBe(403);
    const bad = await risk({ ptsId: p, riskLevel: 4 });
    expect(bad.status).toBe(400);
    expect(bad.body.detail?.[0]?.field).toBe('riskLevel');
    const missing = await risk({ ptsId: p });
    expect(missing.status).toBe(400);
    expect(missing.body.detail?.[0]?.field).toBe('riskLevel');
    // the data manager working in site A (proSiteId) does not reach site B's subject
    const foreign = await risk({ ptsId: q, riskLevel: 1 }, 'dm', { ...H, proSiteId: siteA });
    expect(foreign.status).toBe(404);
    expect(foreign.body.errorCode).toBe('NOT_FOUND');
    const [row] = await s.database.db.select({ riskLevel: subjects.riskLevel }).from(subjects).where(eq(subjects.id, q));
    expect(row?.riskLevel).toBeNull();
    // nor does the narrowed list show it
    const narrowed = await s.api.get<{ ptsId: number }[]>('/verification/subjectRisk/list', { token: tok.dm, headers: { ...H, proSiteId: siteA } });
    expect(narrowed.status).toBe(200);
    // a subject in the recycle bin is not reachable either
    await s.api.post('/project/managePts/delete', { token: tok.crc2, headers: H, form: { ptsId: q, reason: 'Entered twice' } });
    expect((await risk({ ptsId: q, riskLevel: 1 })).status).toBe(404);
  });
});
