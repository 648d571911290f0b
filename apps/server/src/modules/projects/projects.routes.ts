import { z } from 'zod';
import { and, asc, count, desc, eq, ilike, isNull, or } from 'drizzle-orm';
import {
  idRequest,
  projectCopyRequest,
  projectDetail,
  projectInput,
  projectListRequest,
  projectPage,
  projectResetUuidRequest,
  projectStatusRequest,
  projectUpdate,
} from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { projectMembers, projects, roles } from '../../db/schema';
import { ProjectsService, toDetail } from './projects.service';
import { likeOf } from '../../lib/sql';
import { offsetOf, pageOf } from '../../lib/page';


export function projectRoutes({ database, hooks }: AppDeps): RouteSpec[] {
  const db = database.db;
  const svc = new ProjectsService(db, hooks.subjectDataChecks);
  const sortColumns = { no: projects.no, name: projects.name, status: projects.status, createTime: projects.createdAt } as const;
  return [
    defineRoute({
      method: 'POST',
      url: '/pro/info/page',
      guard: { permission: 'any', scope: 'system' },
      summary: 'Projects the caller is a member of in the current environment: search, filters, sort, paging',
      tags: ['projects'],
      body: projectListRequest,
      response: projectPage,
      handler: async ({ ctx, body }) => {
        const where = and(
          eq(projectMembers.userId, ctx.user.id),
          eq(projectMembers.env, ctx.env),
          eq(projectMembers.status, 1),
          isNull(projects.deletedAt),
          body.keyword ? or(ilike(projects.no, likeOf(body.keyword)), ilike(projects.name, likeOf(body.keyword))) : undefined,
          body.status !== undefined ? eq(projects.status, body.status) : undefined,
          body.scene !== undefined ? eq(projects.scene, body.scene) : undefined,
        );
        const [total] = await db
          .select({ n: count() })
          .from(projectMembers)
          .innerJoin(projects, eq(projects.id, projectMembers.projectId))
          .where(where);
        const col = sortColumns[body.sortField];
        const rows = await db
          .select({ p: projects, roleCode: roles.code, roleName: roles.name })
          .from(projectMembers)
          .innerJoin(projects, eq(projects.id, projectMembers.projectId))
          .innerJoin(roles, eq(roles.id, projectMembers.roleId))
          .where(where)
          .orderBy(body.sortOrder === 'desc' ? desc(col) : asc(col), asc(projects.id))
          .limit(body.pageSize)
          .offset(offsetOf(body));
        return pageOf(
          body,
          total?.n ?? 0,
          rows.map((r) => ({ ...toDetail(r.p, r.roleCode), roleName: r.roleName })),
        );
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/info/get',
      guard: { permission: { anyOf: ['project:info:query'] }, scope: 'project' },
      summary: 'The open project (proId)',
      tags: ['projects'],
      response: projectDetail,
      handler: ({ ctx }) => svc.get(ctx),
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/info/add',
      guard: { permission: { anyOf: ['project:info:add'] }, scope: 'system' },
      summary: 'Create a project; the creator becomes its data manager in DEV, UAT and PRO',
      tags: ['projects'],
      body: projectInput,
      response: projectDetail,
      handler: ({ ctx, body }) => svc.create(ctx, body),
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/info/update',
      guard: { permission: { anyOf: ['project:info:update'] }, scope: 'project' },
      summary: 'Update the open project (version for optimistic locking)',
      tags: ['projects'],
      body: projectUpdate,
      response: projectDetail,
      handler: ({ ctx, body }) => {
        const { id, version, ...input } = body;
        return svc.update(ctx, id, version, input);
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/info/resetUuid',
      guard: { permission: { anyOf: ['project:info:update'] }, scope: 'project' },
      summary: 'Give the open project a new uuidNo: its entry link (?uuid=) changes and old links stop working',
      tags: ['projects'],
      body: projectResetUuidRequest,
      response: projectDetail,
      handler: ({ ctx, body }) => svc.resetUuid(ctx, body.id, body.version),
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/info/updateStatus',
      guard: { permission: { anyOf: ['project:info:status'] }, scope: 'project' },
      summary: 'Change the project status (3 closes it), with a reason',
      tags: ['projects'],
      body: projectStatusRequest,
      response: projectDetail,
      handler: ({ ctx, body }) => svc.setStatus(ctx, body.id, body.status, body.reason),
    }),
    defineRoute({
      method: 'POST',
      url: '/project/info/delete',
      guard: { permission: { anyOf: ['project:info:delete'] }, scope: 'project' },
      summary: 'Delete the open project while it holds no subject data',
      tags: ['projects'],
      body: idRequest.extend({ reason: z.string().max(500).optional() }),
      response: z.null(),
      handler: async ({ ctx, body }) => {
        await svc.remove(ctx, body.id, body.reason);
        return null;
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/pro/info/copyProInfo',
      guard: { permission: { allOf: ['project:info:copy'] }, scope: 'project' },
      summary: 'Copy the open project\'s design and configuration (never subject data) into a new project',
      tags: ['projects'],
      body: projectCopyRequest,
      response: projectDetail,
      handler: ({ ctx, body }) => svc.copy(ctx, body.id, body.no, body.name),
    }),
  ];
}
