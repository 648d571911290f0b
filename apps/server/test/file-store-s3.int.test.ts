/**
 * S3-compatible file storage (issue 12 item 1: "S3-compatible object storage by configuration") against a real S3
 * protocol server in the test process (s3rver: signed requests, buckets, objects on disk): content addressing and
 * deduplication, objects under the prefix, a damaged object refused on read, a missing object, bad settings refused
 * at start, and a whole upload → de-identification → read of the copy through a server configured with FILE_STORE=s3.
 */
process.env.OCR_ENGINE = 'none';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { and, eq } from 'drizzle-orm';
import { sites } from '../src/db/schema';
import { close as closeOcr } from '@esource/ocr';
import type { SourceFileView } from '@esource/shared';
import { parseFileStore, type S3Settings } from '../src/config/config';
import { S3FileStore, sha256Of } from '../src/modules/documents/file-store';
import { startTestServer, waitFor, type TestServer } from './harness';
import { labPdf, upload } from './documents-fixtures';

const BUCKET = 'esource-test';
let s3: S3rver;
let dir: string;
let settings: S3Settings;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 's3rver-'));
  s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: BUCKET }] });
  const { port } = await s3.run();
  settings = parseFileStore({
    FILE_STORE: 's3',
    S3_ENDPOINT: `http://127.0.0.1:${port}`,
    S3_BUCKET: BUCKET,
    S3_PREFIX: 'files',
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
  }) as S3Settings;
});
afterAll(async () => {
  await s3?.close();
  fs.rmSync(dir, { recursive: true, force: true });
  await closeOcr();
});

describe('settings', () => {
  it('are checked when the server starts', () => {
    expect(parseFileStore({})).toEqual({ kind: 'local' });
    expect(() => parseFileStore({ FILE_STORE: 'ftp' })).toThrow(/local or s3/);
    expect(() => parseFileStore({ FILE_STORE: 's3' })).toThrow(/S3_BUCKET/);
    expect(() => parseFileStore({ FILE_STORE: 's3', S3_BUCKET: 'b', S3_ENDPOINT: 'minio:9000' })).toThrow(/http/);
    expect(() => parseFileStore({ FILE_STORE: 's3', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'k' })).toThrow(/together/);
    expect(settings).toMatchObject({ prefix: 'files/', forcePathStyle: true, region: 'us-east-1' });
    expect(parseFileStore({ FILE_STORE: 'S3', S3_BUCKET: 'b' })).toMatchObject({ endpoint: undefined, forcePathStyle: false });
  });
});

describe('S3FileStore', () => {
  it('stores by content hash under the prefix, once per content, and reads it back', async () => {
    const store = new S3FileStore(settings);
    const bytes = Buffer.from('a scanned page, de-identified');
    const a = await store.put(bytes);
    expect(a).toEqual({ key: sha256Of(bytes), size: bytes.length });
    expect(await store.exists(a.key)).toBe(true);
    expect((await store.get(a.key)).equals(bytes)).toBe(true);
    const again = await store.put(Buffer.from(bytes));
    expect(again.key).toBe(a.key);
    const listed = await store.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'files/' }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual([`files/${a.key.slice(0, 2)}/${a.key}`]);
  });

  it('stores a file from disk and streams it back', async () => {
    const store = new S3FileStore(settings);
    const bytes = Buffer.from('a generated study export, '.repeat(5_000));
    const src = path.join(os.tmpdir(), `esource-s3-put-${process.pid}.tmp`);
    fs.writeFileSync(src, bytes);
    try {
      const key = sha256Of(bytes);
      expect(await store.putFile(src, key, bytes.length)).toEqual({ key, size: bytes.length });
      const chunks: Buffer[] = [];
      for await (const c of await store.getStream(key)) chunks.push(c as Buffer);
      expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    } finally {
      fs.rmSync(src, { force: true });
    }
  });

  it('a missing object is absent, and reading it throws', async () => {
    const store = new S3FileStore(settings);
    const key = sha256Of(Buffer.from('never stored'));
    expect(await store.exists(key)).toBe(false);
    await expect(store.get(key)).rejects.toThrow();
    expect(() => store.objectOf('../../etc/passwd')).toThrow(/bad file key/);
  });

  it('deletes an object; deleting a missing one is no error; a bad key is refused', async () => {
    const store = new S3FileStore(settings);
    const bytes = Buffer.from('a generated export, deleted by its owner');
    const { key } = await store.put(bytes);
    await store.delete(key);
    expect(await store.exists(key)).toBe(false);
    const listed = await store.client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: store.objectOf(key) }));
    expect(listed.Contents ?? []).toEqual([]);
    await store.delete(key);
    await expect(store.delete('../x')).rejects.toThrow(/bad file key/);
  });

  it('refuses an object whose bytes no longer match its key', async () => {
    const store = new S3FileStore(settings);
    const { key } = await store.put(Buffer.from('the original scan'));
    await store.client.send(new PutObjectCommand({ Bucket: BUCKET, Key: store.objectOf(key), Body: Buffer.from('replaced behind our back') }));
    await expect(store.get(key)).rejects.toThrow(/does not match its key/);
  });
});

describe('a server with FILE_STORE=s3', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer({ config: { fileStore: { ...settings, prefix: 'server/' } } });
  });
  afterAll(async () => {
    await srv?.stop();
  });

  it('keeps an upload and its de-identified copy in the bucket', async () => {
    const H = { proId: 1, proType: 'PRO', language: 'en_US' };
    const crc = await srv.api.login('crc1');
    const [site] = await srv.database.db.select().from(sites).where(and(eq(sites.projectId, 1), eq(sites.env, 'PRO'), eq(sites.siteNo, '01')));
    const pts = await srv.api.post<{ ptsId: number }>('/project/managePts/add', { token: crc, headers: H, form: { siteId: site!.id, firstVisitDate: '2026-11-01' } });
    const ptsId = pts.body.data?.ptsId;
    expect(ptsId, JSON.stringify(pts.body)).toBeGreaterThan(0);
    const pdf = await labPdf();
    const r = await upload(srv.api, crc, H, { ptsId, docType: 3 }, [{ name: 'lab.pdf', bytes: pdf }]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const id = r.body.data.files[0]!.id;
    const done = await waitFor(
      () => srv.api.post<{ content: SourceFileView[] }>('/source/file/list', { token: crc, headers: H, form: { ptsId } }),
      (x) => x.body.data.content.every((f) => f.status !== 0),
    );
    expect(done.body.data.content[0]!.status, done.body.data.content[0]!.errorMessage ?? '').toBe(1);
    const copy = await fetch(`${srv.url}/api/source/file/read?id=${id}`, { headers: { token: crc, proId: '1', proType: 'PRO' } });
    expect(copy.status).toBe(200);
    const listed = await new S3FileStore(settings).client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'server/' }));
    const keys = (listed.Contents ?? []).map((o) => o.Key);
    expect(keys).toContain(`server/${sha256Of(pdf).slice(0, 2)}/${sha256Of(pdf)}`);
    const copyKey = sha256Of(Buffer.from(await copy.arrayBuffer()));
    expect(keys).toContain(`server/${copyKey.slice(0, 2)}/${copyKey}`);
  });
});
