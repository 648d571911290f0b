/**
 * Running automatic de-identification again (POST /source/file/redeid, issue 12): after the desensitization settings
 * change, a file waiting submit is de-identified again from the original with the settings of now, replacing boxes
 * drawn by hand; a failed file can be retried; not while it waits for audit or has passed; version-checked; only the
 * uploaders of the file's site; audited. OCR_ENGINE=none: the PDF's own text layer gives the text.
 */
process.env.OCR_ENGINE = 'none';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { close as closeOcr } from '@esource/ocr';
import type { SourceFileDetail, SourceFileView } from '@esource/shared';
import { auditEvents, sites, sourceFiles } from '../src/db/schema';
import { startTestServer, waitFor, type TestServer } from './harness';
import { labPdf, upload } from './documents-fixtures';

let s: TestServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};
let fileId = 0;
let ptsId = 0;

const detail = (who = 'crc1') => s.api.get<SourceFileDetail>('/source/file/detail', { token: tok[who], headers: H, query: { id: fileId } });
const settled = () => waitFor(detail, (r) => r.status === 200 && r.body.data.status !== 0);
const redeid = (version: number, who = 'crc1') => s.api.post<SourceFileView>('/source/file/redeid', { token: tok[who], headers: H, form: { id: fileId, version } });

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['crc1', 'crc2', 'cra', 'dm']) tok[a] = await s.api.login(a);
  const [site] = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  const pts = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: tok.crc1, headers: H, form: { siteId: site!.id, firstVisitDate: '2026-11-01' } });
  ptsId = pts.body.data.ptsId;
  const r = await upload(s.api, tok.crc1!, H, { ptsId, docType: 3 }, [{ name: 'lab.pdf', bytes: await labPdf() }]);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  fileId = r.body.data.files[0]!.id;
  expect((await settled()).body.data.status).toBe(1);
});
afterAll(async () => {
  await s?.stop();
  await closeOcr();
});

describe('the visits a document can be attached to (openStageList)', () => {
  it("lists the subject's visits with their planned dates, for its site only", async () => {
    const r = await s.api.get<{ visitId: number; code: string; planned: string | null }[]>('/source/file/openStageList', { token: tok.crc1, headers: H, query: { ptsId } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.find((v) => v.code === 'V1')?.planned).toBe('2026-11-01');
    expect((await s.api.get('/source/file/openStageList', { token: tok.crc2, headers: H, query: { ptsId } })).status).toBe(404);
  });
});

describe('running de-identification again', () => {
  it('takes the settings of now and replaces the boxes drawn by hand', async () => {
    const before = (await detail()).body.data;
    expect(before.boxes.some((b) => b.kind === 'idCard')).toBe(true);
    expect(before.boxes.some((b) => b.kind === 'keyword')).toBe(false);
    // by hand: every box removed
    const saved = await s.api.post<SourceFileDetail>('/source/file/saveBoxes', { token: tok.crc1, headers: H, json: { id: fileId, version: before.version, boxes: [], masks: [] } });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.data.boxes).toEqual([]);
    // the data manager adds a desensitization keyword that the page holds
    const kw = await s.api.post('/project/desensitization/keyword/add', { token: tok.dm, headers: H, json: { keyword: 'Glucose' } });
    expect(kw.status, JSON.stringify(kw.body)).toBe(200);

    const stale = await redeid(before.version);
    expect(stale.status).toBe(409);
    expect(stale.body.errorCode).toBe('STALE_WRITE');
    expect((await redeid(saved.body.data.version, 'cra')).status).toBe(403);
    expect((await redeid(saved.body.data.version, 'crc2')).status).toBe(404);
    const r = await redeid(saved.body.data.version);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.status).toBe(0);
    // while it runs it cannot be started again
    expect((await redeid(r.body.data.version)).body.errorCode).toBe('DOCUMENT_TRANSITION');
    const after = (await settled()).body.data;
    expect(after.status, after.errorMessage ?? '').toBe(1);
    expect(after.boxes.some((b) => b.kind === 'idCard')).toBe(true);
    expect(after.boxes.some((b) => b.kind === 'keyword')).toBe(true);
    const [audit] = await s.database.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'document.redeid'), eq(auditEvents.entityId, String(fileId))));
    expect(audit).toBeDefined();
  });

  it('is refused once submitted, and retries a failed file', async () => {
    const d = (await detail()).body.data;
    const sub = await s.api.post<SourceFileView>('/source/file/updateStatus', { token: tok.crc1, headers: H, form: { id: fileId, version: d.version, status: 2 } });
    expect(sub.status).toBe(200);
    const refused = await redeid(sub.body.data.version);
    expect(refused.status).toBe(409);
    expect(refused.body.errorCode).toBe('DOCUMENT_TRANSITION');
    expect(refused.body.message).toContain('Waiting audit');
    // a failed automatic de-identification (here: set directly) can be retried
    await s.database.db.update(sourceFiles).set({ status: -2, errorCode: 'documents.error.engine' }).where(eq(sourceFiles.id, fileId));
    const failed = (await detail()).body.data;
    expect(failed.errorMessage).toBeTruthy();
    const retry = await redeid(failed.version);
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    const done = (await settled()).body.data;
    expect(done.status).toBe(1);
    expect(done.errorMessage).toBeNull();
  });
});
