/**
 * The investigator site file over the real API (issue 12 item 8): document kinds configured by the data manager,
 * the not-uploaded count behind the ISF dot per site, the list with its filters, uploads in versions through the
 * documents' checks and de-identification job, the review workflow on an ISF version, site scope, removal with a
 * reason, and what others may not do. OCR_ENGINE=none: the job redacts without reading text.
 */
process.env.OCR_ENGINE = 'none';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { close as closeOcr } from '@esource/ocr';
import type { IsfDocPage, IsfKindView, SourceFileDetail, SourceFileView } from '@esource/shared';
import { auditEvents, sites, sourceFiles } from '../src/db/schema';
import { startTestServer, waitFor, type TestServer } from './harness';
import { labPdf, png, type UploadFile } from './documents-fixtures';

let s: TestServer;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const ZH = { ...H, language: 'zh_CN' };
const tok: Record<string, string> = {};
let siteA = 0;
let siteB = 0;
let protocol: IsfKindView;
let delegation: IsfKindView;
let cv: IsfKindView;

const saveKind = (body: Record<string, unknown>, who = 'dm', headers: Record<string, string | number> = H) => s.api.post<IsfKindView>('/rf/kind/save', { token: tok[who], headers, json: body });
const dot = async (who: string) => {
  const r = await s.api.get<number>('/rf/file/getUnUploadNum', { token: tok[who], headers: H });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data;
};
const list = async (who: string, form: Record<string, string | number | boolean> = {}) => {
  const r = await s.api.post<IsfDocPage>('/rf/file/page', { token: tok[who], headers: H, json: { pageSize: 50, ...form } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.data;
};
function isfUpload(who: string, fields: Record<string, string | number>, files: UploadFile[], headers: Record<string, string | number> = H) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) fd.append(k, String(v));
  for (const f of files) fd.append('files', new Blob([new Uint8Array(f.bytes)]), f.name);
  return s.api.post<SourceFileView>('/rf/file/upload', { token: tok[who], headers, raw: { body: fd } });
}
const settled = (id: number) =>
  waitFor(
    () => s.api.get<SourceFileDetail>('/source/file/detail', { token: tok.crc1, headers: H, query: { id } }),
    (r) => r.status === 200 && r.body.data.status !== 0,
  );

beforeAll(async () => {
  s = await startTestServer();
  for (const a of ['crc1', 'crc2', 'cra', 'dm', 'pi']) tok[a] = await s.api.login(a);
  const rows = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO')));
  siteA = rows.find((r) => r.siteNo === '01')!.id;
  siteB = rows.find((r) => r.siteNo === '02')!.id;
});
afterAll(async () => {
  await s?.stop();
  await closeOcr();
});

describe('ISF document kinds', () => {
  it('the data manager adds kinds: required at every site, required at one site, optional', async () => {
    const a = await saveKind({ name: '方案签字页', nameEn: 'Protocol signature page', required: true, siteIds: null, sort: 1 });
    expect(a.status, JSON.stringify(a.body)).toBe(200);
    protocol = a.body.data;
    const b = await saveKind({ name: '授权分工表', nameEn: 'Delegation log', required: true, siteIds: [siteA], sort: 2 });
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    delegation = b.body.data;
    const c = await saveKind({ name: '研究者简历', nameEn: 'Investigator CV', required: false, sort: 3 });
    expect(c.status, JSON.stringify(c.body)).toBe(200);
    cv = c.body.data;
    expect(cv.siteIds).toBeNull();
    expect(protocol.label).toBe('Protocol signature page');
    const zh = await s.api.get<IsfKindView[]>('/rf/kind/list', { token: tok.crc1, headers: ZH });
    expect(zh.body.data.map((k) => k.label)).toEqual(['方案签字页', '授权分工表', '研究者简历']);
    const [audit] = await s.database.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'isf.kind.add'), eq(auditEvents.entityId, String(protocol.id))));
    expect(audit).toBeDefined();
  });

  it('refuses a second kind of the same name in any letter case, in both languages', async () => {
    const en = await saveKind({ name: '方案签字页' });
    expect(en.status).toBe(409);
    expect(en.body.errorCode).toBe('ISF_KIND_NAME_TAKEN');
    expect(en.body.message).toContain('方案签字页');
    await saveKind({ name: 'Training Record', required: false });
    const upper = await saveKind({ name: 'TRAINING RECORD' }, 'dm', ZH);
    expect(upper.status).toBe(409);
    expect(upper.body.message).toContain('已有名为');
  });

  it('refuses a site of another project or environment, and names it', async () => {
    const [other] = await s.database.db.select().from(sites).where(eq(sites.env, 'UAT'));
    const r = await saveKind({ name: 'Ethics approval', siteIds: [siteA, other!.id] });
    expect(r.status).toBe(400);
    expect(r.body.detail?.[0]?.field).toBe('siteIds.1');
    expect(r.body.message).toContain(String(other!.id));
    const empty = await saveKind({ name: 'Ethics approval', siteIds: [] });
    expect(empty.status).toBe(400);
    const long = await saveKind({ name: 'x'.repeat(101) });
    expect(long.status).toBe(400);
  });

  it('only the data manager configures kinds; a change needs the version read', async () => {
    for (const who of ['crc1', 'cra', 'pi']) expect((await saveKind({ name: `by ${who}` }, who)).status).toBe(403);
    const stale = await saveKind({ id: cv.id, version: cv.version + 5, name: cv.name, required: false });
    expect(stale.status).toBe(409);
    expect(stale.body.errorCode).toBe('STALE_WRITE');
    const ok = await saveKind({ id: cv.id, version: cv.version, name: cv.name, nameEn: 'Investigator CVs', required: false, sort: 3 });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.data.version).toBe(cv.version + 1);
    cv = ok.body.data;
  });
});

describe('the ISF dot and list', () => {
  it('counts the required documents each site still lacks', async () => {
    expect(await dot('crc1')).toBe(2); // protocol + delegation at site A
    expect(await dot('crc2')).toBe(1); // protocol at site B
  });

  it("lists a site user's own site only, with filters and the missing flag", async () => {
    const a = await list('crc1');
    const own = a.content.filter((r) => ['方案签字页', '授权分工表', '研究者简历'].includes(r.kind.name));
    expect(own.map((r) => [r.kind.name, r.siteId, r.missing])).toEqual([
      ['方案签字页', siteA, true],
      ['授权分工表', siteA, true],
      ['研究者简历', siteA, false],
    ]);
    expect(a.content.every((r) => r.siteId === siteA)).toBe(true);
    expect((await list('crc1', { state: 'missing' })).totalCount).toBe(2);
    expect((await list('crc1', { keyword: 'delegation' })).content.map((r) => r.kind.id)).toEqual([delegation.id]);
    expect((await list('crc1', { required: false })).content.every((r) => !r.kind.required)).toBe(true);
    const all = await list('cra');
    expect(all.content.filter((r) => r.kind.id === protocol.id).map((r) => r.siteId).sort()).toEqual([siteA, siteB].sort());
    const bad = await s.api.post('/rf/file/page', { token: tok.crc1, headers: H, json: { pageSize: 7 } });
    expect(bad.status).toBe(400);
  });
});

describe('ISF uploads', () => {
  let v1: SourceFileView;
  let v2: SourceFileView;

  it('refuses what is not one good file for a kind kept at a reachable site, storing nothing', async () => {
    const before = await s.database.db.select().from(sourceFiles);
    const exe = Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200)]);
    const bad = await isfUpload('crc1', { kindId: protocol.id, siteId: siteA }, [{ name: 'setup.png', bytes: exe }]);
    expect(bad.status).toBe(400);
    expect(bad.body.errorCode).toBe('DOCUMENT_FILE_INVALID');
    expect(bad.body.message).toContain('setup.png');
    const two = await isfUpload('crc1', { kindId: protocol.id, siteId: siteA }, [
      { name: 'a.png', bytes: await png() },
      { name: 'b.png', bytes: await png() },
    ]);
    expect(two.status).toBe(400);
    expect(two.body.errorCode).toBe('ISF_ONE_FILE');
    expect((await isfUpload('crc1', { kindId: protocol.id, siteId: siteA }, [])).body.errorCode).toBe('DOCUMENT_NO_FILE');
    const other = await isfUpload('crc1', { kindId: protocol.id, siteId: siteB }, [{ name: 'a.png', bytes: await png() }]);
    expect(other.status).toBe(403);
    const notHere = await isfUpload('crc2', { kindId: delegation.id, siteId: siteB }, [{ name: 'a.png', bytes: await png() }]);
    expect(notHere.status).toBe(400);
    expect(notHere.body.errorCode).toBe('ISF_KIND_NOT_FOR_SITE');
    const noKind = await isfUpload('crc1', { kindId: 999_999, siteId: siteA }, [{ name: 'a.png', bytes: await png() }]);
    expect(noKind.status).toBe(404);
    const cra = await isfUpload('cra', { kindId: protocol.id, siteId: siteA }, [{ name: 'a.png', bytes: await png() }]);
    expect(cra.status).toBe(403);
    expect(await s.database.db.select().from(sourceFiles)).toHaveLength(before.length);
  });

  it('a site coordinator uploads a version; it is de-identified and the dot goes down', async () => {
    const r = await isfUpload('crc1', { kindId: protocol.id, siteId: siteA }, [{ name: 'signature.pdf', bytes: await labPdf() }]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    v1 = r.body.data;
    expect(v1).toMatchObject({ isfKindId: protocol.id, isfVersion: 1, ptsId: null, ptsNo: null, docType: null, siteId: siteA, kind: 'pdf' });
    const d = await settled(v1.id);
    expect(d.body.data.status, d.body.data.errorMessage ?? '').toBe(1);
    // the ID number on the page is boxed, as on a subject's documents
    expect(d.body.data.boxes.some((b) => b.kind === 'idCard')).toBe(true);
    expect(await dot('crc1')).toBe(1);
    expect(await dot('crc2')).toBe(1);
    const row = (await list('crc1', { keyword: 'Protocol' })).content[0]!;
    expect(row).toMatchObject({ versions: 1, missing: false });
    expect(row.latest?.id).toBe(v1.id);
    const [audit] = await s.database.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'isf.upload'), eq(auditEvents.entityId, String(v1.id))));
    expect(audit?.siteId).toBe(siteA);
  });

  it('a second upload while a version is being de-identified is refused with the kind named', async () => {
    await s.database.db.update(sourceFiles).set({ status: 0 }).where(eq(sourceFiles.id, v1.id));
    try {
      const r = await isfUpload('crc1', { kindId: protocol.id, siteId: siteA }, [{ name: 'again.png', bytes: await png() }]);
      expect(r.status).toBe(409);
      expect(r.body.errorCode).toBe('ISF_UPLOAD_BUSY');
      expect(r.body.message).toContain('Protocol signature page');
    } finally {
      await s.database.db.update(sourceFiles).set({ status: 1 }).where(eq(sourceFiles.id, v1.id));
    }
  });

  it('a new upload is the next version; parallel uploads never share a version', async () => {
    const rs = await Promise.all([1, 2, 3].map(async (i) => isfUpload('crc1', { kindId: protocol.id, siteId: siteA }, [{ name: `v${i}.png`, bytes: await png(100 + i, 80) }])));
    const ok = rs.filter((r) => r.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(1);
    for (const r of rs.filter((x) => x.status !== 200)) expect(r.body.errorCode).toBe('ISF_UPLOAD_BUSY');
    const versions = ok.map((r) => r.body.data.isfVersion);
    expect(new Set(versions).size).toBe(versions.length);
    v2 = ok[0]!.body.data;
    expect(v2.isfVersion).toBe(2);
    for (const r of ok) await settled(r.body.data.id);
    const all = await s.api.post<SourceFileView[]>('/rf/file/versions', { token: tok.crc1, headers: H, json: { kindId: protocol.id, siteId: siteA } });
    expect(all.body.data.map((f) => f.isfVersion)).toEqual([...versions, 1].sort((a, b) => b! - a!));
    const row = (await list('crc1', { keyword: 'Protocol' })).content[0]!;
    expect(row.versions).toBe(versions.length + 1);
    expect(row.latest?.isfVersion).toBe(Math.max(...(versions as number[])));
    const other = await s.api.post('/rf/file/versions', { token: tok.crc2, headers: H, json: { kindId: protocol.id, siteId: siteA } });
    expect(other.status).toBe(403);
  });

  it('is reviewed and audited through the documents calls, within site scope', async () => {
    expect((await s.api.get('/source/file/detail', { token: tok.crc2, headers: H, query: { id: v1.id } })).status).toBe(404);
    const cra = await s.api.get<SourceFileDetail>('/source/file/detail', { token: tok.cra, headers: H, query: { id: v1.id } });
    expect(cra.status).toBe(200);
    expect(cra.body.data.canOriginal).toBe(false);
    expect(cra.body.data.lines).toEqual([]);
    const orig = await fetch(`${s.url}/api/source/file/read?id=${v1.id}&copy=original`, { headers: { token: tok.cra!, proId: '1', proType: 'PRO' } });
    expect(orig.status).toBe(403);
    const d = (await s.api.get<SourceFileDetail>('/source/file/detail', { token: tok.crc1, headers: H, query: { id: v1.id } })).body.data;
    expect(d.canEdit).toBe(true);
    const saved = await s.api.post<SourceFileDetail>('/source/file/saveBoxes', {
      token: tok.crc1,
      headers: H,
      json: { id: v1.id, version: d.version, boxes: [...d.boxes, { page: 0, x: 10, y: 10, width: 40, height: 20, kind: 'manual', reason: '' }], masks: [] },
    });
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    const sub = await s.api.post<SourceFileView>('/source/file/updateStatus', { token: tok.crc1, headers: H, form: { id: v1.id, version: saved.body.data.version, status: 2 } });
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    const pass = await s.api.post<SourceFileView>('/source/file/updateStatus', { token: tok.dm, headers: H, form: { id: v1.id, version: sub.body.data.version, status: 3 } });
    expect(pass.status, JSON.stringify(pass.body)).toBe(200);
    expect(pass.body.data.status).toBe(3);
    // the project's source file list and the de-identification messages are a subject's documents only
    const page = await s.api.post<{ content: SourceFileView[] }>('/source/file/page', { token: tok.dm, headers: H, form: { pageSize: 200 } });
    expect(page.body.data.content.some((f) => f.isfKindId !== null)).toBe(false);
  });

  it('the data manager removes a version with a reason; others may not', async () => {
    const f = (await s.api.post<SourceFileView[]>('/rf/file/versions', { token: tok.dm, headers: H, json: { kindId: protocol.id, siteId: siteA } })).body.data[0]!;
    expect((await s.api.post('/rf/file/delete', { token: tok.crc1, headers: H, json: { id: f.id, version: f.version, reason: 'wrong' } })).status).toBe(403);
    const noReason = await s.api.post('/rf/file/delete', { token: tok.dm, headers: H, json: { id: f.id, version: f.version, reason: ' ' } });
    expect(noReason.status).toBe(400);
    const r = await s.api.post('/rf/file/delete', { token: tok.dm, headers: H, json: { id: f.id, version: f.version, reason: 'Uploaded to the wrong kind' } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const [audit] = await s.database.db.select().from(auditEvents).where(and(eq(auditEvents.action, 'isf.delete'), eq(auditEvents.entityId, String(f.id))));
    expect(audit?.reason).toBe('Uploaded to the wrong kind');
    const again = await s.api.post('/rf/file/delete', { token: tok.dm, headers: H, json: { id: f.id, version: f.version, reason: 'x' } });
    expect(again.status).toBe(404);
  });

  it('removing a kind takes it off the list and the dot', async () => {
    expect(await dot('crc1')).toBe(1); // the delegation log at site A
    const k = (await s.api.get<IsfKindView[]>('/rf/kind/list', { token: tok.dm, headers: H })).body.data.find((x) => x.id === delegation.id)!;
    expect((await s.api.post('/rf/kind/delete', { token: tok.crc1, headers: H, json: { id: k.id, version: k.version } })).status).toBe(403);
    const r = await s.api.post('/rf/kind/delete', { token: tok.dm, headers: H, json: { id: k.id, version: k.version } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(await dot('crc1')).toBe(0);
    expect((await list('crc1')).content.some((x) => x.kind.id === delegation.id)).toBe(false);
    // its name is free again
    expect((await saveKind({ name: '授权分工表', siteIds: [siteB] })).status).toBe(200);
    expect(await dot('crc2')).toBe(2);
    expect(await dot('crc1')).toBe(0);
  });
});
