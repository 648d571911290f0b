/**
 * SDV and SDR over the real API (issue 13 item 1): a monitor verifies every item of a completed form, or the listed
 * ones, or every form of a visit; reviews a form (SDR); a changed value loses its mark and the form is listed again;
 * marks are removed with a reason; drafts are refused; permissions per kind, site scope; the risk level's
 * reproducible share of forms; audited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { MarkView, VerificationPage } from '@esource/shared';
import { auditEvents, sites } from '../src/db/schema';
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
