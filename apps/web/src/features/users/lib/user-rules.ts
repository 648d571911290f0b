import {
  ACCOUNT_PATTERN,
  checkIdNumber,
  LIMITS,
  PHONE_PATTERN,
  userMail,
} from '@esource/shared';

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

export interface ImportProblem {
  /** the sheet row as Excel shows it (header = row 1), or null for a problem of the whole file */
  row: number | null;
  field: string;
  message: string;
}

/**
 * The server names a bad import row as `row N: field` in each `detail` entry; split them for the table.
 * Entries of the whole file (field `file`) have no row.
 */
export function parseImportProblems(detail: readonly { field: string; message: string }[]): ImportProblem[] {
  return detail
    .map((d) => {
      const m = /^row (\d+):\s*(.+)$/.exec(d.field);
      return m ? { row: Number(m[1]), field: m[2]!, message: d.message } : { row: null, field: d.field, message: d.message };
    })
    .sort((a, b) => (a.row ?? 0) - (b.row ?? 0));
}
