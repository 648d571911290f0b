/**
 * Casebook print over the real API (issue 14 item 6, spec §7 /print/getByItext): a coordinator prints a subject's
 * filled casebook (zh, with item history and signatures) and a blank one (en) as jobs, waits, downloads them and reads
 * them with poppler's pdftotext: subject data, Chinese labels, option labels, units, partial dates, history rows and
 * the investigator's signature are there. Site scope (another site's coordinator can neither print nor download),
 * permission, another project's or environment's file, one print at a time per subject, a worker that died, delete,
 * and the audit trail. An eCRF table prints as a grid: column labels in the casebook's language once per part and
 * page, each row's values on one line in column order, columns split into parts, the header repeated on the next page.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { formDefinition, type ExportFilePage, type ExportFileView } from '@esource/shared';
import {
  auditEvents,
  exportFiles,
  forms,
  projects,
  rolePermissions,
  roles,
  sites,
  subjects,
  visitForms,
} from '../src/db/schema';
import { DEMO_PASSWORD, sha256Hex, startTestServer, waitFor, type TestServer } from './harness';

let s: TestServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};
let ptsId = 0;
let ptsNo = '';
let otherPts = 0;
type View = { instance: { id: number; status: number; version: number } | null };
type Sched = {
  visitId: number;
  unscheduledId: number;
  code: string;
  forms: { formId: number; code: string }[];
};

const print = (who: string, body: Record<string, unknown>, headers: Record<string, string | number> = H) =>
  s.api.post<ExportFileView>('/print/getByItext', { token: tok[who], headers, json: body });
const get = (who: string, id: number) =>
  s.api.post<ExportFileView>('/export/file/get', { token: tok[who], headers: H, form: { id } });
const download = (
  who: string,
  id: number,
  headers: Record<string, string> = { proId: '1', proType: 'PRO' },
) => fetch(`${s.url}/api/export/file/download?id=${id}`, { headers: { token: tok[who]!, ...headers } });
const done = (who: string, id: number) =>
  waitFor(
    () => get(who, id),
    (r) => r.body.data?.status === 'done' || r.body.data?.status === 'failed',
    60_000,
  );

/** The text of a PDF as poppler reads it (layout kept, so table rows stay on one line). */
function pdfText(bytes: Uint8Array): string {
  // CASEBOOK_SAVE=<folder> keeps each PDF read here, to look at (pdftoppm -png)
  if (process.env.CASEBOOK_SAVE)
    fs.writeFileSync(path.join(process.env.CASEBOOK_SAVE, `casebook-${Date.now()}.pdf`), bytes);
  const file = path.join(os.tmpdir(), `casebook-test-${process.pid}-${Date.now()}.pdf`);
  fs.writeFileSync(file, bytes);
  try {
    return execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/** pdffonts' complaint about a broken embedded font shows on stderr of pdftotext; none is allowed. */
function pdfWarnings(bytes: Uint8Array): string {
  const file = path.join(os.tmpdir(), `casebook-test-${process.pid}-${Date.now()}-w.pdf`);
  fs.writeFileSync(file, bytes);
  try {
    const r = execFileSync('sh', ['-c', `pdftotext "${file}" /dev/null 2>&1 || true`], { encoding: 'utf8' });
    return r.trim();
  } finally {
    fs.rmSync(file, { force: true });
  }
}

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['crc1', 'crc2', 'pi', 'cra', 'dm', 'ae']) tok[a] = await s.api.login(a);
  const rows = await s.database.db
    .select()
    .from(sites)
    .where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO')));
  const siteA = rows.find((r) => r.siteNo === '01')!.id;
  const siteB = rows.find((r) => r.siteNo === '02')!.id;
  const first = new Date(Date.now() - 20 * 86_400_000).toISOString().slice(0, 10);
  const add = async (who: string, siteId: number) => {
    const r = await s.api.post<{ ptsId: number }>('/project/managePts/add', {
      token: tok[who],
      headers: H,
      form: { siteId, firstVisitDate: first, initials: 'ZS' },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data.ptsId;
  };
  ptsId = await add('crc1', siteA);
  otherPts = await add('crc2', siteB);
  ptsNo = (await s.database.db.select().from(subjects).where(eq(subjects.id, ptsId)))[0]!.ptsNo;
  const sched = (
    await s.api.get<Sched[]>('/project/pts/visits', { token: tok.crc1, headers: H, query: { ptsId } })
  ).body.data;
  const v1 = sched.find((v) => v.code === 'V1')!;
  const v2 = sched.find((v) => v.code === 'V2')!;
  const form = (v: Sched, code: string) => v.forms.find((f) => f.code === code)!.formId;
  const save = async (visit: Sched, code: string, body: Record<string, unknown>) => {
    const r = await s.api.post<View>('/crf/form/item/result/saveBatch', {
      token: tok.crc1,
      headers: H,
      json: { ptsId, visitId: visit.visitId, formId: form(visit, code), ...body },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.data.instance!;
  };
  // demographics: saved, one value corrected with a reason, then certified by the investigator (a signature)
  await save(v1, 'DM', {
    entryMode: 2,
    items: [
      { variable: 'BRTHDTC', value: '1980-05-01' },
      { variable: 'SEX', value: '2' },
      { variable: 'PREG', value: 'N' },
      { variable: 'ETHNIC', value: 'HAN' },
    ],
  });
  const dm = await save(v1, 'DM', {
    entryMode: 2,
    version: 1,
    items: [{ variable: 'BRTHDTC', value: '1981-05-01', reason: 'typo in year' }],
  });
  const cert = await s.api.post('/crf/report/check', {
    token: tok.pi,
    headers: H,
    form: { instanceId: dm.id, version: dm.version, password: sha256Hex(DEMO_PASSWORD) },
  });
  expect(cert.status, JSON.stringify(cert.body)).toBe(200);
  // vital signs in a table with units; an adverse event (a cycle form) with a partial start date
  await save(v1, 'VS', {
    entryMode: 2,
    items: [
      { variable: 'VSDTC', value: `${first} 09:30` },
      { variable: 'SYSBP', value: 128 },
      { variable: 'DIABP', value: 82 },
      { variable: 'HR', value: 72 },
    ],
  });
  await save(v2, 'AE', {
    entryMode: 2,
    repeatNo: 1,
    items: [
      { variable: 'AETERM', value: '头痛 headache' },
      { variable: 'AESTDTC', value: first.slice(0, 7) },
      { variable: 'AESER', value: 'N' },
    ],
  });
  await save(v2, 'AE', { entryMode: 0, repeatNo: 2, items: [{ variable: 'AETERM', value: 'Nausea' }] });
});
afterAll(async () => {
  await s?.stop();
});

describe('casebook print', () => {
  let zhId = 0;
  it('prints a filled casebook in Chinese with history and signatures: a job with progress, then a PDF', async () => {
    const r = await print('crc1', {
      ptsId,
      mode: 'filled',
      history: true,
      signatures: true,
      language: 'zh_CN',
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ kind: 'casebook', status: 'queued', title: ptsNo });
    zhId = r.body.data.id;
    const d = await done('crc1', zhId);
    expect(d.body.data, JSON.stringify(d.body.data)).toMatchObject({
      status: 'done',
      progress: 100,
      errorMessage: null,
    });
    expect(d.body.data.total).toBeGreaterThan(10);
    expect(d.body.data.done).toBe(d.body.data.total);

    const res = await download('crc1', zhId);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toContain(`${ptsNo}-casebook-filled-zh.pdf`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bytes.length).toBe(d.body.data.size);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(d.body.data.sha256);
    expect(pdfWarnings(bytes)).toBe('');
    const text = pdfText(bytes);
    // cover and page furniture
    expect(text).toContain('病例报告表（已填写）');
    expect(text).toContain(ptsNo);
    expect(text).toContain('Demo City Hospital');
    expect(text).toContain('Amy Coordinator');
    expect(text).toMatch(/第 1 页，共 \d+ 页/);
    // Chinese labels, option labels, units, a partial date, a table's items, entry modes
    for (const s of [
      '出生日期',
      '1981-05-01',
      '女',
      '汉族',
      '收缩压',
      '128 mmHg',
      '82 mmHg',
      '头痛 headache',
      '手动录入',
      '不良事件',
    ])
      expect(text, s).toContain(s);
    expect(text).toMatch(/\d{4}-\d{2}（未知：日）/);
    // a table's text cell in Chinese, not its English text
    expect(text).toContain('坐位静息 5 分钟后测量');
    expect(text).not.toContain('Seated, after');
    // a cycle form's repeats, numbered; a draft
    expect(text).toMatch(/#1/);
    expect(text).toMatch(/#2/);
    expect(text).toContain('草稿');
    // history: old → new with the reason
    expect(text).toContain('1980-05-01 → 1981-05-01');
    expect(text).toContain('typo in year');
    // the signature: status, who, and the manifest as recorded
    expect(text).toContain('已签名确认');
    expect(text).toContain('Dr. Ivy Investigator');
    expect(text).toMatch(/Electronic\s+signature\s+by\s+Dr\.\s+Ivy\s+Investigator/);
    // visits in plan order, a form not started says so
    expect(text.indexOf('V1 · 筛选访视')).toBeLessThan(text.indexOf('V2 · 第 2 周'));
    expect(text).toContain('该表单尚未开始填写');
  });

  it('prints a blank casebook in English: the same forms with empty fields and option lists, no data', async () => {
    const r = await print('crc1', { ptsId, mode: 'blank', language: 'en_US', visitIds: [] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const d = await done('crc1', r.body.data.id);
    expect(d.body.data.status).toBe('done');
    const text = pdfText(new Uint8Array(await (await download('crc1', r.body.data.id)).arrayBuffer()));
    expect(text).toContain('Blank casebook (CRF)');
    for (const s of [
      'Date of birth',
      'Female',
      'Systolic',
      'Unit: mmHg',
      'Shown when: AESER == "Y"',
      'Unscheduled visit',
      'Page 2 of',
    ])
      expect(text, s).toContain(s);
    expect(text).not.toContain('1981-05-01');
    expect(text).not.toContain('headache');
    // a table's text cell in English, not its Chinese text
    expect(text).toContain('Seated, after 5 minutes at rest (mmHg)');
    expect(text).not.toContain('坐位静息');
  });

  it('prints only the visits and forms asked for, and refuses ones of another design', async () => {
    const sched = (
      await s.api.get<Sched[]>('/project/pts/visits', { token: tok.crc1, headers: H, query: { ptsId } })
    ).body.data;
    const v1 = sched.find((v) => v.code === 'V1')!;
    const dmForm = v1.forms.find((f) => f.code === 'DM')!.formId;
    const r = await print('crc1', {
      ptsId,
      mode: 'filled',
      language: 'en_US',
      visitIds: [v1.visitId],
      formIds: [dmForm],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const d = await done('crc1', r.body.data.id);
    expect(d.body.data.total).toBe(1);
    const text = pdfText(new Uint8Array(await (await download('crc1', r.body.data.id)).arrayBuffer()));
    expect(text).toContain('Date of birth');
    expect(text).not.toContain('Systolic');
    expect(text).toContain('A selection (1 visits, 1 forms)');
    const bad = await print('crc1', { ptsId, visitIds: [999_999] });
    expect(bad.status).toBe(400);
    expect(bad.body.errorCode).toBe('INVALID_REFERENCE');
  });

  it("lists the caller's own files with status, size and kind, newest first", async () => {
    const r = await s.api.post<ExportFilePage>('/export/file/list', {
      token: tok.crc1,
      headers: H,
      form: { pageSize: 50 },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.totalCount).toBe(3);
    expect(r.body.data.content.map((f) => f.status)).toEqual(['done', 'done', 'done']);
    expect(r.body.data.content[2]!.id).toBe(zhId);
    for (const f of r.body.data.content)
      expect(f).toMatchObject({ kind: 'casebook', createdBy: 'Amy Coordinator' });
    expect(r.body.data.content.every((f) => (f.size ?? 0) > 1000)).toBe(true);
    // another user's list does not show them
    const cra = await s.api.post<ExportFilePage>('/export/file/list', {
      token: tok.cra,
      headers: H,
      form: { pageSize: 50 },
    });
    expect(cra.body.data.totalCount).toBe(0);
  });

  it('site scope: another site cannot print or download; a monitor of every site with the permission downloads', async () => {
    const printB = await print('crc2', { ptsId });
    expect(printB.status).toBe(404);
    expect((await download('crc2', zhId)).status).toBe(404);
    expect((await get('crc2', zhId)).status).toBe(404);
    // crc2 prints their own subject; crc1 cannot download it
    const own = await print('crc2', { ptsId: otherPts, mode: 'blank' });
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    await done('crc2', own.body.data.id);
    expect((await download('crc1', own.body.data.id)).status).toBe(404);
    expect((await download('cra', own.body.data.id)).status).toBe(200);
    expect((await download('cra', zhId)).status).toBe(200);
    // the data manager (every site) too; narrowed to site B by the proSiteId header, not site A's file
    expect((await download('dm', zhId)).status).toBe(200);
    const siteB = (await s.database.db.select().from(subjects).where(eq(subjects.id, otherPts)))[0]!.siteId;
    expect(
      (await download('dm', zhId, { proId: '1', proType: 'PRO', proSiteId: String(siteB) })).status,
    ).toBe(404);
  });

  it('permission: a role without crf:casebook:export cannot print or download', async () => {
    expect((await print('ae', { ptsId })).status).toBe(403);
    const [crc] = await s.database.db.select().from(roles).where(eq(roles.code, 'CRC'));
    await s.database.db
      .delete(rolePermissions)
      .where(and(eq(rolePermissions.roleId, crc!.id), eq(rolePermissions.permission, 'crf:casebook:export')));
    try {
      tok.crc1 = await s.api.login('crc1');
      expect((await print('crc1', { ptsId })).status).toBe(403);
      expect((await download('crc1', zhId)).status).toBe(403);
    } finally {
      await s.database.db
        .insert(rolePermissions)
        .values({ roleId: crc!.id, permission: 'crf:casebook:export' });
      tok.crc1 = await s.api.login('crc1');
    }
  });

  it("refuses another project's or environment's file id", async () => {
    const [p] = await s.database.db
      .insert(projects)
      .values({ no: 'CB-OTHER', name: 'Another study' })
      .returning();
    const [row] = await s.database.db.select().from(exportFiles).where(eq(exportFiles.id, zhId));
    const [foreign] = await s.database.db
      .insert(exportFiles)
      .values({
        ...row!,
        id: undefined,
        projectId: p!.id,
        siteId: null,
        subjectId: null,
        createdBy: row!.createdBy,
      })
      .returning();
    for (const who of ['crc1', 'dm', 'cra']) {
      expect((await download(who, foreign!.id)).status, who).toBe(404);
      expect((await get(who, foreign!.id)).status, who).toBe(404);
      expect(
        (await s.api.post('/export/file/delete', { token: tok[who], headers: H, form: { id: foreign!.id } }))
          .status,
        who,
      ).toBe(404);
    }
    // the same file from the UAT environment
    expect((await download('crc1', zhId, { proId: '1', proType: 'UAT' })).status).toBe(404);
    // naming the other project in the header: not a member
    expect((await download('dm', foreign!.id, { proId: String(p!.id), proType: 'PRO' })).status).toBe(403);
  });

  it('one print per subject at a time; one whose worker died does not block the next', async () => {
    const [row] = await s.database.db.select().from(exportFiles).where(eq(exportFiles.id, zhId));
    const [live] = await s.database.db
      .insert(exportFiles)
      .values({
        ...row!,
        id: undefined,
        status: 'running',
        fileKey: null,
        heartbeatAt: new Date(),
        createdAt: new Date(),
        finishedAt: null,
      })
      .returning();
    const busy = await print('crc1', { ptsId });
    expect(busy.status).toBe(409);
    expect(busy.body.errorCode).toBe('EXPORT_BUSY');
    expect(busy.body.message).toContain(ptsNo);
    // its worker stops beating
    await s.database.db
      .update(exportFiles)
      .set({ heartbeatAt: new Date(Date.now() - 10 * 60_000) })
      .where(eq(exportFiles.id, live!.id));
    const again = await print('crc1', { ptsId, mode: 'blank' });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    const failed = await get('crc1', live!.id);
    expect(failed.body.data).toMatchObject({ status: 'failed' });
    expect(failed.body.data.errorMessage).toMatch(/Interrupted/);
    const notReady = await download('crc1', live!.id);
    expect(notReady.status).toBe(409);
    await done('crc1', again.body.data.id);
  });

  it('deletes only its own files; a deleted file is gone for everyone', async () => {
    expect(
      (await s.api.post('/export/file/delete', { token: tok.cra, headers: H, form: { id: zhId } })).status,
    ).toBe(404);
    const del = await s.api.post('/export/file/delete', { token: tok.crc1, headers: H, form: { id: zhId } });
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect((await download('crc1', zhId)).status).toBe(404);
    expect((await download('cra', zhId)).status).toBe(404);
    const list = await s.api.post<ExportFilePage>('/export/file/list', {
      token: tok.crc1,
      headers: H,
      form: { pageSize: 50 },
    });
    expect(list.body.data.content.some((f) => f.id === zhId)).toBe(false);
  });

  it('audits every print, download and delete with the subject', async () => {
    const rows = await s.database.db.select().from(auditEvents).where(eq(auditEvents.entity, 'exportFile'));
    const of = (action: string) => rows.filter((r) => r.action === action);
    expect(of('export.casebook').length).toBeGreaterThanOrEqual(5);
    expect(of('export.casebook').find((r) => r.entityId === String(zhId))).toMatchObject({
      subjectId: ptsId,
      userName: 'Amy Coordinator',
      projectId: 1,
    });
    expect(
      of('export.download').some((r) => r.entityId === String(zhId) && r.userName === 'Chris Monitor'),
    ).toBe(true);
    expect(of('export.delete').find((r) => r.entityId === String(zhId))).toMatchObject({
      userName: 'Amy Coordinator',
    });
  });

  it('prints an eCRF table as a grid: labelled columns, one line per row, split into parts, header on each page', async () => {
    // a form with a wide table of 40 rows (lab results: 10 columns, every row the same items) at the first visit
    const COLS = [
      { v: 'DT', type: 'date', label: '采样日期', labelEn: 'Sample date' },
      { v: 'TEST', type: 'text', label: '检测项目', labelEn: 'Test' },
      { v: 'RES', type: 'number', label: '结果', labelEn: 'Result', unit: 'mg/dL' },
      { v: 'LO', type: 'number', label: '参考范围下限', labelEn: 'Reference range, lower limit' },
      { v: 'HI', type: 'number', label: '参考范围上限', labelEn: 'Reference range, upper limit' },
      { v: 'ABN', type: 'radio', label: '是否异常', labelEn: 'Abnormal' },
      { v: 'SIG', type: 'select', label: '临床意义', labelEn: 'Clinical significance' },
      { v: 'CMT', type: 'textarea', label: '备注', labelEn: 'Comments' },
      { v: 'LAB', type: 'text', label: '检测机构', labelEn: 'Laboratory' },
      { v: 'RPT', type: 'radio', label: '需要复查', labelEn: 'Repeat needed' },
    ] as const;
    const YN = [
      { value: 'Y', label: '是', labelEn: 'Yes' },
      { value: 'N', label: '否', labelEn: 'No' },
    ];
    const SIG = [
      { value: '1', label: '无临床意义', labelEn: 'Not significant' },
      { value: '2', label: '有临床意义', labelEn: 'Significant' },
    ];
    const ROWS = 40;
    const def = formDefinition.parse({
      name: '化验结果表',
      nameEn: 'Lab result grid',
      code: 'LBG',
      components: [
        {
          id: 'lbt',
          type: 'table',
          label: '化验结果',
          labelEn: 'Lab results',
          rows: ROWS,
          cols: COLS.length,
          cells: Array.from({ length: ROWS }, (_, r) =>
            COLS.map((c, i) => ({
              row: r,
              col: i,
              rowSpan: 1,
              colSpan: 1,
              component: {
                id: `${c.v.toLowerCase()}${r + 1}`,
                type: c.type,
                label: c.label,
                labelEn: c.labelEn,
                variable: `${c.v}_${r + 1}`,
                ...(c.v === 'RES' ? { unit: 'mg/dL' } : {}),
                ...(c.type === 'radio' ? { options: YN } : c.type === 'select' ? { options: SIG } : {}),
              },
            })),
          ).flat(),
        },
      ],
    });
    const [subject] = await s.database.db.select().from(subjects).where(eq(subjects.id, ptsId));
    const [form] = await s.database.db
      .insert(forms)
      .values({
        versionId: subject!.designVersionId!,
        code: def.code,
        name: def.name,
        nameEn: def.nameEn ?? null,
        definition: def,
        sortOrder: 99,
      })
      .returning();
    const sched = (
      await s.api.get<Sched[]>('/project/pts/visits', { token: tok.crc1, headers: H, query: { ptsId } })
    ).body.data;
    const v1 = sched.find((v) => v.code === 'V1')!;
    await s.database.db.insert(visitForms).values({ visitId: v1.visitId, formId: form!.id, sortOrder: 99 });
    const day = (r: number) => new Date(Date.UTC(2024, 3, r)).toISOString().slice(0, 10);
    const test = (r: number) => (r % 3 === 0 ? '血清肌酐 creatinine' : r % 3 === 1 ? 'Hemoglobin' : 'ALT');
    const items: { variable: string; value: unknown }[] = [];
    for (let r = 1; r <= ROWS; r++) {
      if (r === 5) continue; // a row left empty
      items.push(
        { variable: `DT_${r}`, value: day(r) },
        { variable: `TEST_${r}`, value: test(r) },
        { variable: `LO_${r}`, value: 5 },
        { variable: `ABN_${r}`, value: r % 4 === 0 ? 'Y' : 'N' },
        { variable: `LAB_${r}`, value: 'Central lab' },
      );
      if (r !== 3) items.push({ variable: `HI_${r}`, value: 40 }); // an empty cell
      if (r % 4 === 0) items.push({ variable: `SIG_${r}`, value: '2' });
      if (r <= 20) items.push({ variable: `RES_${r}`, value: 10 + r });
    }
    items.push({
      variable: 'CMT_2',
      value:
        'Sample haemolysed; repeated the next morning after fasting, result confirmed by the central laboratory.',
    });
    const first = await s.api.post<View>('/crf/form/item/result/saveBatch', {
      token: tok.crc1,
      headers: H,
      json: { ptsId, visitId: v1.visitId, formId: form!.id, entryMode: 2, items },
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    // the results of the last rows come in by direct entry: a second legend entry
    const second = await s.api.post<View>('/crf/form/item/result/saveBatch', {
      token: tok.crc1,
      headers: H,
      json: {
        ptsId,
        visitId: v1.visitId,
        formId: form!.id,
        version: first.body.data.instance!.version,
        entryMode: 3,
        items: Array.from({ length: ROWS - 20 }, (_, i) => ({ variable: `RES_${21 + i}`, value: 31 + i })),
      },
    });
    expect(second.status, JSON.stringify(second.body)).toBe(200);

    const printed = async (language: 'zh_CN' | 'en_US') => {
      const r = await print('crc1', {
        ptsId,
        mode: 'filled',
        language,
        visitIds: [v1.visitId],
        formIds: [form!.id],
      });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      const d = await done('crc1', r.body.data.id);
      expect(d.body.data.status, JSON.stringify(d.body.data)).toBe('done');
      const bytes = new Uint8Array(await (await download('crc1', r.body.data.id)).arrayBuffer());
      expect(pdfWarnings(bytes)).toBe('');
      return pdfText(bytes);
    };
    /** each string found in the line after the one before it */
    const inOrder = (line: string, parts: string[]) => {
      let at = 0;
      for (const p of parts) {
        const i = line.indexOf(p, at);
        if (i < 0) return false;
        at = i + p.length;
      }
      return true;
    };

    for (const lang of ['en_US', 'zh_CN'] as const) {
      const text = await printed(lang);
      const en = lang === 'en_US';
      const L = (i: number) => (en ? COLS[i]!.labelEn : COLS[i]!.label);
      expect(text).toContain(en ? 'Lab results' : '化验结果');
      expect(text, 'empty cells print empty').not.toMatch(/\bnull\b|undefined|NaN/);
      // the columns do not fit the width: two parts stacked, each naming its columns
      expect(text).toMatch(en ? /Part 1 of 2: columns 1–\d+ of 10/ : /第 1\/2 部分：第 1–\d+ 列，共 10 列/);
      expect(text).toMatch(en ? /Part 2 of 2: columns \d+–10 of 10/ : /第 2\/2 部分：第 \d+–10 列，共 10 列/);
      const pages = text.split('\f');
      const n = Number(text.match(en ? /columns 1–(\d+) of 10/ : /第 1–(\d+) 列/)![1]);
      const part1 = COLS.map((_, i) => i).filter((i) => i < n);
      const part2 = COLS.map((_, i) => i).filter((i) => i >= n);
      /** the first line of each filled cell of row r */
      const cellsOf = (r: number) => {
        const cells: Record<number, string> = {
          0: day(r),
          1: test(r),
          2: `${r <= 20 ? 10 + r : 31 + r - 21} mg/dL`,
          3: '5',
          5: r % 4 === 0 ? (en ? 'Yes' : '是') : en ? 'No' : '否',
          8: 'Central',
        };
        if (r !== 3) cells[4] = '40';
        if (r % 4 === 0) cells[6] = en ? 'Significant' : '有临床意义';
        if (r === 2) cells[7] = 'Sample';
        return cells;
      };
      // per page: each part's header once, every row of the part below it on one line, its values in column order
      const key1 = L(0);
      const key2 = en ? 'Repeat' : '需要';
      const seen1 = new Set<number>();
      const seen2 = new Set<number>();
      let empty = 0;
      let continued = 0;
      for (const page of pages) {
        const lines = page.split('\n');
        const head1 = lines.some((l) => /^\s*#\s/.test(l) && l.includes(key1));
        const head2 = lines.some((l) => /^\s*#\s/.test(l) && l.includes(key2));
        if (!head1 && !head2) continue;
        if (head1)
          expect(lines.filter((l) => l.includes(key1)).length, `${lang}: part 1 header once`).toBe(1);
        if (head2)
          expect(lines.filter((l) => l.includes(key2)).length, `${lang}: part 2 header once`).toBe(1);
        if (head1 && !page.includes(en ? 'Part 1 of 2' : '第 1/2 部分')) continued += 1;
        if (head2 && !page.includes(en ? 'Part 2 of 2' : '第 2/2 部分')) continued += 1;
        for (const l of lines) {
          const m = l.match(/^\s*(\d+)(\s|$)/);
          if (!m) continue;
          const r = Number(m[1]);
          if (r === 5) {
            expect(l.trim(), `${lang}: the empty row`).toBe('5');
            empty += 1;
            continue;
          }
          const cells = cellsOf(r);
          const inPart1 = l.includes(cells[0]!);
          const want = (inPart1 ? part1 : part2).filter((i) => cells[i] !== undefined).map((i) => cells[i]!);
          expect(inOrder(l, want), `${lang} row ${r} in column order: ${l}`).toBe(true);
          if (inPart1) seen1.add(r);
          else seen2.add(r);
        }
      }
      expect(seen1.size, `${lang}: every row of part 1 on one line`).toBe(ROWS - 1);
      expect(seen2.size, `${lang}: every row of part 2 on one line`).toBe(ROWS - 1);
      expect(empty, `${lang}: the empty row in both parts`).toBe(2);
      // 40 rows do not fit one page: a part continues on the next page under its repeated header
      expect(continued, `${lang}: header repeated on the next page`).toBeGreaterThanOrEqual(1);
      // a long comment wraps inside its cell
      expect(text).toContain('Sample haemolysed;');
      expect(text).not.toMatch(/Sample haemolysed;.*central laboratory\./);
      // the legend: entry mode and last change per letter
      if (en) {
        expect(text).toContain('The letter after a value: how it was entered and its last change');
        expect(text).toMatch(/a\s+Manual · Amy Coordinator · \d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
        expect(text).toMatch(/b\s+Direct · Amy Coordinator · \d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
      } else {
        expect(text).toContain('数值后的字母：录入方式与最后修改');
        expect(text).toMatch(/a\s+手动录入，Amy Coordinator，\d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
        expect(text).toMatch(/b\s+直接录入，Amy Coordinator，/);
      }
    }
  });
});
