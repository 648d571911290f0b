import { z } from 'zod';
import { sql } from 'drizzle-orm';
import {
  adminInfo,
  adminInfoUpdate,
  hostsUpdate,
  hostsView,
  rangeOption,
  rangeOrg,
  sysConfigResponse,
  versionResponse,
} from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { SystemSettingsService } from './system-settings.service';

const startedAt = new Date().toISOString();

export function systemRoutes({ database, config }: AppDeps): RouteSpec[] {
  const settings = new SystemSettingsService(database.db, config);
  const configRead = { permission: { anyOf: ['system:config:query'] }, scope: 'system' } as const;
  const configWrite = { permission: { anyOf: ['system:config:update'] }, scope: 'system' } as const;
  return [
    defineRoute({
      method: 'GET',
      url: '/passport/getVersion',
      guard: { public: true },
      summary: 'Version of the running server',
      tags: ['system'],
      response: versionResponse,
      handler: async () => ({
        version: process.env.npm_package_version ?? '0.1.0',
        commit: process.env.GIT_COMMIT ?? null,
        buildTime: process.env.BUILD_TIME ?? startedAt,
      }),
    }),
    defineRoute({
      method: 'POST',
      url: '/sys/config/getConfig',
      guard: { public: true },
      summary: 'Host URLs of storage, ilink, auth, isource, icrc, igcp and evisit (an administrator\'s over the configured ones)',
      tags: ['system'],
      response: sysConfigResponse,
      handler: () => settings.hosts(),
    }),
    defineRoute({
      method: 'GET',
      url: '/sys/config/hosts',
      guard: configRead,
      summary: 'The host URLs for the settings page: value in force, whether an administrator set it, the configured default',
      tags: ['system'],
      response: hostsView,
      handler: () => settings.hostsView(),
    }),
    defineRoute({
      method: 'POST',
      url: '/sys/config/update',
      guard: configWrite,
      summary: 'Set the host URLs (empty: the configured default), with the lockVersion read; audited',
      tags: ['system'],
      bodyType: 'json',
      body: hostsUpdate,
      response: hostsView,
      handler: ({ ctx, body }) => settings.updateHosts(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/admin/info/detail',
      // the login pages show whom to contact: no session needed
      guard: { public: true },
      summary: "The administrator's contact (name, phone, e-mail, note), shown on the login and no-permission pages",
      tags: ['system'],
      response: adminInfo,
      handler: () => settings.adminInfo(),
    }),
    defineRoute({
      method: 'POST',
      url: '/admin/info/update',
      guard: configWrite,
      summary: "Change the administrator's contact, with the lockVersion read; audited",
      tags: ['system'],
      bodyType: 'json',
      body: adminInfoUpdate,
      response: adminInfo,
      handler: ({ ctx, body }) => settings.updateAdminInfo(ctx, body),
    }),
    defineRoute({
      method: 'GET',
      url: '/sys/range/listOrg',
      guard: { permission: { anyOf: ['system:user:query', 'system:org:query', 'project:info:add', 'team:member:query'] }, scope: 'system' },
      summary: 'Enabled organisations for the user and site pickers',
      tags: ['system'],
      response: z.array(rangeOrg),
      handler: () => settings.listOrg(),
    }),
    defineRoute({
      method: 'GET',
      url: '/sys/range/listRange',
      guard: { permission: 'any', scope: 'system' },
      summary: "The data ranges of a project membership (all sites, chosen sites), in the caller's language",
      tags: ['system'],
      response: z.array(rangeOption),
      handler: ({ ctx }) => Promise.resolve(settings.listRange(ctx.language)),
    }),
    defineRoute({
      method: 'POST',
      url: '/project/info/syncUserToHospital',
      guard: { permission: { anyOf: ['team:member:update'] }, scope: 'project' },
      summary: "Push the project's team to its hospital connections: refused, naming them, as none of the supported kinds accepts users",
      tags: ['system'],
      response: z.null(),
      handler: ({ ctx }) => settings.syncUsersToHospital(ctx),
    }),
    defineRoute({
      method: 'GET',
      url: '/health',
      guard: { public: true },
      summary: 'Liveness and database check',
      tags: ['system'],
      response: z.object({ ok: z.boolean(), database: z.string() }),
      handler: async () => {
        await database.db.execute(sql`select 1`);
        return { ok: true, database: database.kind };
      },
    }),
  ];
}
