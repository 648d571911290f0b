import { z } from 'zod';
import { and, asc, eq, inArray } from 'drizzle-orm';
import { siteRow } from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { organizations, sites } from '../../db/schema';

export function siteRoutes({ database }: AppDeps): RouteSpec[] {
  const db = database.db;
  return [
    defineRoute({
      method: 'POST',
      url: '/pro/site/list',
      guard: { permission: { anyOf: ['research:page:query'] }, scope: 'project' },
      summary: 'Sites of the project in this environment that the caller may see',
      tags: ['sites'],
      response: z.array(siteRow),
      handler: async ({ ctx }) => {
        const p = ctx.project!;
        if (p.siteIds !== null && p.siteIds.length === 0) return [];
        return db
          .select({
            id: sites.id,
            siteNo: sites.siteNo,
            name: sites.name,
            orgId: sites.orgId,
            orgName: organizations.name,
            status: sites.status,
          })
          .from(sites)
          .innerJoin(organizations, eq(organizations.id, sites.orgId))
          .where(
            and(
              eq(sites.projectId, p.id),
              eq(sites.env, ctx.env),
              ctx.siteId !== null ? eq(sites.id, ctx.siteId) : undefined,
              p.siteIds !== null ? inArray(sites.id, p.siteIds) : undefined,
            ),
          )
          .orderBy(asc(sites.siteNo));
      },
    }),
  ];
}
