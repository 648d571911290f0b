/**
 * Codes of shared-form links: SHARE_LIMITS.codeBytes (24) random bytes, base64url (32 characters, 192 bits): guessing
 * one among even millions of live links is not feasible, and the public calls are rate-limited per address besides.
 * The database keeps the code's SHA-256 (the lookup) and a copy encrypted with the server's secret key (secret-box.ts,
 * for its creator to copy the link again), never the code: a copy of the database alone opens no form.
 */
import { createHash, randomBytes } from 'node:crypto';
import { SHARE_CODE_PATTERN, SHARE_LIMITS } from '@esource/shared';
import { decryptSecret, encryptSecret } from '../sources/secret-box';

export function newShareCode(): string {
  return randomBytes(SHARE_LIMITS.codeBytes).toString('base64url');
}

/** The lookup key of a code; null for text that cannot be a code (it is then unknown, like any wrong code). */
export function shareCodeHash(code: string): string | null {
  if (!SHARE_CODE_PATTERN.test(code)) return null;
  return createHash('sha256').update(code, 'utf8').digest('hex');
}

export const sealShareCode = (code: string): string => encryptSecret(code);
export const openShareCode = (sealed: string): string | null => decryptSecret(sealed);
