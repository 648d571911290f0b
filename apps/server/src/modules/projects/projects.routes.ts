import { and, asc, count, eq, ilike, or } from 'drizzle-orm';
import { projectPage, projectPageRequest } from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { projectMembers, projects, roles } from '../../db/schema';

export function projectRoutes({ database }: AppDeps): RouteSpec[] {
  const db = database.db;
  return [
    defineRoute({
      method: 'POST',
      url: '/pro/info/page',
      guard: { permission: 'any', scope: 'system' },
      summary: 'Projects the caller is a member of in the current environment',
      tags: ['projects'],
      body: projectPageRequest,
      response: projectPage,
      handler: async ({ ctx, body }) => {
        const kw = body.keyword ? `%${body.keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%` : null;
        const where = and(
          eq(projectMembers.userId, ctx.user.id),
          eq(projectMembers.env, ctx.env),
          eq(projectMembers.status, 1),
          kw ? or(ilike(projects.no, kw), ilike(projects.name, kw)) : undefined,
        );
        const base = db
          .select({
            id: projects.id,
            no: projects.no,
            name: projects.name,
            status: projects.status,
            scene: projects.scene,
            uuidNo: projects.uuidNo,
            roleCode: roles.code,
            roleName: roles.name,
          })
          .from(projectMembers)
          .innerJoin(projects, eq(projects.id, projectMembers.projectId))
          .innerJoin(roles, eq(roles.id, projectMembers.roleId))
          .where(where);
        const [total] = await db
          .select({ n: count() })
          .from(projectMembers)
          .innerJoin(projects, eq(projects.id, projectMembers.projectId))
          .where(where);
        const content = await base
          .orderBy(asc(projects.no))
          .limit(body.pageSize)
          .offset((body.pageNumber - 1) * body.pageSize);
        return { pageNumber: body.pageNumber, pageSize: body.pageSize, totalCount: total?.n ?? 0, content };
      },
    }),
  ];
}
