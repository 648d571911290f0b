/**
 * Real-name verification (issue 15 item 2; spec §1 "personal profile … real-name verification"): the caller's name and
 * mainland resident ID number (GB 11643-1999: 18 characters, a real birth date, the ISO 7064 MOD 11-2 check character)
 * are checked by a provider (apps/server/src/modules/profile/real-name-provider.ts). The server keeps the result on the
 * user — the name, the number masked, a keyed hash (HMAC) of the number, the provider and the time — never the number
 * itself.
 */
import { z } from 'zod';
import { checkIdNumber } from './users.schema';

export const REAL_NAME = {
  /** provider checks (and refusals that reach the provider step) per user in 24 hours */
  perDay: 5,
  nameMax: 50,
} as const;

/**
 * A resident ID number as screens and answers show it: the first 3 and last 4 characters, 11 stars between
 * (110105194912310021 → 110***********0021). Anything that is not 18 characters is starred whole.
 */
export function maskIdNumber(id: string | null | undefined): string {
  const v = (id ?? '').trim().toUpperCase();
  if (v.length !== 18) return '*'.repeat(v.length);
  return `${v.slice(0, 3)}${'*'.repeat(11)}${v.slice(-4)}`;
}

/** A required resident ID number (upper-cased); the problem as `validation.idNumber_<format|birthDate|checksum>`. */
export const realNameIdNumber = z.preprocess(
  (v) => (typeof v === 'string' ? v.trim().toUpperCase() : v),
  z
    .string()
    .min(1)
    .superRefine((v, ctx) => {
      const p = checkIdNumber(v);
      if (p) ctx.addIssue({ code: 'custom', message: `validation.idNumber_${p}` });
    }),
);

/** A person's name as on the ID card: letters of any script, spaces, the middle dot (·, •) and hyphens. */
export const realNameName = z
  .string()
  .trim()
  .min(1)
  .max(REAL_NAME.nameMax)
  .regex(/^[\p{L}\p{M}][\p{L}\p{M} ·•.'’-]*$/u, { message: 'validation.realName' });

export const realNameVerifyRequest = z.object({ name: realNameName, idNumber: realNameIdNumber });
export type RealNameVerifyRequest = z.infer<typeof realNameVerifyRequest>;

export const realNameInfo = z.object({
  verified: z.boolean(),
  name: z.string().nullable(),
  /** 110***********0021 */
  idNumberMasked: z.string().nullable(),
  verifiedAt: z.string().nullable(),
  /** the provider that verified it, e.g. development */
  provider: z.string().nullable(),
  /** checks left today (REAL_NAME.perDay a day) */
  remainingToday: z.number().int(),
  /** whether a provider is configured (REAL_NAME_PROVIDER) */
  available: z.boolean(),
});
export type RealNameInfo = z.infer<typeof realNameInfo>;
