/**
 * Where the audit chain's HMAC key comes from (security issue: a constant key in the source let anyone who can
 * write audit_events recompute the chain). The key is never in the database:
 *
 * 1. AUDIT_CHAIN_KEY (at least 32 characters), else
 * 2. the key file (AUDIT_CHAIN_KEY_FILE, default `<DATA_DIR>/audit-chain.key`, rights 0600), else
 * 3. development only: a random key is generated into that file (or, for an in-memory data dir, kept in this
 *    process only), with a loud warning. In production (NODE_ENV=production) the server refuses to start: a key
 *    generated on a new host would silently start a chain nobody can verify against the old key.
 *
 * The server and `npm run audit:verify` both call resolveAuditKey with the same Config, so they use the same key.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../../config/config';

export const MIN_KEY_LENGTH = 32;

export interface AuditKey {
  key: string;
  source: 'env' | 'file' | 'generated-file' | 'generated-memory';
  /** the key file used or created, if any */
  file: string | null;
  warnings: string[];
}

type KeyConfig = Pick<Config, 'auditChainKey' | 'auditKeyFile' | 'dataDir' | 'production'>;

/** The key file's path: AUDIT_CHAIN_KEY_FILE, or audit-chain.key in the data folder (none for an in-memory one). */
export function auditKeyFilePath(config: KeyConfig): string | null {
  if (config.auditKeyFile) return path.resolve(config.auditKeyFile);
  if (config.dataDir.startsWith('memory://')) return null;
  return path.resolve(config.dataDir, 'audit-chain.key');
}

let processKey: string | null = null;

/**
 * Resolves the audit key as described above; throws (refusing to start) when production has none. `create: false`
 * (audit:verify) never makes a key: a key made now could not vouch for rows chained before.
 */
export function resolveAuditKey(config: KeyConfig, opts: { create?: boolean } = {}): AuditKey {
  const warnings: string[] = [];
  if (config.auditChainKey) {
    if (config.auditChainKey.length < MIN_KEY_LENGTH) {
      const msg = `AUDIT_CHAIN_KEY is shorter than ${MIN_KEY_LENGTH} characters`;
      if (config.production) throw new Error(`${msg}: refusing to start (use e.g. \`openssl rand -hex 32\`)`);
      warnings.push(msg);
    }
    return { key: config.auditChainKey, source: 'env', file: null, warnings };
  }
  const file = auditKeyFilePath(config);
  if (file && fs.existsSync(file)) return { key: readKeyFile(file, config.production, warnings), source: 'file', file, warnings };
  if (config.production || opts.create === false) {
    throw new Error(
      `audit chain key missing: set AUDIT_CHAIN_KEY or create the key file ${file ?? '(AUDIT_CHAIN_KEY_FILE)'} ` +
        '(e.g. `openssl rand -hex 32 > FILE && chmod 600 FILE`)' +
        (config.production ? '; refusing to start in production without one' : ''),
    );
  }
  if (!file) {
    processKey ??= randomBytes(32).toString('hex');
    warnings.push('no AUDIT_CHAIN_KEY and an in-memory data folder: the audit chain key lives in this process only');
    return { key: processKey, source: 'generated-memory', file: null, warnings };
  }
  const key = randomBytes(32).toString('hex');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  try {
    // 'wx': two processes starting at once must not overwrite each other's key
    fs.writeFileSync(file, `${key}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return { key: readKeyFile(file, false, warnings), source: 'file', file, warnings };
  }
  warnings.push(
    `no AUDIT_CHAIN_KEY: generated a new audit chain key in ${file} (0600). Back it up and keep it away from ` +
      'database administrators: whoever holds it can rewrite the audit trail undetected. Production refuses to start without a configured key.',
  );
  return { key, source: 'generated-file', file, warnings };
}

function readKeyFile(file: string, production: boolean, warnings: string[]): string {
  const mode = fs.statSync(file).mode & 0o777;
  if (mode & 0o077) {
    const msg = `audit key file ${file} is readable by others (mode ${mode.toString(8)}); chmod 600 it`;
    if (production) throw new Error(`${msg}: refusing to start`);
    warnings.push(msg);
  }
  const key = fs.readFileSync(file, 'utf8').trim();
  if (key.length < MIN_KEY_LENGTH) throw new Error(`audit key file ${file} holds fewer than ${MIN_KEY_LENGTH} characters`);
  return key;
}

/** Prints the warnings so that nobody misses them (development only: production refuses instead). */
const warned = new Set<string>();
export function warnAboutAuditKey(k: AuditKey): void {
  for (const w of k.warnings) {
    if (warned.has(w)) continue;
    warned.add(w);
    console.warn(`\n*** AUDIT KEY WARNING: ${w} ***\n`);
  }
}
