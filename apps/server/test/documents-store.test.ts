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

  it('refuses keys that are not a SHA-256 (no path outside the root)', async () => {
    const store = new LocalFileStore(root);
    await expect(store.get('../../etc/passwd')).rejects.toThrow(/bad file key/);
  });
});
