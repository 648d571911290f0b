/**
 * Source documents over the real API (issue 12, first server step): upload checked by content with nothing stored on
 * refusal, limits, the repeated-upload refusal, site scoping and the original's access rule, the de-identification job
 * (OCR_ENGINE=none here: a PDF's own text layer gives the boxes), the status workflow and its audit, recovery.
 */
process.env.OCR_ENGINE = 'none';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import { pdfPageText } from '@esource/redact';
import { close as closeOcr } from '@esource/ocr';
import type { SourceFileView } from '@esource/shared';
import { auditEvents, progressItems, sites, sourceFiles } from '../src/db/schema';
import { fileStoreOf, LocalFileStore } from '../src/modules/documents/file-store';
import { DeidJob } from '../src/modules/documents/deid.job';
import { startTestServer, waitFor, type TestServer } from './harness';
import { ID_CARD, blankPdf, encryptedPdf, jpeg, labPdf, noise, pixelBomb, png, upload, type UploadFile } from './documents-fixtures';

let s: TestServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};
let siteA = 0;
let pts = 0;
let pts2 = 0;

const list = async (ptsId: number, token = tok.crc1!) => (await s.api.post<{ totalCount: number; content: SourceFileView[] }>('/source/file/list', { token, headers: H, form: { ptsId, pageSize: 200 } })).body.data;
const settled = (ptsId: number) => waitFor(() => list(ptsId), (d) => d.content.every((f) => f.status !== 0));

function storedFiles(): number {
  const store = fileStoreOf(s.config);
  if (!(store instanceof LocalFileStore)) throw new Error('these tests count the files of the local store');
  const root = store.root;
  if (!fs.existsSync(root)) return 0;
  return fs.readdirSync(root, { recursive: true }).filter((p) => fs.statSync(path.join(root, String(p))).isFile()).length;
}

async function read(id: number, copy: 'redacted' | 'original', token: string) {
  const res = await fetch(`${s.url}/api/source/file/read?id=${id}&copy=${copy}`, { headers: { token, proId: '1', proType: 'PRO', language: 'en_US' } });
  return { status: res.status, type: res.headers.get('content-type'), bytes: Buffer.from(await res.arrayBuffer()) };
}

const audits = (ids: number[], action: string) =>
  s.database.db.select().from(auditEvents).where(and(eq(auditEvents.entity, 'sourceFile'), eq(auditEvents.action, action), inArray(auditEvents.entityId, ids.map(String))));

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['crc1', 'crc2', 'cra', 'dm', 'pi']) tok[a] = await s.api.login(a);
  const [a] = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  siteA = a!.id;
  const add = (form: Record<string, string | number>) => s.api.post<{ ptsId: number }>('/project/managePts/add', { token: tok.crc1, headers: H, form: { siteId: siteA, firstVisitDate: '2026-11-01', ...form } });
  pts = (await add({ idCard: ID_CARD, initials: 'ZW', medicalRecordId: 'MR778899' })).body.data.ptsId;
  pts2 = (await add({})).body.data.ptsId;
  expect(pts).toBeGreaterThan(0);
});
afterAll(async () => {
  await s?.stop();
  await closeOcr();
});

describe('source documents', () => {
  let pngId = 0;
  let pdfId = 0;
  let jpgId = 0;

  it('lists the 8 document types, translated', async () => {
    const r = await s.api.get<{ value: number; label: string }[]>('/source/file/type/list', { token: tok.crc1, headers: H });
    expect(r.body.data.map((t) => t.value)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(r.body.data[2]!.label).toBe('Test');
    const zh = await s.api.get<{ label: string }[]>('/source/file/type/list', { token: tok.crc1, headers: { ...H, language: 'zh_CN' } });
    expect(zh.body.data[2]!.label).toBe('检验');
  });

  it('accepts PNG, JPEG and PDF in one upload, stores them by hash and de-identifies each in a job', async () => {
    const r = await upload(s.api, tok.crc1!, H, { ptsId: pts, docType: 3 }, [
      { name: 'lab.png', bytes: await png() },
      { name: 'photo.jpg', bytes: await jpeg() },
      { name: 'report.pdf', bytes: await labPdf() },
    ]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.files.map((f) => f.status)).toEqual([0, 0, 0]);
    [pngId, jpgId, pdfId] = r.body.data.files.sort((a, b) => a.id - b.id).map((f) => f.id) as [number, number, number];
    const done = await settled(pts);
    expect(done.totalCount).toBe(3);
    for (const f of done.content) expect(f.status, f.errorMessage ?? '').toBe(1);
    const pdf = done.content.find((f) => f.id === pdfId)!;
    // the PDF's own text layer placed a box over the ID number (the subject's own identifier)
    expect(pdf.boxes.some((b) => b.kind === 'subjectIdentifier' || b.kind === 'idCard')).toBe(true);
    const copy = await read(pdfId, 'redacted', tok.crc1!);
    expect(copy.status).toBe(200);
    expect(copy.type).toBe('application/pdf');
    const text = (await pdfPageText(new Uint8Array(copy.bytes), 0)).map((t) => t.text).join(' ');
    expect(text).not.toContain(ID_CARD);
    const row = await s.database.db.select().from(sourceFiles).where(eq(sourceFiles.id, pdfId));
    expect(row[0]!.ocr.map((o) => o.text).join(' ')).toContain('Glucose 5.6');
    expect(await audits([pngId, jpgId, pdfId], 'document.upload')).toHaveLength(3);
    expect(await audits([pngId, jpgId, pdfId], 'document.deid')).toHaveLength(3);
    // one progress item of type 1 per file, finished with success
    const rows = await s.database.db.select({ p: sourceFiles.progressItemId }).from(sourceFiles).where(inArray(sourceFiles.id, [pngId, jpgId, pdfId]));
    // (the runner marks the item after the handler returned)
    const prog = await waitFor(() => s.database.db.select().from(progressItems).where(inArray(progressItems.id, rows.map((x) => x.p!))), (p) => p.every((x) => x.status === 2));
    expect(prog.map((p) => [p.type, p.status])).toEqual([[1, 2], [1, 2], [1, 2]]);
  });

  const bad: [string, () => Promise<UploadFile>, RegExp][] = [
    ['a renamed .exe', async () => ({ name: 'scan.png', bytes: Buffer.concat([Buffer.from('MZ\x90\x00\x03\x00\x00\x00', 'latin1'), Buffer.alloc(2000, 7)]) }), /scan\.png: only PNG, JPG and PDF/],
    ['a 0-byte file', async () => ({ name: 'empty.jpg', bytes: Buffer.alloc(0) }), /empty\.jpg: the file is empty/],
    ['a truncated JPEG', async () => ({ name: 'cut.jpg', bytes: (await noise(300, 200, 'jpeg')).subarray(0, 6000) }), /cut\.jpg: the image is incomplete|cut\.jpg: the image is damaged/],
    ['a pixel bomb', async () => ({ name: 'bomb.png', bytes: await pixelBomb() }), /bomb\.png: the image is too large/],
    ['an encrypted PDF', async () => ({ name: 'secret.pdf', bytes: await encryptedPdf() }), /secret\.pdf: password-protected or encrypted/],
    ['a PDF over the page limit', async () => ({ name: 'long.pdf', bytes: await blankPdf(501) }), /long\.pdf: the PDF has more than 500 pages/],
    ['an image over 2 MB', async () => ({ name: 'big.png', bytes: await noise(1000, 800, 'png') }), /big\.png: images can be at most 2 MB/],
  ];
  for (const [label, make, message] of bad) {
    it(`refuses ${label} with a translated message naming the file, storing nothing`, async () => {
      const before = { rows: (await list(pts2)).totalCount, files: storedFiles() };
      const r = await upload(s.api, tok.crc1!, H, { ptsId: pts2, docType: 1 }, [{ name: 'good.png', bytes: await png(50, 50) }, await make()]);
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body.message).toMatch(message);
      expect((await list(pts2)).totalCount).toBe(before.rows);
      expect(storedFiles()).toBe(before.files);
    });
  }

  it('answers in Chinese too', async () => {
    const r = await upload(s.api, tok.crc1!, { ...H, language: 'zh_CN' }, { ptsId: pts2, docType: 1 }, [{ name: 'empty.png', bytes: Buffer.alloc(0) }]);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('empty.png：文件为空');
  });

  it('applies the limits: 20 images per upload, 200 files per subject, a document type 1..8, a file required', async () => {
    const one = await png(20, 20);
    const many = await upload(s.api, tok.crc1!, H, { ptsId: pts2, docType: 1 }, Array.from({ length: 21 }, (_, i) => ({ name: `p${i}.png`, bytes: one })));
    expect(many.status).toBe(400);
    expect(many.body.errorCode).toBe('DOCUMENT_TOO_MANY_IMAGES');
    expect(many.body.message).toBe('At most 20 images can be uploaded at a time (21 sent)');
    const type = await upload(s.api, tok.crc1!, H, { ptsId: pts2, docType: 9 }, [{ name: 'a.png', bytes: one }]);
    expect(type.status).toBe(400);
    expect(type.body.errorCode).toBe('VALIDATION');
    const none = await upload(s.api, tok.crc1!, H, { ptsId: pts2, docType: 1 }, []);
    expect(none.body.errorCode).toBe('DOCUMENT_NO_FILE');
    // 199 files already: two more are refused with the 200-file message, nothing stored
    const [ref] = await s.database.db.select().from(sourceFiles).where(eq(sourceFiles.id, pngId));
    const { id: _id, ...base } = ref!;
    await s.database.db.insert(sourceFiles).values(Array.from({ length: 199 }, () => ({ ...base, subjectId: pts2, status: 1, jobId: null })));
    const over = await upload(s.api, tok.crc1!, H, { ptsId: pts2, docType: 1 }, [
      { name: 'a.png', bytes: one },
      { name: 'b.png', bytes: await png(21, 21) },
    ]);
    expect(over.status).toBe(400);
    expect(over.body.message).toBe('A subject can have at most 200 files (199 uploaded, 2 more sent)');
    expect((await list(pts2)).totalCount).toBe(199);
    await s.database.db.delete(sourceFiles).where(eq(sourceFiles.subjectId, pts2));
  });

  it('refuses a second upload while a file of the subject is still being de-identified', async () => {
    const [ref] = await s.database.db.select().from(sourceFiles).where(eq(sourceFiles.id, pngId));
    const { id: _id, ...base } = ref!;
    const [busy] = await s.database.db.insert(sourceFiles).values({ ...base, subjectId: pts2, status: 0, jobId: null }).returning();
    const r = await upload(s.api, tok.crc1!, H, { ptsId: pts2, docType: 1 }, [{ name: 'a.png', bytes: await png(22, 22) }]);
    expect(r.status).toBe(409);
    expect(r.body.message).toBe('Subject data is being uploaded and cannot be uploaded repeatedly');
    const zh = await upload(s.api, tok.crc1!, { ...H, language: 'zh_CN' }, { ptsId: pts2, docType: 1 }, [{ name: 'a.png', bytes: await png(22, 22) }]);
    expect(zh.body.message).toBe('受试者数据正在上传中，不能重复上传');
    await s.database.db.delete(sourceFiles).where(eq(sourceFiles.id, busy!.id));
  });

  it("scopes files by site and keeps the original from roles that may not see identifiers", async () => {
    // another site's coordinator: the subject and its files do not exist for them
    expect((await s.api.post('/source/file/list', { token: tok.crc2, headers: H, form: { ptsId: pts } })).status).toBe(404);
    expect((await read(pngId, 'redacted', tok.crc2!)).status).toBe(404);
    expect((await read(pngId, 'original', tok.crc2!)).status).toBe(404);
    expect((await upload(s.api, tok.crc2!, H, { ptsId: pts, docType: 1 }, [{ name: 'x.png', bytes: await png(23, 23) }])).status).toBe(404);
    // the monitor and the data manager: the de-identified copy only
    for (const who of ['cra', 'dm']) {
      const copy = await read(pngId, 'redacted', tok[who]!);
      expect(copy.status, who).toBe(200);
      expect(copy.type).toBe('image/jpeg');
      const orig = await read(pngId, 'original', tok[who]!);
      expect(orig.status, who).toBe(403);
    }
    // the site roles that see identifiers: the original, audited
    for (const who of ['crc1', 'pi']) {
      const orig = await read(pngId, 'original', tok[who]!);
      expect(orig.status, who).toBe(200);
      expect(orig.type).toBe('image/png');
      expect(orig.bytes.equals(await png())).toBe(true);
    }
    expect(await audits([pngId], 'document.readOriginal')).toHaveLength(2);
    // the monitor cannot upload
    expect((await upload(s.api, tok.cra!, H, { ptsId: pts, docType: 1 }, [{ name: 'x.png', bytes: await png(24, 24) }])).status).toBe(403);
  });

  it('moves files only along the transition table, version-checked and audited', async () => {
    const view = async (id: number) => (await list(pts)).content.find((f) => f.id === id)!;
    const post = (url: string, token: string, form: Record<string, string | number>) => s.api.post<SourceFileView>(url, { token, headers: H, form });
    let f = await view(pngId);
    // 1 → 3 and 1 → withdraw are not allowed
    const skip = await post('/source/file/updateStatus', tok.dm!, { id: pngId, version: f.version, status: 3 });
    expect(skip.status).toBe(409);
    expect(skip.body.message).toBe("A source file cannot go from 'Waiting submit' to 'Audit passed'");
    expect((await post('/source/file/withdrawStatus', tok.crc1!, { id: pngId, version: f.version })).status).toBe(409);
    // submit 1 → 2; a stale version is refused
    const sub = await post('/source/file/updateStatus', tok.crc1!, { id: pngId, version: f.version, status: 2 });
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    expect(sub.body.data.status).toBe(2);
    const stale = await post('/source/file/withdrawStatus', tok.crc1!, { id: pngId, version: f.version });
    expect(stale.status).toBe(409);
    expect(stale.body.errorCode).toBe('STALE_WRITE');
    // withdraw 2 → 1, submit again
    const wd = await post('/source/file/withdrawStatus', tok.crc1!, { id: pngId, version: sub.body.data.version });
    expect(wd.body.data.status).toBe(1);
    const sub2 = await post('/source/file/updateStatus', tok.crc1!, { id: pngId, version: wd.body.data.version, status: 2 });
    // the coordinator cannot audit; the monitor cannot change anything
    expect((await post('/source/file/updateStatus', tok.crc1!, { id: pngId, version: sub2.body.data.version, status: 3 })).status).toBe(403);
    expect((await post('/source/file/updateStatus', tok.cra!, { id: pngId, version: sub2.body.data.version, status: 3 })).status).toBe(403);
    // audit failed needs a reason
    const noReason = await post('/source/file/updateStatus', tok.dm!, { id: pngId, version: sub2.body.data.version, status: -1 });
    expect(noReason.status).toBe(400);
    expect(noReason.body.errorCode).toBe('REASON_REQUIRED');
    const failed = await post('/source/file/updateStatus', tok.dm!, { id: pngId, version: sub2.body.data.version, status: -1, reason: 'name visible in the header' });
    expect(failed.body.data.status).toBe(-1);
    expect(failed.body.data.reason).toBe('name visible in the header');
    expect((await post('/source/file/updateStatus', tok.dm!, { id: pngId, version: failed.body.data.version, status: 3 })).status).toBe(409);
    // another file passes
    f = await view(jpgId);
    const s2 = await post('/source/file/updateStatus', tok.crc1!, { id: jpgId, version: f.version, status: 2 });
    const passed = await post('/source/file/updateStatus', tok.dm!, { id: jpgId, version: s2.body.data.version, status: 3 });
    expect(passed.body.data.status).toBe(3);
    const trail = await audits([pngId, jpgId], 'document.status');
    expect(trail.map((a) => `${a.entityId}:${a.oldValue}→${a.newValue}`)).toEqual([
      `${pngId}:1→2`,
      `${pngId}:2→1`,
      `${pngId}:1→2`,
      `${pngId}:2→-1`,
      `${jpgId}:1→2`,
      `${jpgId}:2→3`,
    ]);
    expect(trail.find((a) => a.newValue === '-1')!.reason).toBe('name visible in the header');
    // filters
    const only = await s.api.post<{ totalCount: number }>('/source/file/list', { token: tok.crc1, headers: H, form: { ptsId: pts, status: 3 } });
    expect(only.body.data.totalCount).toBe(1);
  });

  it('queues again a file stuck in de-identification whose job is gone, and fails one interrupted too often', async () => {
    const job = new DeidJob(s.database, s.jobs, fileStoreOf(s.config));
    const old = new Date(Date.now() - 10 * 60_000);
    await s.database.db.update(sourceFiles).set({ status: 0, jobId: '00000000-0000-4000-8000-000000000000', heartbeatAt: null, createdAt: old }).where(eq(sourceFiles.id, pdfId));
    const r = await job.recover();
    expect(r.restarted).toBe(1);
    const done = await waitFor(() => list(pts), (d) => d.content.find((f) => f.id === pdfId)!.status === 1);
    expect(done.content.find((f) => f.id === pdfId)!.hasRedacted).toBe(true);
    expect(await audits([pdfId], 'document.restart')).toHaveLength(1);
    // a worker that died twice already (stale heartbeat): failed with the translated reason
    await s.database.db.update(sourceFiles).set({ status: 0, heartbeatAt: old, restarts: 2 }).where(eq(sourceFiles.id, pdfId));
    expect((await job.recover()).failed).toBe(1);
    const f = (await list(pts)).content.find((x) => x.id === pdfId)!;
    expect(f.status).toBe(-2);
    expect(f.errorMessage).toBe('De-identification was interrupted 3 times (the server stopped while it ran)');
  });
});
