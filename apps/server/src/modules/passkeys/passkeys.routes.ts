/**
 * Face login (issue 15 item 2; spec §7 POST /passport/getfaceAttest, /passport/faceLogin) and the caller's passkeys
 * (/user/passkey/*, the profile page). Payloads: packages/shared/src/face-login.schema.ts.
 */
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  faceAttestRequest,
  faceAttestResponse,
  faceLoginRequest,
  loginResponse,
  passkeyList,
  passkeyRegisterRequest,
  passkeyRemoveRequest,
  passkeyRow,
} from '@esource/shared';
import type { AppDeps } from '../../app-deps';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { PasskeyService } from './passkeys.service';

const SELF = { permission: 'any', scope: 'system' } as const;

/** The purpose of a getfaceAttest body, for its rate-limit key. */
function purposeOf(req: FastifyRequest): string {
  const p = (req.body as { purpose?: unknown } | undefined)?.purpose;
  return p === 'register' ? 'register' : 'login';
}
const tags = ['auth'];

export function passkeyRoutes({ database, config, auth }: AppDeps): RouteSpec[] {
  const passkeys = new PasskeyService(database.db, config, auth);
  return [
    defineRoute({
      method: 'POST',
      url: '/passport/getfaceAttest',
      // a login needs no session; an enrolment (purpose register) checks the caller's session itself
      guard: { public: true },
      summary:
        'WebAuthn options for face login (purpose login, optional account) or for enrolling a passkey (purpose register, with the session and the current password digest)',
      tags,
      bodyType: 'json',
      body: faceAttestRequest,
      response: faceAttestResponse,
      // each call stores a challenge: 60 a minute per address and purpose (an enrolment also needs the password)
      rateLimit: { max: 60, timeWindow: '1 minute', key: (req) => `faceAttest:${purposeOf(req)}:${req.ip}` },
      handler: ({ ctx, body, req }) => passkeys.options(ctx, req, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/passport/faceLogin',
      guard: { public: true },
      summary:
        'Log in with a passkey (face login): the assertion for a getfaceAttest login challenge; answers like /passport/login',
      tags,
      bodyType: 'json',
      body: faceLoginRequest,
      response: loginResponse,
      // an answer needs an unused challenge of getfaceAttest (itself limited); this caps the signature checks
      rateLimit: { max: 60, timeWindow: '1 minute', key: (req) => `faceLogin:${req.ip}` },
      handler: ({ body, req, ctx }) =>
        passkeys.login(body, {
          ip: req.ip,
          userAgent: req.headers['user-agent'] ?? null,
          requestId: ctx.requestId,
        }),
    }),
    defineRoute({
      method: 'POST',
      url: '/user/passkey/register',
      guard: SELF,
      summary:
        "Enrol a passkey: the authenticator's answer to the caller's getfaceAttest register challenge, and a device name",
      tags,
      bodyType: 'json',
      body: passkeyRegisterRequest,
      response: passkeyRow,
      handler: ({ ctx, body }) => passkeys.register(ctx, body),
    }),
    defineRoute({
      method: 'GET',
      url: '/user/passkey/list',
      guard: SELF,
      summary: "The caller's passkeys (at most 10)",
      tags,
      response: passkeyList,
      handler: ({ ctx }) => passkeys.list(ctx),
    }),
    defineRoute({
      method: 'POST',
      url: '/user/passkey/remove',
      guard: SELF,
      summary: "Remove one of the caller's passkeys (the current password digest re-authenticates)",
      tags,
      body: passkeyRemoveRequest,
      response: z.null(),
      handler: async ({ ctx, body }) => {
        await passkeys.remove(ctx, body.id, body.password);
        return null;
      },
    }),
  ];
}
