/**
 * Files of eCRF file items over the real API (POST /common/upload, GET /common/file): images checked by content,
 * all or nothing, at most 100 per batch; the uploader reads the file before the form is saved, others only through a
 * form value naming it, within their sites; audited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { CommonUploadResult } from '@esource/shared';
import { auditEvents, crfValues, sites, uploads } from '../src/db/schema';
import { startTestServer, type TestServer } from './harness';
import { labPdf, png } from './documents-fixtures';

let s: TestServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};

const send = (who: string, files: { name: string; bytes: Buffer }[]) => {
  const fd = new FormData();
  for (const f of files) fd.append('files', new Blob([new Uint8Array(f.bytes)]), f.name);
  return s.api.post<CommonUploadResult>('/common/upload', { token: tok[who], headers: H, raw: { body: fd } });
};
const read = (who: string, id: number) => fetch(`${s.url}/api/common/file?id=${id}`, { headers: { token: tok[who]!, proId: '1', proType: 'PRO' } });

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['crc1', 'crc2', 'cra', 'dm']) tok[a] = await s.api.login(a);
});
afterAll(async () => {
  await s?.stop();
});

describe('files of eCRF file items', () => {
  it('stores checked images and answers their references; refuses the rest, storing nothing', async () => {
    const before = (await s.database.db.select().from(uploads)).length;
    const bad = await send('crc1', [
      { name: 'ok.png', bytes: await png() },
      { name: 'fake.png', bytes: Buffer.from('MZ not an image') },
    ]);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('fake.png');
    const pdf = await send('crc1', [{ name: 'scan.pdf', bytes: await labPdf() }]);
    expect(pdf.status).toBe(400);
    expect(pdf.body.message).toContain('only PNG or JPG');
    const many = await send('crc1', await Promise.all(Array.from({ length: 101 }, async (_, i) => ({ name: `p${i}.png`, bytes: await png(10 + i, 10) }))));
    expect(many.status).toBe(400);
    expect(many.body.message).toContain('At most 100 files');
    expect((await send('cra', [{ name: 'ok.png', bytes: await png() }])).status).toBe(403);
    expect((await s.database.db.select().from(uploads)).length).toBe(before);
    const ok = await send('crc1', [{ name: 'consent page.png', bytes: await png(64, 48) }]);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data[0]).toMatchObject({ name: 'consent page.png', kind: 'image' });
    expect(ok.body.data[0]!.ref).toBe(`upl:${ok.body.data[0]!.id}:consent page.png`);
    const [audit] = await s.database.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'upload.add'), eq(auditEvents.entityId, String(ok.body.data[0]!.id))));
    expect(audit).toBeDefined();
  });

  it('is read by its uploader, and by others only through a form value naming it, within their sites', async () => {
    const up = (await send('crc1', [{ name: 'ecg.png', bytes: await png(80, 40) }])).body.data[0]!;
    const mine = await read('crc1', up.id);
    expect(mine.status).toBe(200);
    expect(mine.headers.get('content-type')).toBe('image/png');
    // not yet in any form: nobody else reads it by its id
    expect((await read('cra', up.id)).status).toBe(404);
    // put it in a form value of a site-01 subject
    const [siteA] = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
    const pts = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: tok.crc1, headers: H, form: { siteId: siteA!.id, firstVisitDate: '2026-11-01' } });
    const sched = await s.api.get<{ visitId: number; code: string; forms: { formId: number; code: string }[] }[]>('/project/pts/visits', { token: tok.crc1, headers: H, query: { ptsId: pts.body.data.ptsId } });
    const v1 = sched.body.data.find((v) => v.code === 'V1')!;
    const saved = await s.api.post<{ instance: { id: number } }>('/crf/form/item/result/saveBatch', {
      token: tok.crc1,
      headers: H,
      json: { ptsId: pts.body.data.ptsId, visitId: v1.visitId, formId: v1.forms.find((f) => f.code === 'DM')!.formId, entryMode: 0, items: [{ variable: 'SEX', value: '1' }] },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    // (the demo forms have no file item: the value is written as a file item would hold it)
    await s.database.db.insert(crfValues).values({ instanceId: saved.body.data.instance.id, variable: 'ATTACH', value: { v: up.ref }, entryMode: 0 });
    expect((await read('cra', up.id)).status).toBe(200);
    expect((await read('crc2', up.id)).status).toBe(404);
    expect((await read('cra', 999_999)).status).toBe(404);
  });
});
