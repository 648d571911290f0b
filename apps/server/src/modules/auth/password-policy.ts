/**
 * What the server can check of a new password although it only sees SHA-256(password) (spec §7): that the digest
 * is not one of a common or breached password, nor of the account name or a simple variant of it. The rules of
 * spec §5 (length, character classes) stay with the client, which sees the password itself.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { AppError } from '../../lib/errors';

const LIST_FILE = new URL('./common-passwords.sha256.txt', import.meta.url);
/** entries are the first 16 hex digits of the SHA-256 digest (see scripts/build-common-passwords.mjs) */
const PREFIX = 16;

let common: Set<string> | null = null;
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

/** The common-password digests, read once. */
function commonDigests(): Set<string> {
  if (!common) {
    const lines = fs.readFileSync(LIST_FILE, 'utf8').split('\n');
    common = new Set(lines.filter((l) => l.length === PREFIX && !l.startsWith('#')));
    // and every password of one or two printable ASCII characters (9,120 digests): 'a' is never a password
    const chars = Array.from({ length: 95 }, (_v, i) => String.fromCharCode(32 + i));
    for (const c of chars) {
      common.add(sha256(c).slice(0, PREFIX));
      for (const d of chars) common.add(sha256(c + d).slice(0, PREFIX));
    }
  }
  return common;
}

/** How many common-password digests are loaded (for tests and the docs' figures). */
export function commonPasswordCount(): number {
  return commonDigests().size;
}

const SUFFIXES = ['', '1', '12', '123', '1234', '12345', '123456', '!', '1!', '123!', '@123', '@1234', '@123456', '#123', '.'];

/** Digests of the account name and the variants people make of it (case, digits, a year, a special). */
export function accountVariantDigests(account: string, now = new Date()): Set<string> {
  const a = account.trim();
  const year = now.getUTCFullYear();
  const suffixes = [...SUFFIXES, ...[0, 1, 2, 3].flatMap((d) => [`${year - d}`, `@${year - d}`, `${year - d}!`])];
  const bases = new Set([a, a.toLowerCase(), a.toUpperCase(), a.charAt(0).toUpperCase() + a.slice(1).toLowerCase()]);
  const out = new Set<string>();
  for (const b of bases) for (const s of suffixes) out.add(sha256(b + s));
  return out;
}

/**
 * Refuses a new password digest that is a common or breached password (PASSWORD_TOO_COMMON) or the account name
 * or a simple variant of it (PASSWORD_LIKE_ACCOUNT). Every path that accepts a new password digest calls it.
 */
export function checkNewPasswordDigest(digest: string, account: string): void {
  const d = digest.toLowerCase();
  if (accountVariantDigests(account).has(d)) throw new AppError('PASSWORD_LIKE_ACCOUNT');
  if (commonDigests().has(d.slice(0, PREFIX))) throw new AppError('PASSWORD_TOO_COMMON');
}
