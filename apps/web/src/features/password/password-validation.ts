import { checkPasswordRules, LIMITS, passwordStrength } from '@esource/shared';

/** i18n keys (namespace `password`) of the spec §5 messages. */
export type NewPasswordError = 'required' | 'weak' | 'rule';

/**
 * New-password validation of spec §5, in the order a user meets them: required; shorter than 6 characters
 * = 'Password strength is not enough.'; then the 8–30 characters / digit + letter + special rule.
 */
export function validateNewPassword(pw: string | undefined): NewPasswordError | null {
  if (!pw) return 'required';
  const strength = passwordStrength(pw);
  if (pw.length < LIMITS.passwordStrength.fail || strength.tooWeak) return 'weak';
  const rule = checkPasswordRules(pw);
  if (rule === 'required') return 'required';
  if (rule === 'rule') return 'rule';
  return null;
}

export type ConfirmPasswordError = 'confirmRequired' | 'mismatch';

export function validateConfirmPassword(
  pw: string | undefined,
  confirm: string | undefined,
): ConfirmPasswordError | null {
  if (!confirm) return 'confirmRequired';
  if (pw !== confirm) return 'mismatch';
  return null;
}

export const STRENGTH_LABEL = ['levelNone', 'levelLow', 'levelMedium', 'levelStrong'] as const;
export const STRENGTH_COLOR = ['#d9d9d9', '#ff4d4f', '#faad14', '#52c41a'] as const;
