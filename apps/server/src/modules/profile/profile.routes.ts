/**
 * Personal settings (/user-info; issue 15 item 1): the caller's own name, e-mail, avatar and phone number. Every route
 * acts on the caller only (any logged-in user, system scope); an `id` naming another user is refused.
 */
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  avatarKeyQuery,
  changeBindPhoneRequest,
  idSchema,
  personalInfo,
  personalInfoUpdate,
  sendBindPhoneCodeRequest,
  sendBindPhoneCodeResponse,
  type Language,
} from '@esource/shared';
import type { AppDeps } from '../../app-deps';
import { AppError } from '../../lib/errors';
import { IMAGE_READ_MAX, readImageUpload } from '../../lib/image-upload';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { fieldError, parseInput } from '../../lib/validate';
import { fileStoreOf } from '../documents/file-store';
import { smsProviderOf } from '../sms/sms-provider';
import { avatarTooLarge } from './avatar';
import { PhoneCodeService } from './phone-code.service';
import { ProfileService } from './profile.service';

const SELF = { permission: 'any', scope: 'system' } as const;
const tags = ['profile'];
/** the spec's calls carry the user's id: when sent, it must be the caller's (ProfileService.own) */
const ownId = z.object({ id: z.preprocess((v) => (v === '' ? undefined : v), idSchema.optional()) });

/** The one avatar file (and an optional `id` field) of a multipart request. */
async function readAvatarUpload(
  req: FastifyRequest,
  lang: Language,
): Promise<{ bytes: Buffer; id: number | undefined }> {
  if (!req.isMultipart())
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', { type: req.headers['content-type'] ?? '' });
  const { fields, bytes } = await readImageUpload(req, () => avatarTooLarge(lang));
  const { id } = parseInput(ownId, fields, lang, 'body');
  if (bytes === null) throw fieldError(lang, 'file', 'validation.required');
  return { bytes, id };
}

export function profileRoutes({ database, config }: AppDeps): RouteSpec[] {
  const db = database.db;
  const profile = new ProfileService(db, fileStoreOf(config));
  const phones = new PhoneCodeService(db, smsProviderOf(config, db));
  return [
    defineRoute({
      method: 'POST',
      url: '/user/updatePersonalInfo',
      guard: SELF,
      summary:
        "Change the caller's own name and e-mail (an id, when sent, must be the caller's); each change audited",
      tags,
      body: personalInfoUpdate,
      response: personalInfo,
      handler: ({ ctx, body }) => profile.updatePersonalInfo(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/user/updateAvatar',
      guard: SELF,
      summary:
        "Set the caller's avatar (multipart `file`: PNG/JPG ≤ 2 MB, checked by content, re-encoded without metadata)",
      tags,
      bodyType: 'multipart',
      bodyLimit: IMAGE_READ_MAX + 64 * 1024,
      response: personalInfo,
      handler: async ({ ctx, req }) => {
        const { bytes, id } = await readAvatarUpload(req, ctx.language);
        return profile.updateAvatar(ctx, bytes, id);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/user/removeAvatar',
      guard: SELF,
      summary: "Remove the caller's avatar",
      tags,
      body: ownId,
      response: personalInfo,
      handler: ({ ctx, body }) => profile.removeAvatar(ctx, body.id),
    }),
    defineRoute({
      method: 'GET',
      url: '/user/avatar',
      // an <img> sends no token: the key (the SHA-256 of the re-encoded image) is the capability, and only a key that
      // is some user's current avatar is served (docs/decisions.md "Avatars")
      guard: { public: true },
      summary: "A user's avatar by its key (only keys that are a user's current avatar)",
      tags,
      query: avatarKeyQuery,
      response: z.unknown(),
      raw: true,
      rateLimit: { max: 600, timeWindow: '1 minute' },
      handler: async ({ query, reply }) => {
        const a = await profile.readAvatar(query.key);
        // content-addressed: the bytes under a key never change
        await reply
          .header('content-type', a.mime)
          .header('cache-control', 'private, max-age=31536000, immutable')
          .send(a.bytes);
        return undefined;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/passport/sendCode4BindPhone',
      guard: SELF,
      summary:
        'Send a verification code to the new phone number (1 a minute, 10 a day per number and per account)',
      tags,
      body: sendBindPhoneCodeRequest,
      response: sendBindPhoneCodeResponse,
      handler: ({ ctx, body }) => phones.sendBindCode(ctx, body.phone),
    }),
    defineRoute({
      method: 'POST',
      url: '/user/changeBindPhone',
      guard: SELF,
      summary:
        'Bind the new phone number with the code sent to it (5 minutes, once, 5 wrong entries at most)',
      tags,
      body: changeBindPhoneRequest,
      response: z.object({ phone: z.string() }),
      handler: ({ ctx, body }) => {
        if (body.id !== undefined && body.id !== ctx.user.id) throw new AppError('FORBIDDEN');
        return phones.changeBindPhone(ctx, body.phone, body.code);
      },
    }),
  ];
}
