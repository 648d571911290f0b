/**
 * Roles (name ≤ 10, id ≤ 20) with permissions from the catalogue and DEV / UAT / PRO flags, and permission
 * groups with login time windows (enforced at login) and a reviewer. System scope.
 */
import { z } from 'zod';
import { and, asc, count, eq, ilike, inArray, ne, or, sql } from 'drizzle-orm';
import {
  idRequest,
  permissionGroupInput,
  permissionGroupRow,
  permissionGroupUpdate,
  roleInput,
  rolePage,
  rolePageRequest,
  roleRow,
  roleUpdate,
  type RoleRow,
} from '@esource/shared';
import { defineRoute, type RouteSpec } from '../../lib/route';
import type { AppDeps } from '../../app-deps';
import { permissionGroups, projectMembers, rolePermissions, roles, users } from '../../db/schema';
import { AppError } from '../../lib/errors';
import { actorOf, diffEntries, recordAudit } from '../audit/audit.service';
import type { Db, Tx } from '../../db/client';
import { likeOf } from '../../lib/sql';
import { offsetOf, pageOf } from '../../lib/page';

const ROLE_FIELDS = ['code', 'name', 'nameEn', 'description', 'kind', 'isDm', 'envDev', 'envUat', 'envPro', 'status'] as const;
const GROUP_FIELDS = ['name', 'description', 'loginWindows', 'timezone', 'reviewerUserId', 'status'] as const;

async function roleRows(db: Db | Tx, ids: number[]): Promise<RoleRow[]> {
  if (ids.length === 0) return [];
  const rs = await db.select().from(roles).where(inArray(roles.id, ids)).orderBy(asc(roles.kind), asc(roles.code));
  const perms = await db.select().from(rolePermissions).where(inArray(rolePermissions.roleId, ids));
  const sysUsers = await db
    .select({ id: users.systemRoleId, n: count() })
    .from(users)
    .where(inArray(users.systemRoleId, ids))
    .groupBy(users.systemRoleId);
  const members = await db
    .select({ id: projectMembers.roleId, n: sql<number>`count(distinct ${projectMembers.userId})`.mapWith(Number) })
    .from(projectMembers)
    .where(and(inArray(projectMembers.roleId, ids), eq(projectMembers.status, 1)))
    .groupBy(projectMembers.roleId);
  return rs.map((r) => ({
    id: r.id,
    code: r.code,
    name: r.name,
    nameEn: r.nameEn,
    description: r.description,
    kind: r.kind,
    isDm: r.isDm,
    envDev: r.envDev,
    envUat: r.envUat,
    envPro: r.envPro,
    status: r.status,
    permissions: perms.filter((p) => p.roleId === r.id).map((p) => p.permission).sort(),
    userCount: (sysUsers.find((u) => u.id === r.id)?.n ?? 0) + (members.find((m) => m.id === r.id)?.n ?? 0),
  }));
}

async function assertRoleFree(tx: Tx, code: string, exceptId: number | null) {
  const [dup] = await tx
    .select({ id: roles.id })
    .from(roles)
    .where(and(sql`lower(${roles.code}) = lower(${code})`, exceptId ? ne(roles.id, exceptId) : undefined));
  if (dup) throw new AppError('DUPLICATE', { field: 'code', value: code });
}

export function roleRoutes({ database }: AppDeps): RouteSpec[] {
  const db = database.db;
  return [
    defineRoute({
      method: 'POST',
      url: '/sys/role/page',
      guard: { permission: { anyOf: ['system:role:query'] }, scope: 'system' },
      summary: 'Roles with their permissions and environment flags',
      tags: ['roles'],
      body: rolePageRequest,
      response: rolePage,
      handler: async ({ body }) => {
        const where = and(
          body.keyword ? or(ilike(roles.code, likeOf(body.keyword)), ilike(roles.name, likeOf(body.keyword))) : undefined,
          body.kind ? eq(roles.kind, body.kind) : undefined,
        );
        const [total] = await db.select({ n: count() }).from(roles).where(where);
        const ids = await db
          .select({ id: roles.id })
          .from(roles)
          .where(where)
          .orderBy(asc(roles.kind), asc(roles.code))
          .limit(body.pageSize)
          .offset(offsetOf(body));
        return pageOf(body, total?.n ?? 0, await roleRows(db, ids.map((r) => r.id)));
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/sys/role/projectOptions',
      guard: { permission: { anyOf: ['team:member:query', 'system:role:query'] }, scope: 'project' },
      summary: 'Project roles that may act in the current environment (for team members)',
      tags: ['roles'],
      response: z.array(z.object({ id: z.number().int(), code: z.string(), name: z.string(), nameEn: z.string().nullable(), isDm: z.boolean() })),
      handler: async ({ ctx }) => {
        const envCol = ctx.env === 'DEV' ? roles.envDev : ctx.env === 'UAT' ? roles.envUat : roles.envPro;
        return db
          .select({ id: roles.id, code: roles.code, name: roles.name, nameEn: roles.nameEn, isDm: roles.isDm })
          .from(roles)
          .where(and(eq(roles.kind, 'project'), eq(roles.status, 1), eq(envCol, true), ctx.env === 'DEV' ? eq(roles.isDm, true) : undefined))
          .orderBy(asc(roles.code));
      },
    }),
    defineRoute({
      method: 'POST',
      url: '/sys/role/add',
      guard: { permission: { anyOf: ['system:role:add'] }, scope: 'system' },
      summary: 'Add a role with its permissions',
      tags: ['roles'],
      body: roleInput,
      response: roleRow,
      handler: ({ ctx, body }) =>
        db.transaction(async (tx) => {
          await assertRoleFree(tx, body.code, null);
          const { permissions, ...fields } = body;
          const [r] = await tx.insert(roles).values(fields).returning();
          const pms = [...new Set(permissions)];
          if (pms.length) await tx.insert(rolePermissions).values(pms.map((permission) => ({ roleId: r!.id, permission })));
          await recordAudit(tx, actorOf(ctx), [
            ...diffEntries({ action: 'role.add', entity: 'role', entityId: r!.id }, null, r!, ROLE_FIELDS),
            { action: 'role.add', entity: 'role', entityId: r!.id, field: 'permissions', newValue: pms.sort().join(',') },
          ]);
          return (await roleRows(tx, [r!.id]))[0]!;
        }),
    }),
    defineRoute({
      method: 'POST',
      url: '/sys/role/update',
      guard: { permission: { anyOf: ['system:role:update'] }, scope: 'system' },
      summary: 'Update a role and replace its permissions',
      tags: ['roles'],
      body: roleUpdate,
      response: roleRow,
      handler: ({ ctx, body }) =>
        db.transaction(async (tx) => {
          const { id, permissions, ...fields } = body;
          const [before] = await tx.select().from(roles).where(eq(roles.id, id));
          if (!before) throw new AppError('NOT_FOUND', { entity: 'role' });
          await assertRoleFree(tx, fields.code, id);
          const oldPms = (await tx.select().from(rolePermissions).where(eq(rolePermissions.roleId, id))).map((p) => p.permission).sort();
          const [after] = await tx.update(roles).set({ ...fields, updatedAt: new Date() }).where(eq(roles.id, id)).returning();
          const pms = [...new Set(permissions)].sort();
          await tx.delete(rolePermissions).where(eq(rolePermissions.roleId, id));
          if (pms.length) await tx.insert(rolePermissions).values(pms.map((permission) => ({ roleId: id, permission })));
          const entries = diffEntries({ action: 'role.update', entity: 'role', entityId: id }, before, after!, ROLE_FIELDS);
          if (oldPms.join(',') !== pms.join(','))
            entries.push({ action: 'role.update', entity: 'role', entityId: id, field: 'permissions', oldValue: oldPms.join(','), newValue: pms.join(',') });
          await recordAudit(tx, actorOf(ctx), entries);
          return (await roleRows(tx, [id]))[0]!;
        }),
    }),
    defineRoute({
      method: 'POST',
      url: '/sys/role/delete',
      guard: { permission: { anyOf: ['system:role:delete'] }, scope: 'system' },
      summary: 'Delete a role nobody holds',
      tags: ['roles'],
      body: idRequest,
      response: z.null(),
      handler: ({ ctx, body }) =>
        db.transaction(async (tx) => {
          const [row] = await roleRows(tx, [body.id]);
          if (!row) throw new AppError('NOT_FOUND', { entity: 'role' });
          const [anyMember] = await tx.select({ n: count() }).from(projectMembers).where(eq(projectMembers.roleId, body.id));
          if (row.userCount > 0 || anyMember!.n > 0)
            throw new AppError('IN_USE', { entity: 'role', detail: 'conflict.usedBy', count: Math.max(row.userCount, anyMember!.n) });
          await tx.delete(roles).where(eq(roles.id, body.id));
          await recordAudit(tx, actorOf(ctx), [
            { action: 'role.delete', entity: 'role', entityId: body.id, oldValue: `${row.code} ${row.name}`, field: 'permissions', newValue: null },
          ]);
          return null;
        }),
    }),

    // ── permission groups ──
    defineRoute({
      method: 'POST',
      url: '/sys/permissionGroup/list',
      guard: { permission: { anyOf: ['system:permission-group:query'] }, scope: 'system' },
      summary: 'Permission groups with login time windows and reviewer',
      tags: ['roles'],
      response: z.array(permissionGroupRow),
      handler: async () => groupRows(db, null),
    }),
    defineRoute({
      method: 'POST',
      url: '/sys/permissionGroup/add',
      guard: { permission: { anyOf: ['system:permission-group:add'] }, scope: 'system' },
      summary: 'Add a permission group',
      tags: ['roles'],
      bodyType: 'json',
      body: permissionGroupInput,
      response: permissionGroupRow,
      handler: ({ ctx, body }) =>
        db.transaction(async (tx) => {
          await checkGroup(tx, body.name, body.reviewerUserId, null);
          const [g] = await tx.insert(permissionGroups).values({ ...body, reviewerUserId: body.reviewerUserId ?? null }).returning();
          await recordAudit(tx, actorOf(ctx), diffEntries({ action: 'group.add', entity: 'permissionGroup', entityId: g!.id }, null, g!, GROUP_FIELDS));
          return (await groupRows(tx, g!.id))[0]!;
        }),
    }),
    defineRoute({
      method: 'POST',
      url: '/sys/permissionGroup/update',
      guard: { permission: { anyOf: ['system:permission-group:update'] }, scope: 'system' },
      summary: 'Update a permission group',
      tags: ['roles'],
      bodyType: 'json',
      body: permissionGroupUpdate,
      response: permissionGroupRow,
      handler: ({ ctx, body }) =>
        db.transaction(async (tx) => {
          const { id, ...fields } = body;
          const [before] = await tx.select().from(permissionGroups).where(eq(permissionGroups.id, id));
          if (!before) throw new AppError('NOT_FOUND', { entity: 'permissionGroup' });
          await checkGroup(tx, fields.name, fields.reviewerUserId, id);
          const [after] = await tx
            .update(permissionGroups)
            .set({ ...fields, reviewerUserId: fields.reviewerUserId ?? null, updatedAt: new Date() })
            .where(eq(permissionGroups.id, id))
            .returning();
          await recordAudit(tx, actorOf(ctx), diffEntries({ action: 'group.update', entity: 'permissionGroup', entityId: id }, before, after!, GROUP_FIELDS));
          return (await groupRows(tx, id))[0]!;
        }),
    }),
    defineRoute({
      method: 'POST',
      url: '/sys/permissionGroup/delete',
      guard: { permission: { anyOf: ['system:permission-group:delete'] }, scope: 'system' },
      summary: 'Delete a permission group no user belongs to',
      tags: ['roles'],
      body: idRequest,
      response: z.null(),
      handler: ({ ctx, body }) =>
        db.transaction(async (tx) => {
          const [g] = await groupRows(tx, body.id);
          if (!g) throw new AppError('NOT_FOUND', { entity: 'permissionGroup' });
          if (g.userCount) throw new AppError('IN_USE', { entity: 'permissionGroup', detail: 'conflict.usedBy', count: g.userCount });
          await tx.delete(permissionGroups).where(eq(permissionGroups.id, body.id));
          await recordAudit(tx, actorOf(ctx), [{ action: 'group.delete', entity: 'permissionGroup', entityId: body.id, oldValue: g.name }]);
          return null;
        }),
    }),
  ];
}

async function checkGroup(tx: Tx, name: string, reviewerUserId: number | undefined, exceptId: number | null) {
  const [dup] = await tx
    .select({ id: permissionGroups.id })
    .from(permissionGroups)
    .where(and(sql`lower(${permissionGroups.name}) = lower(${name})`, exceptId ? ne(permissionGroups.id, exceptId) : undefined));
  if (dup) throw new AppError('DUPLICATE', { field: 'name', value: name });
  if (reviewerUserId !== undefined) {
    const [u] = await tx.select({ id: users.id }).from(users).where(and(eq(users.id, reviewerUserId), eq(users.status, 1)));
    if (!u) throw new AppError('INVALID_REFERENCE', { field: 'reviewerUserId' });
  }
}

async function groupRows(db: Db | Tx, id: number | null) {
  const rows = await db
    .select({
      g: permissionGroups,
      reviewerName: users.name,
      userCount: sql<number>`(select count(*) from users u where u.permission_group_id = ${permissionGroups.id})`.mapWith(Number),
    })
    .from(permissionGroups)
    .leftJoin(users, eq(users.id, permissionGroups.reviewerUserId))
    .where(id !== null ? eq(permissionGroups.id, id) : undefined)
    .orderBy(asc(permissionGroups.name));
  return rows.map(({ g, reviewerName, userCount }) => ({
    id: g.id,
    name: g.name,
    description: g.description,
    loginWindows: g.loginWindows,
    timezone: g.timezone,
    reviewerUserId: g.reviewerUserId,
    reviewerName,
    status: g.status,
    userCount,
  }));
}
