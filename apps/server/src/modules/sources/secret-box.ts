/**
 * Connection secrets (a bearer token, a SMART private key, a database password) encrypted at rest with AES-256-GCM.
 * The key is never in the database:
 *
 * 1. SOURCE_SECRET_KEY (64 hex characters or at least 32 characters of text, hashed to 32 bytes), else
 * 2. the key file `<DATA_DIR>/source-secret.key` (0600), else
 * 3. development only: a random key generated into that file (or, for an in-memory data dir, kept in this process).
 *    Production (NODE_ENV=production) refuses to start without one, like the audit key (audit-key.ts).
 *
 * Stored form: 'v1:<iv b64>:<tag b64>:<ciphertext b64>'. Secrets are never returned to a browser, logged or audited.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/config';

type KeyConfig = Pick<Config, 'dataDir' | 'production'>;

let processKey: Buffer | null = null;
let activeKey: Buffer | null = null;

function keyFromText(text: string): Buffer {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (t.length < 32) throw new Error('SOURCE_SECRET_KEY must be 64 hex characters or at least 32 characters');
  return createHash('sha256').update(t).digest();
}

/** Resolves the key as described above (throws in production when none is configured) and makes it the active one. */
export function resolveSourceSecretKey(config: KeyConfig, env: NodeJS.ProcessEnv = process.env): { source: string; warning: string | null } {
  const fromEnv = env.SOURCE_SECRET_KEY;
  if (fromEnv) {
    activeKey = keyFromText(fromEnv);
    return { source: 'env', warning: null };
  }
  const file = config.dataDir.startsWith('memory://') ? null : path.resolve(config.dataDir, 'source-secret.key');
  if (file && fs.existsSync(file)) {
    activeKey = keyFromText(fs.readFileSync(file, 'utf8'));
    return { source: 'file', warning: null };
  }
  if (config.production) {
    throw new Error(
      `source secret key missing: set SOURCE_SECRET_KEY or create ${file ?? 'the key file'} (e.g. \`openssl rand -hex 32 > FILE && chmod 600 FILE\`); refusing to start in production without one`,
    );
  }
  if (!file) {
    processKey ??= randomBytes(32);
    activeKey = processKey;
    return { source: 'memory', warning: null };
  }
  const key = randomBytes(32);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  try {
    fs.writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    activeKey = key;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    activeKey = keyFromText(fs.readFileSync(file, 'utf8'));
  }
  return { source: 'generated-file', warning: `no SOURCE_SECRET_KEY: generated a connection secret key in ${file} (0600); back it up` };
}

function key(): Buffer {
  if (!activeKey) {
    // tests and tools that never started a server: an in-process key
    processKey ??= randomBytes(32);
    activeKey = processKey;
  }
  return activeKey;
}

/**
 * A 32-byte key for another purpose (e.g. the real-name ID numbers' HMAC), derived from the active secret key with
 * HKDF-SHA256, `purpose` as info: one secret to keep and back up, separate keys in use.
 */
export function derivedKey(purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key(), Buffer.alloc(0), `esource/${purpose}`, 32));
}

export function encryptSecret(plain: string): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key(), iv);
  const enc = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
  return `v1:${iv.toString('base64')}:${c.getAuthTag().toString('base64')}:${enc.toString('base64')}`;
}

export function decryptSecret(stored: string | null | undefined): string | null {
  if (!stored) return null;
  const [v, iv, tag, data] = stored.split(':');
  if (v !== 'v1' || !iv || !tag || data === undefined) throw new Error('connection secret: unknown format');
  const d = createDecipheriv('aes-256-gcm', key(), Buffer.from(iv, 'base64'));
  d.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([d.update(Buffer.from(data, 'base64')), d.final()]).toString('utf8');
}
