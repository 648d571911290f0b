/**
 * EDC sync of kind 1 (CDISC ODM 1.3.2 over HTTP, Rave Web Services style) against the demo EDC — a strict receiver
 * holding the demo study's definition, where body weight is a whole number: auto-mapping the demo design leaves
 * nothing to fix, a sync sends the completed forms, a weight of 72.5 is refused with the EDC's own reason while the
 * rest is synced, and once corrected it syncs; the log has both attempts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { EdcLogRow, EdcMappingView, EdcRunView } from '@esource/shared';
import { edcSyncRuns, sites, subjects } from '../src/db/schema';
import { DEMO_EDC, startDemoEdc } from '../src/modules/edc/demo-edc';
import type { RaveReceiver } from '../src/modules/edc/receivers/rave-receiver';
import { startTestServer, waitFor, type TestServer } from './harness';

let s: TestServer;
let edc: RaveReceiver;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};
let ptsId = 0;
let ptsNo = '';
type Sched = { code: string; visitId: number; forms: { code: string; formId: number }[] }[];
const api = <T>(url: string, json: Record<string, unknown> = {}) => s.api.post<T>(url, { token: tok.dm, headers: H, json });
const sync = async (body: Record<string, unknown>) => {
  const r = await api<EdcRunView>('/project/pts/job/handEDCStart', body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return waitFor(async () => (await s.database.db.select().from(edcSyncRuns).where(eq(edcSyncRuns.id, r.body.data.id)))[0]!, (x) => x.status >= 2, 60_000);
};
const saveVs = async (items: Record<string, unknown>, version?: number) => {
  const sched = await s.api.get<Sched>('/project/pts/visits', { token: tok.crc1, headers: H, query: { ptsId } });
  const v1 = sched.body.data.find((v) => v.code === 'V1')!;
  const formId = v1.forms.find((f) => f.code === 'VS')!.formId;
  const r = await s.api.post('/crf/form/item/result/saveBatch', {
    token: tok.crc1,
    headers: H,
    json: { ptsId, visitId: v1.visitId, formId, entryMode: 2, ...(version ? { version } : {}), items: Object.entries(items).map(([variable, value]) => ({ variable, value, ...(version ? { reason: 'corrected' } : {}) })) },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data as { instance: { version: number } };
};

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['dm', 'crc1']) tok[a] = await s.api.login(a);
  edc = (await startDemoEdc(s.database.db, 0))!;
  const [site] = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  const r = await s.api.post<{ ptsId: number; ptsNo: string }>('/project/managePts/add', { token: tok.crc1, headers: H, form: { siteId: site!.id, firstVisitDate: '2026-11-01' } });
  ({ ptsId, ptsNo } = r.body.data);
});
afterAll(async () => {
  await edc?.close();
  await s?.stop();
});

describe('EDC sync, kind 1 (ODM over HTTP)', () => {
  it('maps the demo study automatically and syncs; the EDC refuses a weight it cannot hold, then takes the fix', async () => {
    const cfg = await api('/edc/config/save', { kind: 1, name: 'Demo EDC', baseUrl: edc.url, studyOid: DEMO_EDC.studyOid, targetEnv: DEMO_EDC.environment, secret: `${DEMO_EDC.user}:${DEMO_EDC.password}`, timeoutMs: 20_000 });
    expect(cfg.status, JSON.stringify(cfg.body)).toBe(200);
    expect((await api<{ ok: boolean; message: string }>('/edc/config/test')).body.data).toMatchObject({ ok: true });
    const items = await api<{ items: unknown[] }>('/crf/form/item/getEDCItemList', { refresh: true });
    expect(items.status, JSON.stringify(items.body)).toBe(200);
    const [sub] = await s.database.db.select().from(subjects).where(eq(subjects.id, ptsId));
    const auto = await api<EdcMappingView>('/edc/mapping/auto', { versionId: sub!.designVersionId });
    expect(auto.body.data.problems).toEqual([]);

    const saved = await saveVs({ VSDTC: '2026-11-02 09:30', SYSBP: 128, DIABP: 82, HR: 71, WEIGHT: 72.5 });
    const failed = await sync({ scope: 'subject', ptsId });
    expect(failed.counts, JSON.stringify(failed)).toMatchObject({ sent: 1, failed: 1 });
    const refused = await api<{ content: EdcLogRow[] }>('/edcLog/list', { ptsNo, action: 'refused', pageSize: 50 });
    expect(refused.body.data.content[0]!.reason).toMatch(/WEIGHT|72\.5/);

    await saveVs({ WEIGHT: 72 }, saved.instance.version);
    const ok = await sync({ scope: 'subject', ptsId });
    expect(ok.status, JSON.stringify(ok)).toBe(2);
    const path = { event: 'SE.V1', form: 'F.VS', group: 'IG.VS' };
    expect(edc.value(ptsNo, path, 'I.VS.WEIGHT')).toBe('72');
    expect(edc.value(ptsNo, path, 'I.VS.SYSBP')).toBe('128');
    const all = await api<{ content: EdcLogRow[] }>('/edcLog/list', { ptsNo, pageSize: 50 });
    expect(all.body.data.content.map((l) => l.action)).toEqual(expect.arrayContaining(['refused', 'sent']));
    // a second sync sends nothing and leaves the EDC as it was
    const before = edc.snapshot();
    const again = await sync({ scope: 'subject', ptsId });
    expect(again.counts).toMatchObject({ sent: 0 });
    expect(edc.snapshot()).toBe(before);
  }, 120_000);
});
