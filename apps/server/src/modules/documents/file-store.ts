/**
 * Content-addressed file storage for source documents (issue 12 item 1). A file's key is the SHA-256 (hex) of its
 * bytes, so identical content is stored once. Two implementations, chosen by configuration (FILE_STORE):
 * - local (default): `<DATA_DIR>/files/ab/abcdef…`, written to a temp file in the same folder, then renamed: a crash
 *   never leaves half a file under a key;
 * - s3: any S3-compatible object store (AWS S3, MinIO, Ceph, OSS/COS in S3 mode), objects `<prefix>ab/abcdef…`; a PUT
 *   is atomic (an object is whole or absent) and carries its SHA-256, which the store checks.
 * Reads check the bytes against their key in both: a damaged or swapped object is an error, never silently served.
 * A key is shared by every row holding the same content: bytes are deleted only through file-refs.ts, which checks
 * every referencing table under the key's lock.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import { Transform, type Readable } from 'node:stream';
import os from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { Config, S3Settings } from '../../config/config';

export interface FileStore {
  /** Stores the bytes (once per content) and returns their key and size. */
  put(bytes: Uint8Array): Promise<{ key: string; size: number }>;
  /** The bytes under a key; throws when there are none. */
  get(key: string): Promise<Buffer>;
  exists(key: string): Promise<boolean>;
  /**
   * Stores a file already written to disk whose SHA-256 and size the caller computed while writing it (large
   * generated files: never read into memory). The file is moved or copied; the caller removes its own copy.
   */
  putFile(file: string, sha256: string, size: number): Promise<{ key: string; size: number }>;
  /** The content under a key as a stream, checked against its key at the end (a mismatch ends it with an error). */
  getStream(key: string): Promise<Readable>;
  /**
   * Removes the content under a key (nothing there is not an error). Other rows may hold the same key: call it only
   * through file-refs.ts `releaseContent`, which checks them under the key's lock.
   */
  delete(key: string): Promise<void>;
}

/** A stream of stored content that fails at its end when the content is not what its key says. */
function checkedStream(key: string, source: Readable): Readable {
  const hash = createHash('sha256');
  return source.pipe(
    new Transform({
      transform(chunk: Buffer, _enc, done) {
        hash.update(chunk);
        done(null, chunk);
      },
      flush(done) {
        done(hash.digest('hex') === key ? null : new Error(`stored content ${key} does not match its key (damaged or replaced)`));
      },
    }),
  );
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
    return checked(key, await fs.readFile(this.pathOf(key)));
  }

  async putFile(source: string, sha256: string, size: number): Promise<{ key: string; size: number }> {
    const file = this.pathOf(sha256);
    if (await this.exists(sha256)) return { key: sha256, size };
    await fs.mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${randomUUID()}.tmp`;
    try {
      await fs.copyFile(source, tmp);
      const h = await fs.open(tmp, 'r+');
      try {
        await h.sync();
      } finally {
        await h.close();
      }
      await fs.rename(tmp, file);
    } catch (err) {
      await fs.rm(tmp, { force: true });
      throw err;
    }
    return { key: sha256, size };
  }

  async getStream(key: string): Promise<Readable> {
    const file = this.pathOf(key);
    await fs.access(file);
    return checkedStream(key, createReadStream(file));
  }

  async exists(key: string): Promise<boolean> {
    try {
      await fs.access(this.pathOf(key));
      return true;
    } catch {
      return false;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await fs.unlink(this.pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/** The bytes, once they are what their key says. */
function checked(key: string, bytes: Buffer): Buffer {
  if (sha256Of(bytes) !== key) throw new Error(`stored content ${key} does not match its key (damaged or replaced)`);
  return bytes;
}

/** HTTP status of an S3 error (404 for a missing object), if any. */
const statusOf = (err: unknown) => (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

export class S3FileStore implements FileStore {
  readonly client: S3Client;
  constructor(readonly settings: S3Settings) {
    this.client = new S3Client({
      region: settings.region,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      forcePathStyle: settings.forcePathStyle,
      ...(settings.accessKeyId && settings.secretAccessKey ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } } : {}),
      // S3-compatible stores differ in the newer checksum headers; our own SHA-256 travels with every PUT instead
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
    });
  }

  objectOf(key: string): string {
    if (!KEY.test(key)) throw new Error(`bad file key ${key}`);
    return `${this.settings.prefix}${key.slice(0, 2)}/${key}`;
  }

  async put(bytes: Uint8Array): Promise<{ key: string; size: number }> {
    const key = sha256Of(bytes);
    if (await this.exists(key)) return { key, size: bytes.length };
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.settings.bucket,
        Key: this.objectOf(key),
        Body: bytes,
        ContentLength: bytes.length,
        ContentType: 'application/octet-stream',
        ChecksumSHA256: Buffer.from(key, 'hex').toString('base64'),
      }),
    );
    return { key, size: bytes.length };
  }

  async get(key: string): Promise<Buffer> {
    const r = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.objectOf(key) }));
    if (!r.Body) throw new Error(`stored content ${key} has no body`);
    return checked(key, Buffer.from(await r.Body.transformToByteArray()));
  }

  async putFile(file: string, sha256: string, size: number): Promise<{ key: string; size: number }> {
    if (await this.exists(sha256)) return { key: sha256, size };
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.settings.bucket,
        Key: this.objectOf(sha256),
        Body: createReadStream(file),
        ContentLength: size,
        ContentType: 'application/octet-stream',
        ChecksumSHA256: Buffer.from(sha256, 'hex').toString('base64'),
      }),
    );
    return { key: sha256, size };
  }

  async getStream(key: string): Promise<Readable> {
    const r = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: this.objectOf(key) }));
    if (!r.Body) throw new Error(`stored content ${key} has no body`);
    return checkedStream(key, r.Body as Readable);
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: this.objectOf(key) }));
      return true;
    } catch (err) {
      if (statusOf(err) === 404) return false;
      throw err;
    }
  }

  /**
   * (S3 answers a missing object's DELETE with success too. On a versioned bucket the old version stays until the
   * bucket's lifecycle rule expires noncurrent versions.)
   */
  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: this.objectOf(key) }));
    } catch (err) {
      if (statusOf(err) !== 404) throw err;
    }
  }
}

const stores = new WeakMap<Config, FileStore>();

/**
 * The process's store, shared by the routes and the jobs of a server: S3 when FILE_STORE=s3; else `DATA_DIR/files`,
 * or with an in-memory database (tests) a fresh temporary folder per configuration.
 */
export function fileStoreOf(config: Config): FileStore {
  let s = stores.get(config);
  if (!s) {
    if (config.fileStore.kind === 's3') s = new S3FileStore(config.fileStore);
    else {
      const root = config.dataDir.startsWith('memory://')
        ? path.join(os.tmpdir(), `esource-files-${randomUUID()}`)
        : path.resolve(config.dataDir, 'files');
      s = new LocalFileStore(root);
    }
    stores.set(config, s);
  }
  return s;
}
