/**
 * EDC sync of kind 1 (CDISC ODM 1.3.2 over HTTP, Rave Web Services style) against the demo EDC — a strict receiver
 * holding the demo study's definition, where body weight is a whole number and the vital signs have two item
 * groups: auto-mapping the demo design leaves nothing to fix, a sync sends the completed forms (the vital signs as
 * two ItemGroupData), a weight of 72.5 is refused with the EDC's own reason while the rest is synced, and once
 * corrected it syncs; the log has both attempts, each record's entry with its own exchange and our items' labels
 * in the reader's language. A value cleared here and a form deleted here are removed at the EDC (ODM Remove), once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { EdcLogRow, EdcMappingView, EdcRunView } from '@esource/shared';
import { edcSyncRuns, sites, subjects } from '../src/db/schema';
import { DEMO_EDC, DEMO_EDC_BP_GROUP, startDemoEdc } from '../src/modules/edc/demo-edc';
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

/** Saves (completes) one form of the subject; a form already saved needs its version and a reason per change. */
const saveForm = async (visit: string, form: string, items: Record<string, unknown>, opts: { repeatNo?: number; version?: number } = {}) => {
  const sched = await s.api.get<Sched>('/project/pts/visits', { token: tok.crc1, headers: H, query: { ptsId } });
  const v = sched.body.data.find((x) => x.code === visit)!;
  const r = await s.api.post<{ instance: { id: number; version: number } }>('/crf/form/item/result/saveBatch', {
    token: tok.crc1,
    headers: H,
    json: {
      ptsId,
      visitId: v.visitId,
      formId: v.forms.find((f) => f.code === form)!.formId,
      entryMode: 2,
      repeatNo: opts.repeatNo ?? 1,
      ...(opts.version ? { version: opts.version } : {}),
      items: Object.entries(items).map(([variable, value]) => ({ variable, value, ...(opts.version ? { reason: 'corrected' } : {}) })),
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data.instance;
};
/** The version of the subject's V1 vital signs (a change to a completed form names it). */
const vsVersion = async () => {
  const v1 = (await s.api.get<Sched>('/project/pts/visits', { token: tok.crc1, headers: H, query: { ptsId } })).body.data.find((v) => v.code === 'V1')!;
  const view = await s.api.get<{ instance: { version: number } }>('/crf/form/item/result/list', { token: tok.crc1, headers: H, query: { ptsId, visitId: v1.visitId, formId: v1.forms.find((f) => f.code === 'VS')!.formId } });
  return view.body.data.instance.version;
};
type LogDetail = { action: string; reason: string | null; request: string | null; response: string | null; changes: { item: string; local: string; old: string | null; new: string | null }[] };
const detail = async (id: number, language = 'en_US') =>
  (await s.api.post<LogDetail>('/edcLog/getChangeLogList', { token: tok.dm, headers: { ...H, language }, json: { id } })).body.data;

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
    // the demo EDC's vital signs have two item groups: blood pressure in its own, as the mapping names it
    expect(edc.value(ptsNo, { ...path, group: DEMO_EDC_BP_GROUP }, 'I.VS.SYSBP')).toBe('128');
    expect(edc.value(ptsNo, path, 'I.VS.SYSBP')).toBeUndefined();
    const all = await api<{ content: EdcLogRow[] }>('/edcLog/list', { ptsNo, pageSize: 50 });
    expect(all.body.data.content.map((l) => l.action)).toEqual(expect.arrayContaining(['refused', 'sent']));
    // a second sync sends nothing and leaves the EDC as it was
    const before = edc.snapshot();
    const again = await sync({ scope: 'subject', ptsId });
    expect(again.counts).toMatchObject({ sent: 0 });
    expect(edc.snapshot()).toBe(before);
  }, 120_000);

  it("a refused record's entry holds its own exchange; labels in the reader's language", async () => {
    const dm = await saveForm('V1', 'DM', { BRTHDTC: '1980-05-06', SEX: '1', ETHNIC: 'HAN' });
    expect(dm.id).toBeGreaterThan(0);
    await saveVs({ WEIGHT: 80.5 }, await vsVersion());
    // one subject, two records in one post: RWS refuses the vital signs, then takes the demographics
    const run = await sync({ scope: 'subject', ptsId });
    expect(run.counts).toMatchObject({ sent: 2, synced: 1, failed: 1 });
    const logs = (await api<{ content: EdcLogRow[] }>('/edcLog/list', { ptsNo, runId: run.id, pageSize: 50 })).body.data.content;
    const refused = await detail(logs.find((l) => l.action === 'refused')!.id);
    const sent = await detail(logs.find((l) => l.action === 'sent')!.id);
    expect(refused.response).toContain('IsTransactionSuccessful="0"');
    expect(refused.request).toContain('Value="80.5"');
    expect(refused.request).toContain('<ClinicalData');
    expect(refused.request).not.toContain('F.DM');
    expect(sent.response).toContain('IsTransactionSuccessful="1"');
    expect(sent.request).toContain('FormOID="F.DM"');
    expect(sent.request).not.toContain('F.VS');
    // our items' labels as the reader reads: en_US from the design's English labels, zh_CN the Chinese ones
    expect(refused.changes.find((c) => c.item === 'I.VS.WEIGHT')?.local).toBe('Weight');
    expect((await detail(logs.find((l) => l.action === 'refused')!.id, 'zh_CN')).changes.find((c) => c.item === 'I.VS.WEIGHT')?.local).toBe('体重');
  }, 120_000);

  it('a cleared value and a deleted form are removed at the EDC (ODM Remove), once', async () => {
    await saveVs({ WEIGHT: 80, HR: null }, await vsVersion());
    const ae = await saveForm('V2', 'AE', { AETERM: 'Headache', AESTDTC: '2026-11' });
    const first = await sync({ scope: 'subject', ptsId });
    expect(first.status, JSON.stringify(first)).toBe(2);
    const vsPath = { event: 'SE.V1', form: 'F.VS', group: 'IG.VS' };
    const aePath = { event: 'SE.V2', form: 'F.AE', formRepeat: '1', group: 'IG.AE' };
    expect(edc.value(ptsNo, vsPath, 'I.VS.HR')).toBeUndefined();
    expect(edc.value(ptsNo, aePath, 'I.AE.AETERM')).toBe('Headache');
    expect(edc.removals).toContainEqual({ subject: ptsNo, level: 'item', event: 'SE.V1', form: 'F.VS', group: 'IG.VS', item: 'I.VS.HR' });
    const cleared = (await api<{ content: EdcLogRow[] }>('/edcLog/list', { ptsNo, runId: first.id, action: 'sent', pageSize: 50 })).body.data.content;
    const vsLog = await detail(cleared.find((l) => l.dataName?.includes('Vital signs'))!.id);
    expect(vsLog.changes).toContainEqual(expect.objectContaining({ item: 'I.VS.HR', local: 'Heart rate', old: '71', new: null }));
    expect(vsLog.request).toContain('<ItemData ItemOID="I.VS.HR" TransactionType="Remove"/>');

    // the adverse event deleted here: its FormData is removed at the EDC; the log lists the removal
    const del = await s.api.post('/crf/form/item/result/deleteRepeatForm', { token: tok.crc1, headers: H, json: { instanceId: ae.id, reason: 'entered in error' } });
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    const removal = await sync({ scope: 'subject', ptsId });
    expect(removal.status, JSON.stringify(removal)).toBe(2);
    expect(removal.counts).toMatchObject({ sent: 1, removed: 1, failed: 0 });
    expect(edc.value(ptsNo, aePath, 'I.AE.AETERM')).toBeUndefined();
    expect(edc.removals.at(-1)).toEqual({ subject: ptsNo, level: 'form', event: 'SE.V2', form: 'F.AE', formRepeat: '1' });
    const removed = (await api<{ content: EdcLogRow[] }>('/edcLog/list', { ptsNo, action: 'removed', pageSize: 50 })).body.data.content;
    expect(removed).toHaveLength(1);
    const rmLog = await detail(removed[0]!.id);
    expect(rmLog.request).toMatch(/<FormData FormOID="F\.AE" FormRepeatKey="1" TransactionType="Remove">/);
    expect(rmLog.changes).toContainEqual(expect.objectContaining({ item: 'I.AE.AETERM', local: 'Adverse event term', old: 'Headache', new: null }));
    // removal sent once: the next sync sends nothing and leaves the EDC as it was
    const before = edc.snapshot();
    const posts = edc.posts;
    const again = await sync({ scope: 'subject', ptsId });
    expect(again.counts).toMatchObject({ sent: 0, removed: 0 });
    expect(edc.posts).toBe(posts);
    expect(edc.snapshot()).toBe(before);
  }, 120_000);
});
