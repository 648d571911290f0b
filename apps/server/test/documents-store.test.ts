/** The local content-addressed file store: key = SHA-256, identical content once, temp file + rename (no leftovers). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalFileStore } from '../src/modules/documents/file-store';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'esource-store-test-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('LocalFileStore', () => {
  it('stores by hash under ab/abcdef…, once per content, and reads it back', async () => {
    const store = new LocalFileStore(root);
    const bytes = Buffer.from('a scanned lab report');
    const key = createHash('sha256').update(bytes).digest('hex');
    const [a, b] = await Promise.all([store.put(bytes), store.put(bytes)]);
    expect(a).toEqual({ key, size: bytes.length });
    expect(b.key).toBe(key);
    expect(fs.existsSync(path.join(root, key.slice(0, 2), key))).toBe(true);
    expect((await store.get(key)).equals(bytes)).toBe(true);
    expect(await store.exists(key)).toBe(true);
    expect(await store.exists('0'.repeat(64))).toBe(false);
    // one file, no temp file left behind
    expect(fs.readdirSync(path.join(root, key.slice(0, 2)))).toEqual([key]);
  });

  it('stores a file from disk and streams it back, checked against its key', async () => {
    const store = new LocalFileStore(root);
    const src = path.join(root, 'generated.tmp');
    const bytes = Buffer.from('a generated study export, '.repeat(10_000));
    fs.writeFileSync(src, bytes);
    const key = createHash('sha256').update(bytes).digest('hex');
    expect(await store.putFile(src, key, bytes.length)).toEqual({ key, size: bytes.length });
    const chunks: Buffer[] = [];
    for await (const c of await store.getStream(key)) chunks.push(c as Buffer);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    // content replaced behind the store's back: the stream ends in an error, never quietly
    fs.writeFileSync(path.join(root, key.slice(0, 2), key), 'replaced');
    const drain = async () => {
      const chunks: Buffer[] = [];
      for await (const c of await store.getStream(key)) chunks.push(c as Buffer);
      return chunks;
    };
    await expect(drain()).rejects.toThrow(/does not match its key/);
  });

  it('deletes the content under a key; a key with nothing under it is no error', async () => {
    const store = new LocalFileStore(root);
    const bytes = Buffer.from('a generated file, deleted by its owner');
    const { key } = await store.put(bytes);
    await store.delete(key);
    expect(await store.exists(key)).toBe(false);
    expect(fs.existsSync(path.join(root, key.slice(0, 2), key))).toBe(false);
    await expect(store.get(key)).rejects.toThrow();
    await store.delete(key);
    // stored again after the delete
    expect((await store.put(bytes)).key).toBe(key);
    expect((await store.get(key)).equals(bytes)).toBe(true);
  });

  it('refuses keys that are not a SHA-256 (no path outside the root)', async () => {
    const store = new LocalFileStore(root);
    await expect(store.get('../../etc/passwd')).rejects.toThrow(/bad file key/);
    await expect(store.delete('../../etc/passwd')).rejects.toThrow(/bad file key/);
    await expect(store.delete('A'.repeat(64))).rejects.toThrow(/bad file key/);
  });
});
