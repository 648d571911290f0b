/**
 * Subject Excel import (all or nothing), template and export (issue 5), over real HTTP on the embedded
 * PostgreSQL: audit of each created subject, bad rows named with nothing written, duplicate numbers, site scope
 * of a site user, and an export that follows the list's filters, scope and masking.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, sql } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import { SUBJECT_IMPORT_COLUMNS } from '@esource/shared';
import { auditEvents, sites, subjects } from '../src/db/schema';
import { startTestServer, type TestServer } from './harness';

const XLSX = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const P = { proId: 1, proType: 'PRO' };
const EN = ['Subject no.', 'Site no.', 'First visit date', 'Initials', 'Medical record ID', 'Inpatient ID', 'Outpatient ID', 'ID card', 'Status'];

let s: TestServer;
let crc1: string;
let siteA: number;

beforeAll(async () => {
  s = await startTestServer();
  crc1 = await s.api.login('crc1');
  const rows = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO')));
  siteA = rows.find((r) => r.siteNo === '01')!.id;
});
afterAll(async () => {
  await s?.stop();
});

async function download(path: string, token: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.api.base}/api${path}`, { headers: { token, proId: '1', proType: 'PRO', ...headers } });
  return { res, buf: Buffer.from(await res.arrayBuffer()) };
}

async function readXlsx(buf: Buffer): Promise<ExcelJS.Workbook> {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(buf as unknown as Parameters<typeof wb.xlsx.load>[0]);
  return wb;
}

function sheetValues(ws: ExcelJS.Worksheet): string[][] {
  const out: string[][] = [];
  ws.eachRow((row) => {
    out.push(
      (row.values as unknown[])
        .slice(1)
        .map((v) => (v === null || v === undefined ? '' : v instanceof Date ? v.toISOString() : typeof v === 'string' ? v : JSON.stringify(v))),
    );
  });
  return out;
}

async function workbook(headers: string[], rows: (string | number | Date)[][]): Promise<Buffer> {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Subjects');
  ws.addRow(headers);
  for (const r of rows) ws.addRow(r);
  return Buffer.from(await wb.xlsx.writeBuffer());
}

function upload(buf: Buffer, token = crc1, language = 'en_US') {
  const fd = new FormData();
  fd.append('file', new Blob([buf], { type: XLSX }), 'subjects.xlsx');
  return s.api.post<{ imported: number; subjects: { rowNo: number; ptsId: number; ptsNo: string }[] }>('/project/managePts/importPts', {
    token,
    headers: { ...P, language },
    raw: { body: fd },
  });
}

const subjectCount = async () =>
  (await s.database.db.select({ n: sql<number>`count(*)::int` }).from(subjects).where(and(eq(subjects.projectId, 1), eq(subjects.env, 'PRO'))))[0]!.n;
const auditCount = async () => (await s.database.db.select({ n: sql<number>`count(*)::int` }).from(auditEvents))[0]!.n;

describe('subject import template', () => {
  it('downloads with translated headers, an example row of the caller\'s site and a notes sheet', async () => {
    const { res, buf } = await download('/project/managePts/importTemplate', crc1);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(XLSX);
    expect(decodeURIComponent(res.headers.get('content-disposition')!.split("UTF-8''")[1]!)).toBe('受试者导入模板.xlsx');
    const wb = await readXlsx(buf);
    const rows = sheetValues(wb.worksheets[0]!);
    expect(rows[0]).toEqual(['受试者编号', '*中心编号', '*首次访视日期', '姓名缩写', '病案号', '住院号', '门诊号', '身份证号', '状态']);
    expect(rows[1]![1]).toBe('01');
    expect(wb.worksheets[1]!.name).toBe('填写说明');

    const en = await download('/project/managePts/importTemplate', crc1, { language: 'en_US' });
    expect(sheetValues((await readXlsx(en.buf)).worksheets[0]!)[0]).toEqual(EN.map((h) => (h === 'Site no.' || h === 'First visit date' ? `*${h}` : h)));
    // a role without the import permission cannot fetch it
    const cra = await s.api.login('cra');
    expect((await download('/project/managePts/importTemplate', cra)).res.status).toBe(403);
  });

  it('the template as downloaded imports its example row', async () => {
    const { buf } = await download('/project/managePts/importTemplate', crc1, { language: 'en_US' });
    const r = await upload(buf);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.imported).toBe(1);
    expect(r.body.data.subjects[0]!.ptsNo).toMatch(/^01-\d{3}$/);
  });
});

describe('subject import', () => {
  it('imports nothing from a file with bad rows, and names every bad row and column', async () => {
    const before = await subjectCount();
    const auditBefore = await auditCount();
    const buf = await workbook(EN, [
      ['IMP-OK-1', '01', '2026-11-01', 'AA', '', '', '', '', ''],
      ['IMP-BAD-2', '01', '2026/11/01', '', 'MR 1', '', '', '110101199003071234', '3'],
      ['IMP-BAD-3', '02', '2026-11-02', '', '', '', '', '', ''],
      ['IMP-BAD-4', '99', '', '', '', '', '', '', ''],
      ['imp-ok-1', '01', '2026-11-03', '', '', '', '', '', ''],
    ]);
    const r = await upload(buf);
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe('VALIDATION');
    const d = r.body.detail!;
    expect(d.map((x) => x.field)).toEqual([
      'row 3: firstVisitDate',
      'row 3: medicalRecordId',
      'row 3: idCard',
      'row 3: status',
      'row 4: siteNo',
      'row 5: siteNo',
      'row 5: firstVisitDate',
      'row 6: ptsNo',
    ]);
    expect(d).toContainEqual({ field: 'row 3: firstVisitDate', message: 'must be a real date from 1900-01-01 to 2100-12-31 (YYYY-MM-DD)' });
    expect(d).toContainEqual({ field: 'row 4: siteNo', message: "you may not enrol subjects at site '02'" });
    expect(d).toContainEqual({ field: 'row 5: siteNo', message: "no active site numbered '99' in this project" });
    expect(d).toContainEqual({ field: 'row 5: firstVisitDate', message: 'required' });
    expect(d).toContainEqual({ field: 'row 6: ptsNo', message: 'the subject number also appears in row 2' });
    expect(r.body.message).toContain('row 3: firstVisitDate');
    // nothing was written: no subject, no audit row
    expect(await subjectCount()).toBe(before);
    expect(await auditCount()).toBe(auditBefore);

    const zh = await upload(buf, crc1, 'zh_CN');
    expect(zh.body.detail).toContainEqual({ field: 'row 4: siteNo', message: '您无权在中心“02”入组受试者' });
  });

  it('refuses a number that already exists in the project (also in the recycle bin)', async () => {
    const existing = await s.api.post<{ ptsNo: string }>('/project/managePts/add', {
      token: crc1,
      headers: P,
      form: { siteId: siteA, firstVisitDate: '2026-10-01', ptsNo: 'IMP-EXISTS' },
    });
    expect(existing.status).toBe(200);
    const before = await subjectCount();
    const r = await upload(await workbook(EN, [['imp-exists', '01', '2026-11-01'], ['IMP-NEW', '01', '2026-11-01']]));
    expect(r.status).toBe(400);
    expect(r.body.detail).toEqual([{ field: 'row 2: ptsNo', message: "subject number 'imp-exists' already exists" }]);
    expect(await subjectCount()).toBe(before);
  });

  it('imports a good file in one transaction; each subject audited as a single enrolment is', async () => {
    const before = await subjectCount();
    const day = new Date(Date.UTC(2026, 10, 5));
    const r = await upload(
      await workbook(EN, [
        ['', '01', '2026-11-04', 'IMPLW', 'MR-IMP-1', 'IN-1', 'OUT-1', '11010519491231002X', '7'],
        ['IMP-A-2', '01', day, '', '', '', '', '', 'Screening'],
        ['', '01', '2026-11-06'],
      ]),
    );
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.imported).toBe(3);
    expect(r.body.data.subjects.map((x) => x.rowNo)).toEqual([2, 3, 4]);
    expect(r.body.data.subjects[1]!.ptsNo).toBe('IMP-A-2');
    expect(await subjectCount()).toBe(before + 3);
    const [first] = await s.database.db.select().from(subjects).where(eq(subjects.id, r.body.data.subjects[0]!.ptsId));
    expect(first).toMatchObject({ siteId: siteA, status: 7, firstVisitDate: '2026-11-04', idCard: '11010519491231002X', inpatientId: 'IN-1' });
    const [second] = await s.database.db.select().from(subjects).where(eq(subjects.ptsNo, 'IMP-A-2'));
    expect(second).toMatchObject({ status: 1, firstVisitDate: '2026-11-05' });
    for (const x of r.body.data.subjects) {
      const audit = await s.database.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'subject.add'), eq(auditEvents.subjectId, x.ptsId)));
      expect(audit.find((a) => a.field === 'ptsNo')).toMatchObject({ newValue: x.ptsNo, projectId: 1, siteId: siteA });
      expect(audit.find((a) => a.field === 'status')).toBeTruthy();
    }
  });

  it('refuses a file that is not an .xlsx, an empty one and one without the required columns; needs the permission', async () => {
    const notXlsx = await upload(Buffer.from('a,b\n1,2\n'));
    expect(notXlsx.status).toBe(400);
    expect(notXlsx.body.detail).toEqual([{ field: 'file', message: 'the file is not an Excel workbook (.xlsx)' }]);
    const empty = await upload(await workbook(EN, []));
    expect(empty.body.detail).toEqual([{ field: 'file', message: 'the file holds no subject rows' }]);
    const noCols = await upload(await workbook(['Subject no.', 'Initials'], [['X', 'Y']]));
    expect(noCols.body.detail![0]!.message).toMatch(/Site no\./);
    const cra = await s.api.login('cra');
    expect((await upload(await workbook(EN, [['', '01', '2026-11-01']]), cra)).status).toBe(403);
  });

  it('takes the keys or the other language as headers', async () => {
    const r = await upload(await workbook([...SUBJECT_IMPORT_COLUMNS], [['IMP-KEYS', '01', '2026-11-07']]), crc1, 'zh_CN');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });
});

describe('subject export', () => {
  it('follows the list filters and site scope; identifiers masked for the monitor, in full for the coordinator', async () => {
    // a subject at site 02 that crc1 must not see
    const crc2 = await s.api.login('crc2');
    const sites2 = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '02')));
    const b = await s.api.post('/project/managePts/add', { token: crc2, headers: P, form: { siteId: sites2[0]!.id, firstVisitDate: '2026-11-01', ptsNo: 'IMP-SITE-B' } });
    expect(b.status).toBe(200);

    const query = { keyword: 'IMP', sortField: 'ptsNo', sortOrder: 'asc' };
    const qs = new URLSearchParams(query).toString();
    const listed = await s.api.post<{ content: { ptsNo: string; idCard: string | null }[] }>('/project/manage/ptsList', {
      token: crc1,
      headers: P,
      form: { ...query, pageSize: 200 },
    });
    const { res, buf } = await download(`/project/manage/ptsExport?${qs}`, crc1, { language: 'en_US' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe(XLSX);
    expect(res.headers.get('content-disposition')).toMatch(/attachment; filename="subjects-\d{8}-\d{4}\.xlsx"/);
    const rows = sheetValues((await readXlsx(buf)).worksheets[0]!);
    expect(rows[0]).toEqual([
      'Subject no.', 'Site no.', 'Site', 'Status', 'Initials', 'First visit date', 'Medical record ID', 'Inpatient ID', 'Outpatient ID', 'ID card',
      'Current visit', 'Form progress', 'Created',
    ]);
    const nos = rows.slice(1).map((r) => r[0]);
    expect(nos).toEqual(listed.body.data.content.map((x) => x.ptsNo));
    expect(nos).toContain('IMP-A-2');
    expect(nos).not.toContain('IMP-SITE-B');
    expect(rows.slice(1).every((r) => r[1] === '01')).toBe(true);
    const full = rows.find((r) => r[9] === '11010519491231002X');
    expect(full, 'the coordinator sees the ID card in full').toBeTruthy();
    const [audit] = await s.database.db.select().from(auditEvents).where(eq(auditEvents.action, 'subject.export'));
    expect(audit).toMatchObject({ projectId: 1, newValue: String(nos.length) });

    const cra = await s.api.login('cra');
    const craRows = sheetValues((await readXlsx((await download(`/project/manage/ptsExport?${qs}`, cra)).buf)).worksheets[0]!);
    expect(craRows[0]![0]).toBe('受试者编号');
    expect(craRows.map((r) => r[0])).toContain('IMP-SITE-B');
    expect(craRows.some((r) => r[9] === '11**************2X')).toBe(true);
    expect(craRows.some((r) => r[9] === '11010519491231002X')).toBe(false);
    expect(craRows.find((r) => r[0] === 'IMP-A-2')![3]).toBe('筛选中');

    const filtered = await download(`/project/manage/ptsExport?${new URLSearchParams({ ...query, status: '7' }).toString()}`, crc1);
    const only7 = sheetValues((await readXlsx(filtered.buf)).worksheets[0]!).slice(1);
    expect(only7.length).toBeGreaterThan(0);
    expect(only7.every((r) => r[3] === '知情同意')).toBe(true);

    const pi = await s.api.login('pi');
    expect((await download(`/project/manage/ptsExport?${qs}`, pi)).res.status).toBe(403);
  });
});
