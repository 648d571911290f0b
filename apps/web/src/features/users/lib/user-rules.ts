import { ACCOUNT_PATTERN, checkIdNumber, LIMITS, PHONE_PATTERN, userMail } from '@esource/shared';

/**
 * The field rules of the user form (spec §5), reusing the shared validators the server applies. Each returns
 * the i18n key (namespace `users`) of the problem, or null when the value is fine; empty optional fields pass.
 */
export const userFieldProblem = {
  account(v: string | undefined): string | null {
    const s = (v ?? '').trim();
    if (!s) return 'validation.accountRequired';
    if (s.length > LIMITS.accountMax) return 'validation.accountMax';
    return ACCOUNT_PATTERN.test(s) ? null : 'validation.account';
  },
  phone(v: string | undefined): string | null {
    const s = (v ?? '').trim();
    if (!s) return 'validation.phoneRequired';
    return PHONE_PATTERN.test(s) ? null : 'validation.phone';
  },
  mail(v: string | undefined): string | null {
    const s = (v ?? '').trim();
    if (!s) return null;
    return userMail.safeParse(s).success ? null : 'validation.mail';
  },
  idNumber(v: string | undefined): string | null {
    const s = (v ?? '').trim();
    if (!s) return null;
    const p = checkIdNumber(s);
    return p ? `validation.idNumber_${p}` : null;
  },
} as const;
