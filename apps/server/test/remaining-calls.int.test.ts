/**
 * Issue 15 item 8: the calls of spec §7 the screens imply — ptsListPage, nextPts, listPa, read, followUp/exists,
 * listByEnabledVersionAndStage, checkHaveMaster, /crf/form/item/list and /crf/form/item/saveBatch — with their
 * refusals (other sites' subjects, published versions, stale and unknown items).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { auditEvents, forms, sites, stages, designVersions } from '../src/db/schema';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
const P = { proId: 1, proType: 'PRO' };
const DEV = { proId: 1, proType: 'DEV' };
let crc1: string;
let crc2: string;
let dm: string;
const mine: { ptsId: number; ptsNo: string }[] = [];

type Neighbours = { prev: { ptsId: number; ptsNo: string } | null; next: { ptsId: number; ptsNo: string } | null };
type ListPage = { totalCount: number; content: { ptsId: number; ptsNo: string }[] };

beforeAll(async () => {
  s = await startTestServer();
  crc1 = await s.api.login('crc1');
  crc2 = await s.api.login('crc2');
  dm = await s.api.login('dm');
  const [siteA] = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  for (const initials of ['NXA', 'NXB', 'NXC']) {
    const r = await s.api.post<{ ptsId: number; ptsNo: string }>('/project/managePts/add', { token: crc1, headers: P, form: { siteId: siteA!.id, firstVisitDate: '2026-10-01', initials } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    mine.push({ ptsId: r.body.data.ptsId, ptsNo: r.body.data.ptsNo });
  }
});
afterAll(async () => {
  await s?.stop();
});

describe('subject calls', () => {
  it('ptsListPage answers as the subject list does', async () => {
    const a = await s.api.post<ListPage>('/project/manage/ptsList', { token: crc1, headers: P, form: { pageSize: 50 } });
    const b = await s.api.post<ListPage>('/project/manage/ptsListPage', { token: crc1, headers: P, form: { pageSize: 50 } });
    expect(b.status).toBe(200);
    expect(b.body.data.totalCount).toBe(a.body.data.totalCount);
    expect(b.body.data.content.map((r) => r.ptsId)).toEqual(a.body.data.content.map((r) => r.ptsId));
  });

  it('nextPts follows the list order and filters, both ways, and ends at the ends', async () => {
    const list = await s.api.post<ListPage>('/project/manage/ptsList', { token: crc1, headers: P, form: { pageSize: 200, keyword: 'NX' } });
    const order = list.body.data.content.map((r) => r.ptsId);
    expect(order).toEqual(mine.map((m) => m.ptsId));
    const at = (ptsId: number, extra: Record<string, string> = {}) =>
      s.api.post<Neighbours>('/project/manage/nextPts', { token: crc1, headers: P, form: { ptsId, keyword: 'NX', ...extra } });
    const first = await at(order[0]!);
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual({ prev: null, next: mine[1] });
    expect((await at(order[1]!)).body.data).toEqual({ prev: mine[0], next: mine[2] });
    expect((await at(order[2]!)).body.data).toEqual({ prev: mine[1], next: null });
    // descending: the other way round
    expect((await at(order[0]!, { sortOrder: 'desc' })).body.data).toEqual({ prev: mine[1], next: null });
    // a sort column with empty values (first visit date): every subject is reached once going forward
    const seen: number[] = [];
    let cur: number | null = order[0]!;
    const byDate = await s.api.post<ListPage>('/project/manage/ptsList', { token: crc1, headers: P, form: { pageSize: 200, sortField: 'firstVisitDate' } });
    cur = byDate.body.data.content[0]!.ptsId;
    while (cur !== null && seen.length < 500) {
      seen.push(cur);
      const n: Neighbours = (await s.api.post<Neighbours>('/project/manage/nextPts', { token: crc1, headers: P, form: { ptsId: cur, sortField: 'firstVisitDate' } })).body.data;
      cur = n.next?.ptsId ?? null;
    }
    expect(seen).toEqual(byDate.body.data.content.map((r) => r.ptsId));
  });

  it('refuses another site\'s subject (crc2 works at site 02)', async () => {
    const r = await s.api.post('/project/manage/nextPts', { token: crc2, headers: P, form: { ptsId: mine[0]!.ptsId } });
    expect(r.status).toBe(404);
    const read = await s.api.post('/project/manage/read', { token: crc2, headers: P, form: { ptsId: mine[0]!.ptsId } });
    expect(read.status).toBe(404);
  });

  it('listPa finds live subjects by number or initials, in the caller\'s sites, without identifiers', async () => {
    const r = await s.api.post<Record<string, unknown>[]>('/project/manage/listPa', { token: crc1, headers: P, form: { keyword: 'nxb' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([expect.objectContaining({ ptsId: mine[1]!.ptsId, ptsNo: mine[1]!.ptsNo, initials: 'NXB', siteNo: '01' })]);
    expect(Object.keys(r.body.data[0]!)).not.toContain('idCard');
    const other = await s.api.post<unknown[]>('/project/manage/listPa', { token: crc2, headers: P, form: { keyword: 'NX' } });
    expect(other.body.data).toEqual([]);
    const limited = await s.api.post<unknown[]>('/project/manage/listPa', { token: crc1, headers: P, form: { limit: 2 } });
    expect(limited.body.data).toHaveLength(2);
    const tooMany = await s.api.post('/project/manage/listPa', { token: crc1, headers: { ...P, language: 'en_US' }, form: { limit: 51 } });
    expect(tooMany.status).toBe(400);
  });

  it('read answers as getPtsByProIdAndPtsId and is audited as a read', async () => {
    const a = await s.api.get<Record<string, unknown>>('/project/manage/getPtsByProIdAndPtsId', { token: crc1, headers: P, query: { ptsId: mine[0]!.ptsId } });
    const b = await s.api.post<Record<string, unknown>>('/project/manage/read', { token: crc1, headers: P, form: { ptsId: mine[0]!.ptsId } });
    expect(b.status).toBe(200);
    expect(b.body.data).toEqual(a.body.data);
  });

  it('followUp/exists: nothing until a form of a later visit is saved', async () => {
    const ptsId = mine[2]!.ptsId;
    const sched = await s.api.get<{ visitId: number; code: string; forms: { formId: number; code: string }[] }[]>('/project/pts/visits', { token: crc1, headers: P, query: { ptsId } });
    const v1 = sched.body.data.find((v) => v.code === 'V1')!;
    const v2 = sched.body.data.find((v) => v.code === 'V2')!;
    const ask = (visitId?: number) =>
      s.api.post<{ exists: boolean; count: number }>('/followUp/exists', { token: crc1, headers: P, json: { ptsId, ...(visitId ? { visitId } : {}) } });
    expect((await ask()).body.data).toEqual({ exists: false, count: 0 });
    // a form of the first visit is not a follow-up record
    const save = (visitId: number, formId: number) =>
      s.api.post('/crf/form/item/result/saveBatch', { token: crc1, headers: P, json: { ptsId, visitId, formId, entryMode: 0, items: [{ variable: 'HR', value: 70 }] } });
    expect((await save(v1.visitId, v1.forms.find((f) => f.code === 'VS')!.formId)).status).toBe(200);
    expect((await ask()).body.data).toEqual({ exists: false, count: 0 });
    expect((await save(v2.visitId, v2.forms.find((f) => f.code === 'VS')!.formId)).status).toBe(200);
    expect((await ask()).body.data).toEqual({ exists: true, count: 1 });
    expect((await ask(v2.visitId)).body.data).toEqual({ exists: true, count: 1 });
    expect((await ask(v1.visitId)).body.data.exists).toBe(false);
    expect((await s.api.post('/followUp/exists', { token: crc2, headers: P, json: { ptsId } })).status).toBe(404);
  });
});

describe('form calls', () => {
  it('listByEnabledVersionAndStage: the forms in force, of one stage when named', async () => {
    const all = await s.api.post<{ version: { versionNo: number } | null; forms: { code: string }[] }>('/crf/form/listByEnabledVersionAndStage', { token: dm, headers: P });
    expect(all.status).toBe(200);
    expect(all.body.data.forms.map((f) => f.code)).toEqual(['DM', 'VS', 'LB', 'AE', 'CM', 'PR', 'MH', 'SH']);
    const [v] = await s.database.db.select().from(designVersions).where(and(eq(designVersions.projectId, 1))).limit(1);
    const st = await s.database.db.select().from(stages).where(eq(stages.versionId, v!.id)).orderBy(stages.sortOrder);
    const screening = await s.api.post<{ forms: { code: string }[] }>('/crf/form/listByEnabledVersionAndStage', { token: dm, headers: P, form: { stageId: st[0]!.id } });
    expect(screening.body.data.forms.map((f) => f.code)).toEqual(['DM', 'VS']);
    const unknown = await s.api.post('/crf/form/listByEnabledVersionAndStage', { token: dm, headers: P, form: { stageId: 999_999 } });
    expect(unknown.status).toBe(404);
  });

  it('item list, batch item changes on a DEV copy, its master in force; refusals', async () => {
    // a new DEV version copied from the published one
    const v2 = await s.api.post<{ id: number }>('/crf/version/add', { token: dm, headers: DEV, form: { name: 'v-items' } });
    expect(v2.status, JSON.stringify(v2.body)).toBe(200);
    const [vs] = await s.database.db.select().from(forms).where(and(eq(forms.versionId, v2.body.data.id), eq(forms.code, 'VS')));
    const items = await s.api.get<{ variable: string; table: string | null; unit: string | null; required: boolean }[]>('/crf/form/item/list', { token: dm, headers: DEV, query: { formId: vs!.id } });
    expect(items.status).toBe(200);
    expect(items.body.data.map((i) => [i.variable, i.table])).toEqual([['VSDTC', null], ['SYSBP', '血压'], ['DIABP', '血压'], ['HR', null], ['WEIGHT', null]]);

    const master = await s.api.post<{ hasMaster: boolean; master: { versionNo: number; publishedEnvs: string[] } | null }>('/crf/form/checkHaveMaster', { token: dm, headers: DEV, form: { formId: vs!.id } });
    expect(master.body.data.hasMaster).toBe(true);
    expect(master.body.data.master!.publishedEnvs).toEqual(expect.arrayContaining(['PRO']));

    const batch = (body: Record<string, unknown>, lang = 'en_US') =>
      s.api.post<{ lockVersion: number; definition: { components: unknown[] } }>('/crf/form/item/saveBatch', { token: dm, headers: { ...DEV, language: lang }, json: { formId: vs!.id, lockVersion: vs!.lockVersion, ...body } });
    const ok = await batch({ items: [{ variable: 'WEIGHT', required: true, labelEn: 'Body weight' }, { variable: 'SYSBP', unit: 'kPa' }] });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data.lockVersion).toBe(vs!.lockVersion + 1);
    const after = await s.api.get<{ variable: string; labelEn: string | null; unit: string | null; required: boolean }[]>('/crf/form/item/list', { token: dm, headers: DEV, query: { formId: vs!.id } });
    expect(after.body.data.find((i) => i.variable === 'WEIGHT')).toMatchObject({ required: true, labelEn: 'Body weight' });
    expect(after.body.data.find((i) => i.variable === 'SYSBP')).toMatchObject({ unit: 'kPa' });
    const audited = await s.database.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'form.update'), eq(auditEvents.entityId, String(vs!.id))));
    expect(audited).toHaveLength(1);

    // stale: the lockVersion it was loaded with is gone
    const stale = await batch({ items: [{ variable: 'HR', required: true }] });
    expect(stale.status).toBe(409);
    // an unknown item, a label made empty: named, nothing written
    const unknown = await batch({ lockVersion: vs!.lockVersion + 1, items: [{ variable: 'NOPE', required: true }] });
    expect(unknown.status).toBe(400);
    expect(JSON.stringify(unknown.body)).toContain('NOPE');
    const dup = await batch({ lockVersion: vs!.lockVersion + 1, items: [{ variable: 'HR', required: true }, { variable: 'HR', hidden: true }] });
    expect(dup.status).toBe(409);
    const empty = await batch({ lockVersion: vs!.lockVersion + 1, items: [{ variable: 'HR', label: '' }] });
    expect(empty.status).toBe(400);
    expect((await s.database.db.select().from(forms).where(eq(forms.id, vs!.id)))[0]!.lockVersion).toBe(vs!.lockVersion + 1);

    // a published version's form is read-only; a site user may not change forms
    const [pro] = await s.database.db.select({ id: forms.id, lockVersion: forms.lockVersion }).from(forms).innerJoin(designVersions, eq(designVersions.id, forms.versionId)).where(and(eq(forms.code, 'VS'), eq(designVersions.versionNo, master.body.data.master!.versionNo), eq(designVersions.projectId, 1)));
    const ro = await s.api.post('/crf/form/item/saveBatch', { token: dm, headers: DEV, json: { formId: pro!.id, lockVersion: pro!.lockVersion, items: [{ variable: 'HR', required: true }] } });
    expect(ro.status).toBeGreaterThanOrEqual(400);
    const site = await s.api.post('/crf/form/item/saveBatch', { token: crc1, headers: P, json: { formId: vs!.id, lockVersion: 2, items: [{ variable: 'HR', required: true }] } });
    expect(site.status).toBe(403);
    // the published form itself has no master
    const own = await s.api.post<{ hasMaster: boolean }>('/crf/form/checkHaveMaster', { token: dm, headers: P, form: { formId: pro!.id } });
    expect(own.body.data.hasMaster).toBe(false);
  });
});

describe('the KBMS calls', () => {
  it('answer that no knowledge-base system is connected, in the caller language; without the right, 403', async () => {
    for (const name of ['syncKBMSListDirectDescendant', 'getMapProductRelationship']) {
      const en = await s.api.post(`/dwd/doc/desensitization/ai/${name}`, { token: dm, headers: { ...P, language: 'en_US' } });
      expect(en.status).toBe(409);
      expect(en.body.errorCode).toBe('KBMS_NOT_CONNECTED');
      expect(en.body.message).toContain('No knowledge-base system (KBMS) is connected');
      const zh = await s.api.post(`/dwd/doc/desensitization/ai/${name}`, { token: dm, headers: { ...P, language: 'zh_CN' } });
      expect(zh.body.message).toContain('未连接知识库系统');
      // the adverse-event reviewer has no right to the desensitization settings
      const ae = await s.api.login('ae');
      expect((await s.api.post(`/dwd/doc/desensitization/ai/${name}`, { token: ae, headers: P })).status).toBe(403);
    }
  });
});
