/**
 * The de-identification job end to end with the real OCR engine (PaddleOCR, seconds per image: ONE small generated
 * image): a lab photo with the subject's name and ID number next to a lab value; the de-identified copy, read again by
 * OCR, holds neither identifier but still the value.
 */
process.env.OCR_ENGINE = 'paddle';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { close as closeOcr, ocrImage } from '@esource/ocr';
import type { SourceFileView } from '@esource/shared';
import { sites } from '../src/db/schema';
import { startTestServer, type TestServer } from './harness';
import { ID_CARD, upload } from './documents-fixtures';

let s: TestServer;
let crc1 = '';
let pts = 0;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };

beforeAll(async () => {
  s = await startTestServer();
  crc1 = await s.api.login('crc1');
  const [a] = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  pts = (await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: crc1, headers: H, form: { siteId: a!.id, firstVisitDate: '2026-11-01', idCard: ID_CARD } })).body.data.ptsId;
});
afterAll(async () => {
  await s?.stop();
  await closeOcr();
});

const labPhoto = () =>
  sharp(
    Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="900" height="260"><rect width="100%" height="100%" fill="#fff"/>
<g font-family="Noto Sans CJK SC, Noto Serif CJK SC" font-size="34" fill="#000">
<text x="40" y="60">姓名：张伟</text><text x="40" y="130">身份证号：${ID_CARD}</text><text x="40" y="200">血糖 5.6 mmol/L</text></g></svg>`),
  )
    .png()
    .toBuffer();

describe('source document de-identification with OCR', () => {
  it('removes the name and the ID number from the copy and keeps the lab value', async () => {
    const r = await upload(s.api, crc1, H, { ptsId: pts, docType: 3 }, [{ name: 'lab.png', bytes: await labPhoto() }]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.data.files[0]!.id;
    const end = Date.now() + 40_000;
    let f: SourceFileView | undefined;
    while (Date.now() < end) {
      const l = await s.api.post<{ content: SourceFileView[] }>('/source/file/list', { token: crc1, headers: H, form: { ptsId: pts } });
      f = l.body.data.content.find((x) => x.id === id);
      if (f && f.status !== 0) break;
      await new Promise((res) => setTimeout(res, 300));
    }
    expect(f?.status, f?.errorMessage ?? '').toBe(1);
    expect(f!.boxes.map((b) => b.kind).sort()).toEqual(expect.arrayContaining(['personName']));
    expect(f!.boxes.some((b) => b.kind === 'subjectIdentifier' || b.kind === 'idCard')).toBe(true);
    const res = await fetch(`${s.url}/api/source/file/read?id=${id}`, { headers: { token: crc1, proId: '1', proType: 'PRO' } });
    expect(res.status).toBe(200);
    const again = await ocrImage(new Uint8Array(await res.arrayBuffer()));
    const text = again.regions.map((g) => g.text).join('\n');
    expect(text).not.toContain('张伟');
    expect(text).not.toMatch(/\d{6}/);
    expect(text).toContain('5.6');
  });
});

describe('the OCR tool (POST /tool/ocrTools)', () => {
  const tool = (token: string, files: { name: string; bytes: Buffer }[]) => {
    const fd = new FormData();
    for (const f of files) fd.append('files', new Blob([new Uint8Array(f.bytes)]), f.name);
    return s.api.post<{ width: number; height: number; lines: { text: string }[]; boxes: { kind: string }[] }>('/tool/ocrTools', { token, headers: H, raw: { body: fd } });
  };

  it('answers what OCR reads and what de-identification would box, storing nothing', async () => {
    const dm = await s.api.login('dm');
    const r = await tool(dm, [{ name: 'sample.png', bytes: await labPhoto() }]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.data.width).toBe(900);
    expect(r.body.data.lines.map((l) => l.text).join('\n')).toContain('5.6');
    expect(r.body.data.boxes.map((b) => b.kind)).toEqual(expect.arrayContaining(['idCard', 'personName']));
  });

  it('takes one image only, checked by content', async () => {
    const dm = await s.api.login('dm');
    const two = await tool(dm, [
      { name: 'a.png', bytes: await labPhoto() },
      { name: 'b.png', bytes: await labPhoto() },
    ]);
    expect(two.status).toBe(400);
    expect(two.body.message).toContain('one image');
    const fake = await tool(dm, [{ name: 'x.png', bytes: Buffer.from('MZ not an image') }]);
    expect(fake.status).toBe(400);
    expect(fake.body.errorCode).toBe('DOCUMENT_FILE_INVALID');
    const ae = await s.api.login('ae');
    expect((await tool(ae, [{ name: 'a.png', bytes: await labPhoto() }])).status).toBe(403);
  });
});
