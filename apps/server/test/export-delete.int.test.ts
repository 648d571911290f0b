/**
 * A deleted generated file loses its bytes (issue 14 leftover, privacy): deleting an export removes its content from
 * the file store, unless another row holds the same content (another export, an eCRF file, an avatar); the deleted
 * row stays for the audit trail and answers 404; the sweep removes what a crash between the delete and the release
 * left; a writer recording content a release removed meanwhile stores it again (file-refs.ts).
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import type { ExportFileView } from '@esource/shared';
import { auditEvents, exportFiles, sites, uploads, users } from '../src/db/schema';
import { fileStoreOf, LocalFileStore, sha256Of } from '../src/modules/documents/file-store';
import { isReferenced, releaseContent, retainContent } from '../src/modules/documents/file-refs';
import { ExportsService } from '../src/modules/exports/exports.service';
import { avatarUrl } from '../src/modules/profile/avatar-url';
import { startTestServer, waitFor, type TestServer } from './harness';

let s: TestServer;
let store: LocalFileStore;
const H = { proId: 1, proType: 'PRO', language: 'en_US' };
const tok: Record<string, string> = {};

const start = () => s.api.post<ExportFileView>('/export/study/start', { token: tok.dm, headers: H, json: { kind: 'study-odm' } });
const get = (id: number) => s.api.post<ExportFileView>('/export/file/get', { token: tok.dm, headers: H, form: { id } });
const remove = (id: number) => s.api.post('/export/file/delete', { token: tok.dm, headers: H, form: { id } });
const download = (id: number) => fetch(`${s.url}/api/export/file/download?id=${id}`, { headers: { token: tok.dm!, proId: '1', proType: 'PRO' } });
const rowOf = async (id: number) => (await s.database.db.select().from(exportFiles).where(eq(exportFiles.id, id)))[0]!;
const stored = (key: string) => fs.existsSync(store.pathOf(key));

/** A finished export: its row (with the key of its content). */
async function made() {
  const r = await start();
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const f = await waitFor(
    () => get(r.body.data.id),
    (x) => x.body.data?.status === 'done' || x.body.data?.status === 'failed',
    60_000,
  );
  expect(f.body.data.status, JSON.stringify(f.body.data)).toBe('done');
  const row = await rowOf(r.body.data.id);
  expect(row.fileKey).toBe(row.sha256);
  expect(stored(row.fileKey!)).toBe(true);
  return row;
}

/** Another finished export holding the same content (as two files with identical bytes would). */
async function twin(row: typeof exportFiles.$inferSelect) {
  const [copy] = await s.database.db
    .insert(exportFiles)
    .values({ ...row, id: undefined, deletedAt: null, createdAt: new Date() })
    .returning();
  return copy!;
}

beforeAll(async () => {
  s = await startTestServer();
  const fsStore = fileStoreOf(s.config);
  if (!(fsStore instanceof LocalFileStore)) throw new Error('these tests look at the files of the local store');
  store = fsStore;
  for (const a of ['dm', 'crc1']) tok[a] = await s.api.login(a);
  const [site] = await s.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
  const r = await s.api.post<{ ptsId: number }>('/project/managePts/add', { token: tok.crc1, headers: H, form: { siteId: site!.id, firstVisitDate: '2026-11-01' } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
});
afterAll(async () => {
  await s?.stop();
});

describe('deleting a generated file', () => {
  it('removes its bytes from the store; the row stays, marked deleted, and answers 404', async () => {
    const row = await made();
    expect((await download(row.id)).status).toBe(200);
    const del = await remove(row.id);
    expect(del.status, JSON.stringify(del.body)).toBe(200);
    expect(stored(row.sha256!)).toBe(false);
    const after = await rowOf(row.id);
    expect(after.deletedAt).not.toBeNull();
    expect(after.fileKey).toBeNull();
    expect(after).toMatchObject({ sha256: row.sha256, size: row.size, status: 'done' });
    expect((await download(row.id)).status).toBe(404);
    expect((await get(row.id)).status).toBe(404);
    expect((await remove(row.id)).status).toBe(404);
    const audit = await s.database.db
      .select()
      .from(auditEvents)
      .where(and(eq(auditEvents.action, 'export.delete'), eq(auditEvents.entityId, String(row.id))));
    expect(audit).toHaveLength(1);
  });

  it('keeps bytes another row holds: an export with the same content, then an eCRF file', async () => {
    const row = await made();
    const key = row.fileKey!;
    const copy = await twin(row);
    const [upl] = await s.database.db
      .insert(uploads)
      .values({ env: 'PRO', projectId: 1, fileKey: key, name: 'same.xml', kind: 'image', size: row.size!, createdBy: row.createdBy })
      .returning();
    expect((await remove(row.id)).status).toBe(200);
    expect(stored(key)).toBe(true);
    // the deleted row is done with the key; the other export still downloads
    expect((await rowOf(row.id)).fileKey).toBeNull();
    expect((await download(copy.id)).status).toBe(200);
    expect((await remove(copy.id)).status).toBe(200);
    expect(stored(key)).toBe(true);
    // the last holder gone, the next release removes it
    await s.database.db.delete(uploads).where(eq(uploads.id, upl!.id));
    const third = await twin(row);
    expect((await remove(third.id)).status).toBe(200);
    expect(stored(key)).toBe(false);
  });

  it('counts an avatar as a holder', async () => {
    const row = await made();
    const key = row.fileKey!;
    const [dm] = await s.database.db.select().from(users).where(eq(users.id, row.createdBy));
    await s.database.db.update(users).set({ imgUrl: avatarUrl(key) }).where(eq(users.id, dm!.id));
    try {
      expect(await isReferenced(s.database.db, key)).toBe(true);
      expect((await remove(row.id)).status).toBe(200);
      expect(stored(key)).toBe(true);
    } finally {
      await s.database.db.update(users).set({ imgUrl: dm!.imgUrl }).where(eq(users.id, dm!.id));
    }
    expect(await isReferenced(s.database.db, key)).toBe(false);
    expect(await releaseContent(s.database.db, store, [key])).toEqual([key]);
    expect(stored(key)).toBe(false);
  });

  it('the sweep releases what a crash between the delete and the release left', async () => {
    const row = await made();
    const other = await made();
    // deleted, but the process stopped before the content went: the row still holds its key
    await s.database.db.update(exportFiles).set({ deletedAt: new Date() }).where(eq(exportFiles.id, row.id));
    const svc = new ExportsService(s.database, s.jobs, store);
    expect(await svc.sweepDeleted()).toBe(1);
    expect(stored(row.fileKey!)).toBe(false);
    expect((await rowOf(row.id)).fileKey).toBeNull();
    expect(stored(other.fileKey!)).toBe(true);
    expect(await svc.sweepDeleted()).toBe(0);
  });

  it('a writer recording content that a release removed after its put stores it again', async () => {
    const bytes = Buffer.from(`content released between a put and its row ${Date.now()}`);
    const { key } = await store.put(bytes);
    // the release wins the race: nothing references the key yet
    expect(await releaseContent(s.database.db, store, [key])).toEqual([key]);
    expect(stored(key)).toBe(false);
    await s.database.db.transaction(async (tx) => {
      await retainContent(tx, store, [{ key, bytes }]);
      await tx.insert(uploads).values({ env: 'PRO', projectId: 1, fileKey: key, name: 'late.png', kind: 'image', size: bytes.length });
    });
    expect((await store.get(key)).equals(bytes)).toBe(true);
    expect(sha256Of(bytes)).toBe(key);
    // and now it is held: a release keeps it
    expect(await releaseContent(s.database.db, store, [key])).toEqual([]);
    expect(stored(key)).toBe(true);
  });

  it('a release waits for a writer holding the key and then keeps its content', async () => {
    const bytes = Buffer.from(`content being recorded while released ${Date.now()}`);
    const { key } = await store.put(bytes);
    let releasing: Promise<string[]> | undefined;
    await s.database.db.transaction(async (tx) => {
      await retainContent(tx, store, [{ key, bytes }]);
      // (on the PostgreSQL server it waits on the key's lock, on the embedded database for the one connection)
      releasing = releaseContent(s.database.db, store, [key]);
      await new Promise((r) => setTimeout(r, 300));
      await tx.insert(uploads).values({ env: 'PRO', projectId: 1, fileKey: key, name: 'racing.png', kind: 'image', size: bytes.length });
    });
    expect(await releasing).toEqual([]);
    expect(stored(key)).toBe(true);
  });
});
