/**
 * Content-addressed file storage for source documents (issue 12 item 1). A file's key is the SHA-256 (hex) of its
 * bytes, so identical content is stored once. The local store keeps `<root>/ab/abcdef…` and writes a temp file in the
 * same folder, then renames it: a crash never leaves half a file under a key. S3-compatible object storage is a later
 * implementation of the same interface (docs/architecture.md).
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Config } from '../../config/config';

export interface FileStore {
  /** Stores the bytes (once per content) and returns their key and size. */
  put(bytes: Uint8Array): Promise<{ key: string; size: number }>;
  /** The bytes under a key; throws when there are none. */
  get(key: string): Promise<Buffer>;
  exists(key: string): Promise<boolean>;
}

const KEY = /^[0-9a-f]{64}$/;

export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export class LocalFileStore implements FileStore {
  constructor(readonly root: string) {}

  /** The file of a key (only well-formed keys: a key never names a path outside the root). */
  pathOf(key: string): string {
    if (!KEY.test(key)) throw new Error(`bad file key ${key}`);
    return path.join(this.root, key.slice(0, 2), key);
  }

  async put(bytes: Uint8Array): Promise<{ key: string; size: number }> {
    const key = sha256Of(bytes);
    const file = this.pathOf(key);
    if (await this.exists(key)) return { key, size: bytes.length };
    await fs.mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${randomUUID()}.tmp`;
    try {
      const h = await fs.open(tmp, 'wx', 0o600);
      try {
        await h.writeFile(bytes);
        await h.sync();
      } finally {
        await h.close();
      }
      // (rename is atomic within a folder; a concurrent writer of the same content renames identical bytes)
      await fs.rename(tmp, file);
    } catch (err) {
      await fs.rm(tmp, { force: true });
      throw err;
    }
    return { key, size: bytes.length };
  }

  async get(key: string): Promise<Buffer> {
    return fs.readFile(this.pathOf(key));
  }

  async exists(key: string): Promise<boolean> {
    try {
      await fs.access(this.pathOf(key));
      return true;
    } catch {
      return false;
    }
  }
}

const stores = new WeakMap<Config, LocalFileStore>();

/**
 * The process's store: `DATA_DIR/files`; with an in-memory database (tests) a fresh temporary folder per
 * configuration, shared by the routes and the jobs of that server.
 */
export function fileStoreOf(config: Config): LocalFileStore {
  let s = stores.get(config);
  if (!s) {
    const root = config.dataDir.startsWith('memory://')
      ? path.join(os.tmpdir(), `esource-files-${randomUUID()}`)
      : path.resolve(config.dataDir, 'files');
    s = new LocalFileStore(root);
    stores.set(config, s);
  }
  return s;
}
