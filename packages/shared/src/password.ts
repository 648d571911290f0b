import { LIMITS } from './constants';

/** Characters allowed as specials in a password (spec §5). */
export const PASSWORD_SPECIALS = '~!@#$%^&*';
const ONLY_ALLOWED = /^[A-Za-z0-9~!@#$%^&*]+$/;

export type PasswordRuleError = 'required' | 'rule';

/**
 * Checks a new password against spec §5: 8–30 characters, at least one digit, one letter and one special
 * of ~!@#$%^&*, and no other character types. Returns the failed rule, or null when valid.
 */
export function checkPasswordRules(pw: string): PasswordRuleError | null {
  if (!pw) return 'required';
  if (pw.length < LIMITS.passwordMin || pw.length > LIMITS.passwordMax) return 'rule';
  if (!ONLY_ALLOWED.test(pw)) return 'rule';
  if (!/[0-9]/.test(pw) || !/[A-Za-z]/.test(pw) || !/[~!@#$%^&*]/.test(pw)) return 'rule';
  return null;
}

/**
 * Password score 0–100, the classic additive scheme: length, letters (case mix), digits, symbols and a
 * bonus for combining them.
 */
export function passwordScore(pw: string): number {
  let score = 0;
  const len = pw.length;
  score += len < 5 ? 5 : len < 8 ? 10 : 25;
  const lower = (pw.match(/[a-z]/g) ?? []).length;
  const upper = (pw.match(/[A-Z]/g) ?? []).length;
  const digits = (pw.match(/[0-9]/g) ?? []).length;
  const symbols = len - lower - upper - digits;
  if (lower + upper > 0) score += lower > 0 && upper > 0 ? 20 : 10;
  if (digits > 0) score += digits > 1 ? 20 : 10;
  if (symbols > 0) score += symbols > 1 ? 25 : 10;
  const letters = lower + upper > 0;
  if (lower > 0 && upper > 0 && digits > 0 && symbols > 0) score += 5;
  else if (letters && digits > 0 && symbols > 0) score += 3;
  else if (letters && digits > 0) score += 2;
  return Math.min(100, score);
}

export interface PasswordStrength {
  /** 0 not enough, 1 low, 2 medium, 3 strong */
  level: 0 | 1 | 2 | 3;
  /** bar percent: 33 × level (spec §5) */
  percent: number;
  score: number;
  /** true when shorter than 6 characters: 'Password strength is not enough.' */
  tooWeak: boolean;
  /**
   * true when the password breaks the rules whatever its score: a character outside letters, digits and
   * ~!@#$%^&* (a space, say) at any length, or — from 8 characters on — a missing digit, letter or special.
   * The meter says "invalid" then, never "strong".
   */
  invalid: boolean;
}

/** The strength meter of spec §5: <6 chars fails; score ≥30 low, ≥60 medium, ≥80 strong. */
export function passwordStrength(pw: string): PasswordStrength {
  const t = LIMITS.passwordStrength;
  const score = passwordScore(pw);
  const invalid = (pw.length > 0 && !ONLY_ALLOWED.test(pw)) || (pw.length >= LIMITS.passwordMin && checkPasswordRules(pw) !== null);
  if (pw.length < t.fail) return { level: 0, percent: 0, score, tooWeak: true, invalid };
  const level = score >= t.strong ? 3 : score >= t.medium ? 2 : score >= t.low ? 1 : 0;
  return { level, percent: 33 * level, score, tooWeak: level === 0, invalid };
}

/** True when the last change is older than the prompt period (spec §5: 90 days). */
export function passwordChangeDue(changedAt: Date | string | null | undefined, now = new Date()): boolean {
  if (!changedAt) return true;
  const t = typeof changedAt === 'string' ? Date.parse(changedAt) : changedAt.getTime();
  return now.getTime() - t >= LIMITS.passwordChangeDays * 86_400_000;
}
