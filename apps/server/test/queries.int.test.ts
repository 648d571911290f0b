/**
 * Queries over the real API (issue 13 item 2): raised on an item by a monitor, answered by the site with a corrected
 * value (the eCRF's save path, reason required) in one step, closed by the monitor, reopened with a reason; automatic
 * queries from a soft range on save, closed automatically when the value is corrected; every transition and
 * permission, stale versions, site scope, the per-status permissions, the form's markers, counts and the Excel export.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import type { QueryDetail, QueryPage } from '@esource/shared';
import { auditEvents, sites } from '../src/db/schema';
import { startTestServer, type TestServer } from './harness';

let s: TestServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};
let ptsId = 0;
let v1 = 0;
let vsForm = 0;
let vsInstance = 0;
type View = { instance: { id: number; status: number; version: number } | null; values: Record<string, { value: unknown; quality?: string | null }> };
type Sched = { visitId: number; code: string; forms: { formId: number; code: string }[] };

const add = (body: Record<string, unknown>, who = 'cra', lang = 'en_US') => s.api.post<QueryDetail>('/crf/query/add', { token: tok[who], headers: { ...H, language: lang }, json: body });
const update = (body: Record<string, unknown>, who: string, lang = 'en_US') => s.api.post<QueryDetail>('/crf/query/update', { token: tok[who], headers: { ...H, language: lang }, json: body });
const detail = (id: number, who = 'cra') => s.api.get<QueryDetail>('/crf/query/detail', { token: tok[who], headers: H, query: { id } });
const list = (who: string, body: Record<string, unknown> = {}) => s.api.post<QueryPage>('/crf/query/list', { token: tok[who], headers: H, json: { pageSize: 50, ...body } });
const saveVs = (items: { variable: string; value: unknown; reason?: string }[], version?: number) =>
  s.api.post<View>('/crf/form/item/result/saveBatch', { token: tok.crc1, headers: H, json: { ptsId, visitId: v1, formId: vsForm, entryMode: 2, ...(version ? { version } : {}), items } });

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['crc1', 'crc2', 'cra', 'dm', 'pi', 'ae']) tok[a] = await s.api.login(a);
  const [siteA] = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  const r = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: tok.crc1, headers: H, form: { siteId: siteA!.id, firstVisitDate: '2026-11-01' } });
  ptsId = r.body.data.ptsId;
  const sched = await s.api.get<Sched[]>('/project/pts/visits', { token: tok.crc1, headers: H, query: { ptsId } });
  const screening = sched.body.data.find((v) => v.code === 'V1')!;
  v1 = screening.visitId;
  vsForm = screening.forms.find((f) => f.code === 'VS')!.formId;
  const saved = await saveVs([
    { variable: 'VSDTC', value: '2026-11-02 09:30' },
    { variable: 'SYSBP', value: 128 },
    { variable: 'DIABP', value: 82 },
    { variable: 'HR', value: 72 },
  ]);
  expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  vsInstance = saved.body.data.instance!.id;
});
afterAll(async () => {
  await s?.stop();
});

describe('a query on an item, from raise to close', () => {
  let q: QueryDetail;

  it('the monitor raises it on the systolic pressure; the site sees it with the item named', async () => {
    const r = await add({ ptsId, visitId: v1, formId: vsForm, variable: 'SYSBP', text: 'The source says 138, please check.' });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    q = r.body.data;
    expect(q).toMatchObject({ status: 1, level: 'item', origin: 'manual', variable: 'SYSBP', itemLabel: 'Systolic', value: 128, instanceId: vsInstance });
    expect(q.messages.map((m) => m.action)).toEqual(['raise']);
    const site = await list('crc1', { status: 1 });
    expect(site.body.data.content.map((x) => x.id)).toContain(q.id);
    // the other site sees nothing of it
    expect((await detail(q.id, 'crc2')).status).toBe(404);
    expect((await list('crc2')).body.data.content.some((x) => x.id === q.id)).toBe(false);
    // the site's coordinator gets a message (the badge counts it); the other site's does not
    type Msgs = { content: { kind: string; content: string }[] };
    const inbox = (who: string) => s.api.post<Msgs>('/message/manager/list', { token: tok[who], headers: H, form: { pageSize: 50, kind: 'query' } });
    const crcMsgs = (await inbox('crc1')).body.data.content;
    expect(crcMsgs.some((m) => m.content.startsWith('query:') && JSON.parse(m.content.slice(6)).q === q.id)).toBe(true);
    expect((await inbox('crc2')).body.data.content.some((m) => m.content.includes(`"q":${q.id},`))).toBe(false);
    // the form's marker
    const marks = await s.api.post<{ variable: string | null; open: number }[]>('/crf/query/field/list', { token: tok.crc1, headers: H, json: { instanceId: vsInstance } });
    expect(marks.body.data).toContainEqual(expect.objectContaining({ variable: 'SYSBP', open: 1 }));
  });

  it('refuses a raise the target does not allow, naming the problem', async () => {
    expect((await add({ ptsId, visitId: v1, formId: vsForm, variable: 'NOPE', text: 'x' })).body.detail?.[0]?.field).toBe('variable');
    expect((await add({ ptsId, formId: vsForm, text: 'x' })).body.detail?.[0]?.field).toBe('visitId');
    expect((await add({ ptsId, visitId: v1, formId: vsForm, text: '  ' })).status).toBe(400);
    expect((await add({ ptsId, visitId: v1, formId: vsForm, text: 'x'.repeat(1001) })).status).toBe(400);
    const sched = await s.api.get<Sched[]>('/project/pts/visits', { token: tok.crc1, headers: H, query: { ptsId } });
    const empty = sched.body.data.find((v) => v.code === 'V1')!.forms.find((f) => f.code === 'DM')!;
    const noData = await add({ ptsId, visitId: v1, formId: empty.formId, text: 'Where is the demography?' });
    expect(noData.status).toBe(409);
    expect(noData.body.errorCode).toBe('QUERY_NO_DATA');
    // a visit-level query is the way for a form without data
    const visitLevel = await add({ ptsId, visitId: v1, text: 'Demography is missing for this visit.' });
    expect(visitLevel.status).toBe(200);
    expect(visitLevel.body.data.level).toBe('visit');
    // the site may not raise; the monitor may not reach another project's subject
    expect((await add({ ptsId, text: 'x' }, 'crc1')).status).toBe(403);
    expect((await add({ ptsId: 999_999, text: 'x' })).status).toBe(404);
  });

  it('the site answers and corrects the value in the same step (reason required); the monitor closes', async () => {
    // the site may not close
    expect((await update({ id: q.id, version: q.version, action: 'close' }, 'crc1')).status).toBe(403);
    // an answer needs its text; a changed value needs the eCRF's reason
    expect((await update({ id: q.id, version: q.version, action: 'reply' }, 'crc1')).body.detail?.[0]?.field).toBe('text');
    const noReason = await update({ id: q.id, version: q.version, action: 'reply', text: 'Corrected.', value: 138 }, 'crc1');
    expect(noReason.status).toBe(400);
    expect(noReason.body.detail?.[0]).toMatchObject({ field: 'SYSBP' });
    const stale = await update({ id: q.id, version: q.version + 3, action: 'reply', text: 'Corrected.' }, 'crc1');
    expect(stale.body.errorCode).toBe('STALE_WRITE');
    const r = await update({ id: q.id, version: q.version, action: 'reply', text: 'Transcription error, corrected to 138.', value: 138, reason: 'Transcription error' }, 'crc1');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ status: 2, value: 138 });
    expect(r.body.data.messages.at(-1)).toMatchObject({ action: 'reply', oldValue: 128, newValue: 138, changed: true });
    // the monitor who raised it is told of the answer
    const craMsgs = await s.api.post<{ content: { content: string }[] }>('/message/manager/list', { token: tok.cra, headers: H, form: { pageSize: 50, kind: 'query' } });
    expect(craMsgs.body.data.content.some((m) => m.content.includes(`"q":${q.id},"e":"reply"`))).toBe(true);
    // the eCRF's history says who changed it and why
    const h = await s.api.get<{ newValue: unknown; reason: string | null }[]>('/crf/form/item/result/history', { token: tok.crc1, headers: H, query: { instanceId: vsInstance, variable: 'SYSBP' } });
    expect(h.body.data.map((x) => [x.newValue, x.reason])).toContainEqual([138, 'Transcription error']);
    // replying again is not a step a replied query takes
    const again = await update({ id: q.id, version: r.body.data.version, action: 'reply', text: 'x' }, 'crc1');
    expect(again.status).toBe(409);
    expect(again.body.errorCode).toBe('QUERY_TRANSITION');
    expect(again.body.message).toBe("A query cannot go from 'Replied' to 'Replied'");
    const closed = await update({ id: q.id, version: r.body.data.version, action: 'close', text: 'Verified against the source.' }, 'cra');
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    expect(closed.body.data.status).toBe(3);
    q = closed.body.data;
    const zh = await update({ id: q.id, version: q.version, action: 'reply', text: 'x' }, 'crc1', 'zh_CN');
    expect(zh.body.message).toBe('质疑不能从“已关闭”变为“已回复”');
  });

  it('reopens with a reason, and every step is audited', async () => {
    expect((await update({ id: q.id, version: q.version, action: 'reopen' }, 'cra')).body.detail?.[0]?.field).toBe('text');
    const r = await update({ id: q.id, version: q.version, action: 'reopen', text: 'The diastolic pressure needs the same check.' }, 'cra');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.status).toBe(1);
    expect(r.body.data.messages.map((m) => m.action)).toEqual(['raise', 'reply', 'close', 'reopen']);
    const trail = await s.database.db.select().from(auditEvents).where(and(eq(auditEvents.entity, 'query'), eq(auditEvents.entityId, String(q.id))));
    expect(trail.map((a) => a.action).sort()).toEqual(['query.add', 'query.close', 'query.reopen', 'query.reply']);
  });

  it("counts per status in the caller's scope", async () => {
    const counts = await s.api.post<{ querying: number; replied: number; closed: number }>('/crf/query/count', { token: tok.pi, headers: H });
    expect(counts.status).toBe(200);
    expect(counts.body.data).toEqual({ querying: 2, replied: 0, closed: 0 });
    const other = await s.api.post<{ querying: number }>('/crf/query/count', { token: tok.crc2, headers: H });
    expect(other.body.data.querying).toBe(0);
  });
});

describe('automatic queries from the form\'s rules', () => {
  it('a heart rate outside its expected range raises one; correcting it closes it', async () => {
    const view = await s.api.get<View>('/crf/form/item/result/list', { token: tok.crc1, headers: H, query: { ptsId, visitId: v1, formId: vsForm } });
    const high = await saveVs([{ variable: 'HR', value: 190, reason: 'Re-measured' }], view.body.data.instance!.version);
    expect(high.status, JSON.stringify(high.body)).toBe(200);
    const auto = (await list('cra', { origin: 'auto', ptsId })).body.data.content;
    expect(auto).toHaveLength(1);
    expect(auto[0]).toMatchObject({ variable: 'HR', status: 1, origin: 'auto', createdBy: 'System' });
    expect(auto[0]!.text).toBe('The value 190 is outside the expected range 40–180 bpm: please check it against the source');
    // saving the same value again raises no second one
    const same = await saveVs([{ variable: 'HR', value: 191, reason: 'Re-measured' }], high.body.data.instance!.version);
    expect(same.status).toBe(200);
    expect((await list('cra', { origin: 'auto', ptsId })).body.data.totalCount).toBe(1);
    const fixed = await saveVs([{ variable: 'HR', value: 88, reason: 'Typo' }], same.body.data.instance!.version);
    expect(fixed.status).toBe(200);
    const after = (await detail(auto[0]!.id)).body.data;
    expect(after.status).toBe(3);
    expect(after.messages.map((m) => m.action)).toEqual(['raise', 'autoClose']);
    // a draft raises none, but a correction saved as a draft closes one
    const again = await saveVs([{ variable: 'HR', value: 199, reason: 'Re-measured' }], fixed.body.data.instance!.version);
    const open = (await list('cra', { origin: 'auto', ptsId, status: 1 })).body.data.content;
    expect(open).toHaveLength(1);
    const draft = await s.api.post<View>('/crf/form/item/result/saveBatch', {
      token: tok.crc1,
      headers: H,
      json: { ptsId, visitId: v1, formId: vsForm, entryMode: 0, version: again.body.data.instance!.version, items: [{ variable: 'HR', value: 90, reason: 'Typo' }] },
    });
    expect(draft.status, JSON.stringify(draft.body)).toBe(200);
    expect((await detail(open[0]!.id)).body.data.status).toBe(3);
  });
});

describe('parallel steps', () => {
  it('two answers sent at once with the same version: one is taken, the other is told who was first', async () => {
    const q = (await add({ ptsId, visitId: v1, formId: vsForm, variable: 'DIABP', text: 'Please check the second pressure value.' })).body.data;
    const rs = await Promise.all([1, 2].map((i) => update({ id: q.id, version: q.version, action: 'reply', text: `Answer ${i}` }, 'crc1')));
    expect(rs.map((r) => r.status).sort()).toEqual([200, 409]);
    expect(rs.find((r) => r.status === 409)!.body.errorCode).toBe('STALE_WRITE');
    const d = (await detail(q.id)).body.data;
    expect(d.messages.filter((m) => m.action === 'reply')).toHaveLength(1);
  });
});

describe('the list and the export', () => {
  it('filters, pages and exports what the caller sees', async () => {
    const bad = await list('cra', { pageSize: 30 });
    expect(bad.status).toBe(400);
    const byText = await list('cra', { keyword: 'diastolic' });
    expect(byText.body.data.totalCount).toBe(0); // the reopen reason is a message, not the question
    const bySubject = await list('cra', { ptsId });
    expect(bySubject.body.data.totalCount).toBeGreaterThanOrEqual(3);
    const res = await fetch(`${s.url}/api/crf/query/export?ptsId=${ptsId}`, { headers: { token: tok.dm!, proId: '1', proType: 'PRO', language: 'en_US' } });
    expect(res.status).toBe(200);
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(Buffer.from(await res.arrayBuffer()) as unknown as ArrayBuffer);
    const ws = wb.worksheets[0]!;
    expect(ws.getRow(1).getCell(8).value).toBe('Question');
    expect(ws.rowCount - 1).toBe(bySubject.body.data.totalCount);
    // the adverse-event reviewer holds no query permission at all
    const ae = await fetch(`${s.url}/api/crf/query/export`, { headers: { token: tok.ae!, proId: '1', proType: 'PRO' } });
    expect(ae.status).toBe(403);
    expect((await list('ae')).status).toBe(403);
  });
});
