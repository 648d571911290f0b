/**
 * Personal settings (/user-info; issue 15 item 1; spec §1, §2, §7): the caller's own name, e-mail and avatar
 * (POST /user/updatePersonalInfo, /user/updateAvatar, /user/removeAvatar), the phone change by a verification code
 * sent to the new number (POST /passport/sendCode4BindPhone, then /user/changeBindPhone), and the administrators'
 * view of the development SMS outbox (/system/smsOutbox).
 */
import { z } from 'zod';
import { idSchema, pageRequest, pageResult } from './common.schema';
import { userMail, userPhone } from './users.schema';

/** Verification codes (phone change): digits, lifetime, attempts and how often one may be requested. */
export const SMS_CODE = {
  digits: 6,
  /** a code expires this long after it was sent */
  ttlSeconds: 5 * 60,
  /** wrong entries of one code before it is spent */
  maxAttempts: 5,
  /** at most one code per phone number and per account in this many seconds */
  resendSeconds: 60,
  /** at most this many codes per phone number and per account in 24 hours */
  perDay: 10,
} as const;

/**
 * A phone number as screens and answers show it: 13812345678 → 138****5678; shorter numbers keep their first and
 * last quarter (the server masks the number a code went to; the web app the bound number and the watermark's).
 */
export function maskPhone(phone: string | null | undefined): string {
  if (!phone) return '';
  const p = phone.trim();
  if (p.length >= 11) return `${p.slice(0, 3)}****${p.slice(-4)}`;
  if (p.length <= 4) return '*'.repeat(p.length);
  const keep = Math.max(1, Math.floor(p.length / 4));
  return p.slice(0, keep) + '*'.repeat(p.length - 2 * keep) + p.slice(-keep);
}

/** The avatar is stored re-encoded, cropped to a square of this many pixels (metadata stripped). */
export const AVATAR_SIZE = 256;

const blank = (v: unknown): unknown => (v === '' || v === null ? undefined : v);

/** Name and e-mail of the caller (the avatar has its own calls); `id`, when sent, must be the caller's own. */
export const personalInfoUpdate = z.object({
  id: z.preprocess(blank, idSchema.optional()),
  name: z.string().trim().min(1).max(50),
  mail: userMail,
});
export type PersonalInfoUpdate = z.infer<typeof personalInfoUpdate>;

/** What the profile page shows after a change (the rest comes with the user info). */
export const personalInfo = z.object({
  id: z.number().int(),
  name: z.string(),
  mail: z.string().nullable(),
  phone: z.string().nullable(),
  /** a URL the browser loads as it is (GET /api/user/avatar?key=…), or null */
  imgUrl: z.string().nullable(),
});
export type PersonalInfo = z.infer<typeof personalInfo>;

/** A code to the new phone number. */
export const sendBindPhoneCodeRequest = z.object({ phone: userPhone });
export const sendBindPhoneCodeResponse = z.object({
  /** the number the code went to, masked */
  phone: z.string(),
  /** seconds until the code expires */
  expiresIn: z.number().int(),
  /** seconds before another code may be requested */
  resendIn: z.number().int(),
});
export type SendBindPhoneCodeResponse = z.infer<typeof sendBindPhoneCodeResponse>;

export const changeBindPhoneRequest = z.object({
  id: z.preprocess(blank, idSchema.optional()),
  phone: userPhone,
  code: z
    .string()
    .trim()
    .regex(/^\d{6}$/, { message: 'validation.smsCode' }),
});
export type ChangeBindPhoneRequest = z.infer<typeof changeBindPhoneRequest>;

export const avatarKeyQuery = z.object({
  key: z.string().regex(/^[0-9a-f]{64}$/, { message: 'validation.avatarKey' }),
});

// ── the SMS outbox (development provider) ──

export const smsOutboxQuery = pageRequest.extend({
  phone: z.preprocess(
    blank,
    z.string().trim().max(20).regex(/^\d+$/, { message: 'validation.phoneFilter' }).optional(),
  ),
});
export type SmsOutboxQuery = z.infer<typeof smsOutboxQuery>;

export const smsOutboxRow = z.object({
  id: z.number().int(),
  phone: z.string(),
  /** the message kind, e.g. bindPhone */
  template: z.string(),
  /** the text as the recipient would read it */
  body: z.string(),
  language: z.string(),
  userId: z.number().int().nullable(),
  userName: z.string().nullable(),
  createdAt: z.string(),
});
export type SmsOutboxRow = z.infer<typeof smsOutboxRow>;

export const smsOutboxPage = pageResult(smsOutboxRow).extend({
  /** the configured provider: 'outbox' (development: messages stay here) or 'http' (a real gateway) */
  provider: z.string(),
});
export type SmsOutboxPage = z.infer<typeof smsOutboxPage>;
