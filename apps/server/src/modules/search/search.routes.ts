/**
 * Global search (Cmd+K, spec §2): centre users with project:search:query search what exists and what they may
 * see — for now projects they are members of in this environment; subjects and documents join as they arrive.
 */
import { z } from 'zod';
import { and, asc, eq, ilike, or } from 'drizzle-orm';
import { searchHit, searchRequest } from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import { likeOf } from '../../lib/sql';
import type { AppDeps } from '../../app-deps';
import { projectMembers, projects } from '../../db/schema';

export function searchRoutes({ database }: AppDeps): RouteSpec[] {
  return [
    defineRoute({
      method: 'GET',
      url: '/search',
      guard: { permission: { anyOf: ['project:search:query'] }, scope: 'system' },
      summary: 'Search projects (and later subjects and documents) the caller may see',
      tags: ['search'],
      query: searchRequest,
      response: z.array(searchHit),
      handler: async ({ ctx, query }) => {
        const kw = likeOf(query.q);
        const rows = await database.db
          .select({ id: projects.id, no: projects.no, name: projects.name, status: projects.status })
          .from(projects)
          .innerJoin(
            projectMembers,
            and(
              eq(projectMembers.projectId, projects.id),
              eq(projectMembers.userId, ctx.user.id),
              eq(projectMembers.env, ctx.env),
              eq(projectMembers.status, 1),
            ),
          )
          .where(or(ilike(projects.no, kw), ilike(projects.name, kw)))
          .orderBy(asc(projects.no))
          .limit(query.limit);
        return rows.map((r) => ({ kind: 'project' as const, ...r }));
      },
    }),
  ];
}
