/**
 * Study data exports as jobs (issue 14 item 7): CDISC ODM 1.3.2 ClinicalData valid against the official XSD (with
 * audit records and AdminData), an Excel workbook with one sheet per form, and CDISC Dataset-JSON 1.1 of one form;
 * a site coordinator must name one of their sites; a role without crf:result:export is refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { parseOdmClinical, validateOdm } from '@esource/interop';
import type { ExportFileView } from '@esource/shared';
import { sites } from '../src/db/schema';
import { lastChild } from '../src/modules/exports/export-process';
import { startTestServer, waitFor, type TestServer } from './harness';

let s: TestServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};
let siteA = 0;
const ptsNos: string[] = [];
type Sched = { code: string; visitId: number; forms: { code: string; formId: number }[] }[];
let vsFormId = 0;

const start = (body: Record<string, unknown>, who = 'dm') => s.api.post<ExportFileView>('/export/study/start', { token: tok[who], headers: H, json: body });
const finished = (id: number) =>
  waitFor(
    async () => (await s.api.post<ExportFileView>('/export/file/get', { token: tok.dm, headers: H, form: { id } })).body.data,
    (f) => f.status === 'done' || f.status === 'failed',
    60_000,
  );
const download = async (id: number) => Buffer.from(await (await fetch(`${s.url}/api/export/file/download?id=${id}`, { headers: { token: tok.dm!, proId: '1', proType: 'PRO' } })).arrayBuffer());

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['dm', 'crc1', 'cra']) tok[a] = await s.api.login(a);
  const [a] = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  siteA = a!.id;
  for (let i = 0; i < 3; i++) {
    const r = await s.api.post<{ ptsId: number; ptsNo: string }>('/project/managePts/add', { token: tok.crc1, headers: H, form: { siteId: siteA, firstVisitDate: '2026-11-01' } });
    ptsNos.push(r.body.data.ptsNo);
    const sched = await s.api.get<Sched>('/project/pts/visits', { token: tok.crc1, headers: H, query: { ptsId: r.body.data.ptsId } });
    const v1 = sched.body.data.find((v) => v.code === 'V1')!;
    vsFormId = v1.forms.find((f) => f.code === 'VS')!.formId;
    const dm = v1.forms.find((f) => f.code === 'DM')!.formId;
    const ok1 = await s.api.post('/crf/form/item/result/saveBatch', { token: tok.crc1, headers: H, json: { ptsId: r.body.data.ptsId, visitId: v1.visitId, formId: vsFormId, entryMode: 2, items: [{ variable: 'VSDTC', value: '2026-11-02 09:30' }, { variable: 'SYSBP', value: 120 + i }, { variable: 'DIABP', value: 80 }, { variable: 'WEIGHT', value: 70.5 }] } });
    expect(ok1.status, JSON.stringify(ok1.body)).toBe(200);
    const ok2 = await s.api.post('/crf/form/item/result/saveBatch', { token: tok.crc1, headers: H, json: { ptsId: r.body.data.ptsId, visitId: v1.visitId, formId: dm, entryMode: 0, items: [{ variable: 'BRTHDTC', value: '1970-05-01' }, { variable: 'SEX', value: i % 2 ? '2' : '1' }] } });
    expect(ok2.status, JSON.stringify(ok2.body)).toBe(200);
  }
});
afterAll(async () => {
  await s?.stop();
});

describe('study data exports', () => {
  it('ODM ClinicalData with audit records is valid against the XSD and holds every subject’s values', async () => {
    const child = lastChild.pid;
    const r = await start({ kind: 'study-odm', audit: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const f = await finished(r.body.data.id);
    expect(f.status, JSON.stringify(f)).toBe('done');
    // on the PostgreSQL server a study export is written by a child process of its own (export-process.ts), whose
    // heap is capped; the embedded database cannot be opened twice, so there it runs in the job's process
    if (s.database.kind === 'postgres') {
      expect(lastChild.pid).not.toBe(child);
      expect(lastChild.pid).not.toBe(process.pid);
      expect(lastChild.maxRssKb).toBeGreaterThan(0);
    } else expect(lastChild.pid).toBe(child);
    const xml = (await download(f.id)).toString('utf8');
    expect((await validateOdm(xml, { engine: 'cli' })).errors).toEqual([]);
    expect(xml).toContain('<AuditRecord');
    expect(xml).toContain('<AdminData');
    const seen = new Map<string, string[]>();
    for await (const subj of parseOdmClinical(xml)) seen.set(subj.subjectKey, subj.events.flatMap((e) => e.forms.flatMap((fm) => fm.groups.flatMap((g) => g.items.map((i) => `${i.itemOid}=${String(i.value)}`)))));
    for (const [i, no] of ptsNos.entries()) expect(seen.get(no)).toEqual(expect.arrayContaining([`I.VS.SYSBP=${120 + i}`, 'I.VS.WEIGHT=70.5']));
  });

  it('Excel: one sheet per form, a row per form instance, option labels', async () => {
    const r = await start({ kind: 'study-xlsx', language: 'en_US' });
    const f = await finished(r.body.data.id);
    expect(f.status).toBe('done');
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await download(f.id)) as unknown as Parameters<typeof wb.xlsx.load>[0]);
    const vs = wb.getWorksheet('VS')!;
    const header = (vs.getRow(1).values as unknown[]).map(String);
    expect(header.some((h) => h.includes('[SYSBP]'))).toBe(true);
    const rows = [] as unknown[][];
    vs.eachRow((row, n) => n > 1 && rows.push(row.values as unknown[]));
    expect(rows.length).toBeGreaterThanOrEqual(3);
    const dm = wb.getWorksheet('DM')!;
    const dmRows = [] as string[];
    dm.eachRow((row, n) => n > 1 && dmRows.push(JSON.stringify(row.values)));
    expect(dmRows.join(' ')).toMatch(/Male|Female/);
  });

  it('Dataset-JSON 1.1 of one form', async () => {
    const r = await start({ kind: 'study-datasetjson', formId: vsFormId });
    const f = await finished(r.body.data.id);
    expect(f.status).toBe('done');
    const ds = JSON.parse((await download(f.id)).toString('utf8')) as { datasetJSONVersion: string; records: number; columns: { name: string; dataType: string }[]; rows: unknown[][]; itemGroupOID: string };
    expect(ds.datasetJSONVersion).toBe('1.1.0');
    expect(ds.itemGroupOID).toBe('IG.VS');
    expect(ds.records).toBe(ds.rows.length);
    const sys = ds.columns.findIndex((c) => c.name === 'SYSBP');
    expect(ds.columns[sys]!.dataType).toBe('integer');
    expect(ds.rows.map((row) => row[sys])).toEqual(expect.arrayContaining([120, 121, 122]));
  });

  it('a site user names their site; a role without the permission is refused', async () => {
    expect((await start({ kind: 'study-xlsx' }, 'crc1')).status).toBe(403);
    expect((await start({ kind: 'study-datasetjson' })).status).toBe(400);
  });
});
