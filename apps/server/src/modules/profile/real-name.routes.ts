/**
 * Real-name verification (issue 15 item 2; the profile page /user-info): the caller's own result and a check of
 * their name and resident ID number by the configured provider. The spec names no calls; these follow /user/*.
 */
import { realNameInfo, realNameVerifyRequest } from '@esource/shared';
import type { AppDeps } from '../../app-deps';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { realNameProviderOf } from './real-name-provider';
import { RealNameService } from './real-name.service';

const SELF = { permission: 'any', scope: 'system' } as const;
const tags = ['profile'];

export function realNameRoutes({ database, config }: AppDeps): RouteSpec[] {
  const service = new RealNameService(database.db, realNameProviderOf(config));
  return [
    defineRoute({
      method: 'GET',
      url: '/user/realName',
      guard: SELF,
      summary:
        "The caller's real-name verification: verified or not, the name, the ID number masked, when, checks left today",
      tags,
      response: realNameInfo,
      handler: ({ ctx }) => service.info(ctx),
    }),
    defineRoute({
      method: 'POST',
      url: '/user/realName/verify',
      guard: SELF,
      summary:
        'Verify the caller’s name and resident ID number (GB 11643: check digit and birth date) with the provider; 5 a day',
      tags,
      body: realNameVerifyRequest,
      response: realNameInfo,
      rateLimit: { max: 30, timeWindow: '1 minute', key: (req) => `realName:${req.ip}` },
      handler: ({ ctx, body }) => service.verify(ctx, body),
    }),
  ];
}
