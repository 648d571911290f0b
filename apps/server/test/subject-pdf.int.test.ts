/**
 * PDF synthesis over the real API (issue 12 item 7): a subject's de-identified files — redacted copies only — combined
 * into one PDF by a job with progress; a second request while one runs gets the spec's message; nothing to combine is a
 * clear refusal; scope; a synthesis whose worker died does not block the subject.
 */
process.env.OCR_ENGINE = 'none';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { PDFDocument } from 'pdf-lib';
import { pdfPageText, openPdf } from '@esource/redact';
import { close as closeOcr } from '@esource/ocr';
import type { ProcessBarPdfResult, SourceFileView, SubjectPdfView } from '@esource/shared';
import { sites, subjectPdfs } from '../src/db/schema';
import { startTestServer, waitFor, type TestServer } from './harness';
import { ID_CARD, blankPdf, jpeg, labPdf, upload } from './documents-fixtures';

let s: TestServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};
let pts = 0;
let empty = 0;

const files = async (ptsId: number) => (await s.api.post<{ content: SourceFileView[] }>('/source/file/list', { token: tok.crc1, headers: H, form: { ptsId, pageSize: 200 } })).body.data.content;
const bar = (ptsId: number, token = tok.crc1!) => s.api.post<ProcessBarPdfResult>('/project/manage/queryProcessBarPdf', { token, headers: H, form: { ptsId } });
const start = (ptsId: number, token = tok.crc1!, headers: Record<string, string | number> = H) => s.api.post<SubjectPdfView>('/project/manage/synthesisPdf', { token, headers, form: { ptsId } });

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['crc1', 'crc2', 'cra']) tok[a] = await s.api.login(a);
  const [a] = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  const add = (form: Record<string, string | number>) => s.api.post<{ ptsId: number }>('/project/managePts/add', { token: tok.crc1, headers: H, form: { siteId: a!.id, firstVisitDate: '2026-11-01', ...form } });
  pts = (await add({ idCard: ID_CARD })).body.data.ptsId;
  empty = (await add({})).body.data.ptsId;
  const r = await upload(s.api, tok.crc1!, H, { ptsId: pts, docType: 3 }, [
    { name: 'lab.pdf', bytes: await labPdf() },
    { name: 'photo.jpg', bytes: await jpeg(300, 200) },
    { name: 'blank.pdf', bytes: await blankPdf(2) },
  ]);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  await waitFor(() => files(pts), (f) => f.every((x) => x.status === 1));
});
afterAll(async () => {
  await s?.stop();
  await closeOcr();
});

describe('PDF synthesis', () => {
  it("combines the subject's de-identified pages into one PDF with progress, without the identifiers", async () => {
    const before = (await bar(pts)).body.data;
    expect(before).toMatchObject({ latest: null, running: false, available: 3 });
    const r = await start(pts);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data).toMatchObject({ status: 1, files: 3, pages: 4 });
    const done = await waitFor(() => bar(pts), (x) => x.body.data.latest?.status !== 1);
    expect(done.body.data.latest).toMatchObject({ status: 2, pages: 4, done: 4, percent: 100 });
    expect(done.body.data.lastDone?.id).toBe(r.body.data.id);

    const res = await fetch(`${s.url}/api/project/manage/downloadPdf?id=${r.body.data.id}`, { headers: { token: tok.cra!, proId: '1', proType: 'PRO' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect((await PDFDocument.load(bytes)).getPageCount()).toBe(4);
    // the ID number of lab.pdf is gone: the copy is pixels (plus only the footer labels we drew)
    const doc = await openPdf(bytes);
    try {
      let text = '';
      for (let i = 0; i < doc.numPages; i++) text += (await pdfPageText(doc, i)).map((t) => t.text).join(' ');
      expect(text).not.toContain(ID_CARD);
      expect(text).toContain('1/4');
    } finally {
      await doc.close();
    }
  });

  it("refuses a second synthesis while one runs with the spec's message, in both languages", async () => {
    // a running row (as if a job were under way): the partial unique index refuses the second
    const [row] = await s.database.db.select().from(subjectPdfs).where(eq(subjectPdfs.subjectId, pts));
    await s.database.db.insert(subjectPdfs).values({ env: 'PRO', projectId: 1, siteId: row!.siteId, subjectId: pts, status: 1, heartbeatAt: new Date() });
    const r = await start(pts);
    expect(r.status).toBe(409);
    expect(r.body.message).toBe('PDF synthesis in progress, please try again later');
    const zh = await start(pts, tok.crc1, { ...H, language: 'zh_CN' });
    expect(zh.body.message).toBe('PDF 合成中，请稍后再试');
    expect((await bar(pts)).body.data.running).toBe(true);
  });

  it('fails a synthesis whose worker stopped beating, so the subject can start again', async () => {
    await s.database.db
      .update(subjectPdfs)
      .set({ heartbeatAt: new Date(Date.now() - 10 * 60_000) })
      .where(and(eq(subjectPdfs.subjectId, pts), eq(subjectPdfs.status, 1)));
    const r = await start(pts);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    await waitFor(() => bar(pts), (x) => x.body.data.latest?.status === 2);
    const rows = await s.database.db.select().from(subjectPdfs).where(eq(subjectPdfs.subjectId, pts));
    expect(rows.filter((x) => x.status === 3 && x.errorCode === 'documents.error.interrupted')).toHaveLength(1);
  });

  it('refuses a subject with nothing de-identified, and another site', async () => {
    const r = await start(empty);
    expect(r.status).toBe(409);
    expect(r.body.message).toBe('The subject has no de-identified source file to combine yet');
    expect((await start(pts, tok.crc2)).status).toBe(404);
    expect((await bar(pts, tok.crc2)).status).toBe(404);
    const [done] = await s.database.db.select().from(subjectPdfs).where(and(eq(subjectPdfs.subjectId, pts), eq(subjectPdfs.status, 2)));
    const res = await fetch(`${s.url}/api/project/manage/downloadPdf?id=${done!.id}`, { headers: { token: tok.crc2!, proId: '1', proType: 'PRO' } });
    expect(res.status).toBe(404);
  });
});
