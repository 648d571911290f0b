/** Data access for sessions, users and the permission lookups the request context needs. */
import { and, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import {
  organizations,
  permissionGroups,
  projectMembers,
  projectMemberSites,
  projects,
  rolePermissions,
  roles,
  sessions,
  users,
} from '../../db/schema';
import type { Env } from '@esource/shared';

export async function findUserByAccount(db: DbOrTx, account: string) {
  const [u] = await db
    .select()
    .from(users)
    .where(sql`lower(${users.account}) = lower(${account})`)
    .limit(1);
  return u ?? null;
}

export async function findUserById(db: DbOrTx, id: number) {
  const [u] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return u ?? null;
}

export async function findPermissionGroup(db: DbOrTx, id: number) {
  const [g] = await db.select().from(permissionGroups).where(eq(permissionGroups.id, id)).limit(1);
  return g ?? null;
}

export async function findOrg(db: DbOrTx, id: number) {
  const [o] = await db.select().from(organizations).where(eq(organizations.id, id)).limit(1);
  return o ?? null;
}

export async function findActiveSession(db: DbOrTx, tokenHash: string) {
  const [row] = await db
    .select({
      id: sessions.id,
      expiresAt: sessions.expiresAt,
      env: sessions.env,
      loginType: sessions.loginType,
      userId: users.id,
      account: users.account,
      name: users.name,
      orgId: users.orgId,
      systemRoleId: users.systemRoleId,
      userStatus: users.status,
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, tokenHash), isNull(sessions.endedAt)))
    .limit(1);
  return row ?? null;
}

export async function permissionsOfRoles(db: DbOrTx, roleIds: number[]): Promise<string[]> {
  if (roleIds.length === 0) return [];
  const rows = await db
    .select({ p: rolePermissions.permission })
    .from(rolePermissions)
    .innerJoin(roles, eq(roles.id, rolePermissions.roleId))
    .where(and(inArray(rolePermissions.roleId, roleIds), eq(roles.status, 1)));
  return rows.map((r) => r.p);
}

export async function findRole(db: DbOrTx, id: number) {
  const [r] = await db.select().from(roles).where(eq(roles.id, id)).limit(1);
  return r ?? null;
}

/** The user's active membership of a project in an environment, with its role. */
export async function findMembership(db: DbOrTx, projectId: number, userId: number, env: Env) {
  const [row] = await db
    .select({
      projectId: projects.id,
      no: projects.no,
      name: projects.name,
      status: projects.status,
      memberId: projectMembers.id,
      allSites: projectMembers.allSites,
      roleId: roles.id,
      roleCode: roles.code,
      isDm: roles.isDm,
      envDev: roles.envDev,
      envUat: roles.envUat,
      envPro: roles.envPro,
    })
    .from(projects)
    .innerJoin(
      projectMembers,
      and(
        eq(projectMembers.projectId, projects.id),
        eq(projectMembers.env, env),
        eq(projectMembers.userId, userId),
        eq(projectMembers.status, 1),
      ),
    )
    .innerJoin(roles, and(eq(roles.id, projectMembers.roleId), eq(roles.status, 1)))
    .where(eq(projects.id, projectId))
    .limit(1);
  return row ?? null;
}

export async function memberSiteIds(db: DbOrTx, memberId: number): Promise<number[]> {
  const rows = await db
    .select({ s: projectMemberSites.siteId })
    .from(projectMemberSites)
    .where(eq(projectMemberSites.memberId, memberId));
  return rows.map((r) => r.s);
}

/** Environments in which the user holds an active membership whose role may act there. */
export async function envsWithMembership(db: DbOrTx, userId: number): Promise<Env[]> {
  const rows = await db
    .select({ env: projectMembers.env, dev: roles.envDev, uat: roles.envUat, pro: roles.envPro })
    .from(projectMembers)
    .innerJoin(roles, eq(roles.id, projectMembers.roleId))
    .where(and(eq(projectMembers.userId, userId), eq(projectMembers.status, 1)));
  const out = new Set<Env>();
  for (const r of rows) {
    const ok = r.env === 'DEV' ? r.dev : r.env === 'UAT' ? r.uat : r.pro;
    if (ok) out.add(r.env as Env);
  }
  return [...out];
}

export function roleAllowsEnv(r: { envDev: boolean; envUat: boolean; envPro: boolean }, env: Env): boolean {
  switch (env) {
    case 'DEV':
      return r.envDev;
    case 'UAT':
      return r.envUat;
    case 'PRO':
      return r.envPro;
  }
}
