import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  ENVS,
  envListResponse,
  envTypeSwitchRequest,
  loginRequest,
  loginResponse,
  pmsInfoResponse,
  refreshResponse,
  updatePwdRequest,
} from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { AppError } from '../../lib/errors';
import type { AppDeps } from '../../app-deps';

/** The account name a login request is for (lower case), for rate-limit keys. */
function accountKey(req: FastifyRequest): string {
  const account = (req.body as { account?: unknown } | undefined)?.account;
  return typeof account === 'string' ? account.trim().toLowerCase() : '';
}

export function authRoutes({ auth }: AppDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'POST',
      url: '/passport/login',
      guard: { public: true },
      summary: 'Log in (client sends SHA-256 of the password)',
      tags: ['auth'],
      body: loginRequest,
      response: loginResponse,
      // per address and account; and per account whatever the address (a botnet or a spoofing proxy changes
      // the address, not the account). The lockout in the service caps real guesses either way.
      rateLimit: [
        { max: 20, timeWindow: '1 minute', key: (req) => `${req.ip}:${accountKey(req)}` },
        { max: 40, timeWindow: '1 minute', key: (req) => `account:${accountKey(req)}` },
      ],
      handler: ({ body, req, ctx }) =>
        auth.login(body, { ip: req.ip, userAgent: req.headers['user-agent'] ?? null, requestId: ctx.requestId }),
    }),
    defineRoute({
      method: 'POST',
      url: '/auth/logout',
      guard: { permission: 'any', scope: 'system', duringPasswordChange: true },
      summary: 'End the session',
      tags: ['auth'],
      response: z.null(),
      handler: async ({ ctx }) => {
        await auth.logout(ctx);
        return null;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/common/refresh',
      guard: { permission: 'any', scope: 'system', duringPasswordChange: true },
      summary: 'Keep-alive: extends the idle expiry of the session; with check=1 only reports it (the 30 s session check)',
      tags: ['auth'],
      body: z.object({ check: z.preprocess((v) => v === true || v === '1' || v === 'true', z.boolean()).default(false) }),
      response: refreshResponse,
      handler: ({ ctx, body }) => (body.check ? auth.sessionExpiry(ctx) : auth.refresh(ctx)),
    }),
    defineRoute({
      method: 'POST',
      url: '/auth/user/pmsInfo',
      guard: { permission: 'any', scope: 'system', duringPasswordChange: true },
      summary: 'Permissions, menus and user info (for the project in proId when given)',
      tags: ['auth'],
      bodyType: 'json',
      response: pmsInfoResponse,
      handler: ({ ctx, req }) => {
        // naming a project the caller cannot open is refused rather than answered without it
        if (req.headers.proid !== undefined && req.headers.proid !== '' && !ctx.project) throw new AppError('NOT_MEMBER');
        return auth.pmsInfo(ctx);
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/getProId',
      guard: { permission: 'any', scope: 'system' },
      summary: 'The id of a project given its uuid, when the caller is a member in the environment (entry by uuid)',
      tags: ['auth'],
      query: z.object({ uuid: z.uuid(), proType: z.enum(ENVS).optional() }),
      response: z.object({ proId: z.number().int(), proType: z.enum(ENVS) }),
      handler: ({ ctx, query }) => auth.projectIdByUuid(ctx, query.uuid, query.proType ?? ctx.env),
    }),
    defineRoute({
      method: 'POST',
      url: '/passport/envTypeSwitch',
      guard: { permission: 'any', scope: 'system' },
      summary: 'Switch the session environment (DEV, UAT, PRO)',
      tags: ['auth'],
      body: envTypeSwitchRequest,
      response: z.object({ projectType: z.enum(ENVS) }),
      handler: ({ ctx, body }) => auth.switchEnv(ctx, body.proType),
    }),
    defineRoute({
      method: 'GET',
      url: '/common/getEnv',
      guard: { permission: 'any', scope: 'system' },
      summary: 'Environment list with the ones this user may use',
      tags: ['auth'],
      response: envListResponse,
      handler: async ({ ctx }) => {
        const allowed = await auth.allowedEnvs(ctx);
        return ENVS.map((value) => ({ value, enabled: allowed.includes(value), current: value === ctx.env }));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/user/updatePwd',
      guard: { permission: 'any', scope: 'system', duringPasswordChange: true },
      summary: 'Change own password (oldPwd and newPwd are SHA-256 digests; the current password is verified)',
      tags: ['auth'],
      body: updatePwdRequest,
      response: z.null(),
      handler: async ({ ctx, body }) => {
        await auth.updatePassword(ctx, body.userId, body.oldPwd, body.newPwd);
        return null;
      },
    }),
  ];
}
