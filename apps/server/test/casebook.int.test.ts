/**
 * Casebook print over the real API (issue 14 item 6, spec §7 /print/getByItext): a coordinator prints a subject's
 * filled casebook (zh, with item history and signatures) and a blank one (en) as jobs, waits, downloads them and reads
 * them with poppler's pdftotext: subject data, Chinese labels, option labels, units, partial dates, history rows and
 * the investigator's signature are there. Site scope (another site's coordinator can neither print nor download),
 * permission, another project's or environment's file, one print at a time per subject, a worker that died, delete,
 * and the audit trail.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { ExportFilePage, ExportFileView } from '@esource/shared';
import {
  auditEvents,
  exportFiles,
  projects,
  rolePermissions,
  roles,
  sites,
  subjects,
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
});
