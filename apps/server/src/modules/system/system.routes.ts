import { z } from 'zod';
import { sql } from 'drizzle-orm';
import { sysConfigResponse, versionResponse } from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';

const startedAt = new Date().toISOString();

export function systemRoutes({ database, config }: AppDeps): RouteSpec[] {
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
      summary: 'Host URLs of storage, ilink, auth, isource, icrc, igcp and evisit',
      tags: ['system'],
      response: sysConfigResponse,
      handler: async () => config.hosts,
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
