/** Data access for sessions, users and the permission lookups the request context needs. */
import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import {
  organizations,
  permissionGroups,
  projectMembers,
  roles,
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

/** A user row as the login reads it. */
export type UserRow = typeof users.$inferSelect;

export async function findUserById(db: DbOrTx, id: number) {
  const [u] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return u ?? null;
}

export async function findPermissionGroup(db: DbOrTx, id: number) {
  const [g] = await db.select().from(permissionGroups).where(eq(permissionGroups.id, id)).limit(1);
  return g ?? null;
}

/** A user with the names of their organisation and system role (for pmsInfo). */
export async function findUserProfile(db: DbOrTx, id: number) {
  const [u] = await db
    .select({ user: users, orgName: organizations.name, systemRoleCode: roles.code })
    .from(users)
    .leftJoin(organizations, eq(organizations.id, users.orgId))
    .leftJoin(roles, eq(roles.id, users.systemRoleId))
    .where(eq(users.id, id))
    .limit(1);
  return u ?? null;
}

export async function findRole(db: DbOrTx, id: number) {
  const [r] = await db.select().from(roles).where(eq(roles.id, id)).limit(1);
  return r ?? null;
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

export interface AccessRow {
  sessionId: number;
  sessionEnv: Env;
  env: Env;
  loginType: number;
  expiresAt: Date;
  userId: number;
  account: string;
  name: string;
  orgId: number | null;
  systemRoleId: number | null;
  userStatus: number;
  /** the password is an initial one (issued by an administrator, never changed): it must be changed first */
  mustChangePassword: boolean;
  systemPms: string[];
  project: {
    id: number;
    no: string;
    name: string;
    status: number;
    /** spec §3 scene and configFiveFunction: what they switch off is cut from the permissions (project-features.ts) */
    scene: number;
    configFiveFunction: string;
    memberId: number;
    allSites: boolean;
    roleId: number;
    roleCode: string;
    isDm: boolean;
    envDev: boolean;
    envUat: boolean;
    envPro: boolean;
    pms: string[];
    siteIds: number[];
  } | null;
}

/**
 * Everything the guard needs in one statement: the session and its user, the system role's permissions, and
 * (when proId is given) the membership in that project in the request's environment with its role's
 * permissions and sites. Runs on every authenticated request, so it is one round trip.
 */
export async function loadAccess(db: DbOrTx, tokenHash: string, envHeader: Env | null, proId: number | null): Promise<AccessRow | null> {
  const r = await db.execute(sql`
    select s.id as session_id, s.env as session_env, coalesce(${envHeader}::varchar, s.env) as env, s.login_type,
           s.expires_at, u.id as user_id, u.account, u.name, u.org_id, u.system_role_id, u.status as user_status,
           u.password_changed_at is null as must_change_password,
           coalesce((select array_agg(rp.permission) from role_permissions rp join roles r on r.id = rp.role_id
                      where rp.role_id = u.system_role_id and r.status = 1), '{}') as system_pms,
           m.*
      from sessions s
      join users u on u.id = s.user_id
      left join lateral (
        select p.id as p_id, p.no as p_no, p.name as p_name, p.status as p_status, p.scene as p_scene,
               p.config_five_function as p_five, pm.id as member_id,
               pm.all_sites, r.id as role_id, r.code as role_code, r.is_dm, r.env_dev, r.env_uat, r.env_pro,
               coalesce((select array_agg(rp.permission) from role_permissions rp where rp.role_id = r.id), '{}') as project_pms,
               coalesce((select array_agg(ms.site_id) from project_member_sites ms where ms.member_id = pm.id), '{}') as site_ids
          from projects p
          join project_members pm on pm.project_id = p.id and pm.user_id = u.id and pm.status = 1
                                 and pm.env = coalesce(${envHeader}::varchar, s.env)
          join roles r on r.id = pm.role_id and r.status = 1
         where p.id = ${proId}::integer
      ) m on true
     where s.token_hash = ${tokenHash} and s.ended_at is null
     limit 1`);
  const row = (r as { rows: Record<string, unknown>[] }).rows[0];
  if (!row) return null;
  const arr = <T>(v: unknown): T[] => (Array.isArray(v) ? (v as T[]) : []);
  return {
    sessionId: Number(row.session_id),
    sessionEnv: row.session_env as Env,
    env: row.env as Env,
    loginType: Number(row.login_type),
    expiresAt: row.expires_at instanceof Date ? row.expires_at : new Date(String(row.expires_at)),
    userId: Number(row.user_id),
    account: String(row.account),
    name: String(row.name),
    orgId: row.org_id === null ? null : Number(row.org_id),
    systemRoleId: row.system_role_id === null ? null : Number(row.system_role_id),
    userStatus: Number(row.user_status),
    mustChangePassword: row.must_change_password === true || row.must_change_password === 't',
    systemPms: arr<string>(row.system_pms),
    project:
      row.p_id === null || row.p_id === undefined
        ? null
        : {
            id: Number(row.p_id),
            no: String(row.p_no),
            name: String(row.p_name),
            status: Number(row.p_status),
            scene: Number(row.p_scene),
            configFiveFunction: typeof row.p_five === 'string' ? row.p_five : '',
            memberId: Number(row.member_id),
            allSites: Boolean(row.all_sites),
            roleId: Number(row.role_id),
            roleCode: String(row.role_code),
            isDm: Boolean(row.is_dm),
            envDev: Boolean(row.env_dev),
            envUat: Boolean(row.env_uat),
            envPro: Boolean(row.env_pro),
            pms: arr<string>(row.project_pms),
            siteIds: arr<number>(row.site_ids).map(Number),
          },
  };
}

/** An attempt taken: the failures counted so far including this one (the attempt counts until it succeeds). */
export type AttemptClaim = { failures: number; lockedUntil?: undefined } | { failures?: undefined; lockedUntil: Date };

const rowsOf = (r: unknown) => (r as { rows: Record<string, unknown>[] }).rows;
const asDate = (v: unknown) => (v instanceof Date ? v : new Date(String(v)));

/**
 * Takes one password attempt for a user BEFORE the password is verified, in one statement: the failure count goes
 * up (a lock that has passed starts it again at 1) and the lock is set when it reaches `max`; a locked account
 * takes no attempt and answers its lock. The row lock of the UPDATE serialises parallel attempts, so no more than
 * `max` guesses are ever evaluated; a verified password then clears the count (`clearUserFailures`).
 */
export async function claimUserAttempt(db: DbOrTx, userId: number, max: number, lockMinutes: number): Promise<AttemptClaim> {
  const r = rowsOf(
    await db.execute(sql`
      update users set
        failed_login_count = case when locked_until is not null then 1 else failed_login_count + 1 end,
        locked_until = case when (case when locked_until is not null then 1 else failed_login_count + 1 end) >= ${max}::int
                            then now() + make_interval(mins => ${lockMinutes}::int) else null end
      where id = ${userId}::int and (locked_until is null or locked_until <= now())
      returning failed_login_count as failures`),
  );
  if (r[0]) return { failures: Number(r[0].failures) };
  const [u] = await db.select({ lockedUntil: users.lockedUntil }).from(users).where(eq(users.id, userId));
  return { lockedUntil: u?.lockedUntil ?? new Date() };
}

/** The same claim for an account name that has no user (login_throttle), so that it answers like a real one. */
export async function claimNameAttempt(db: DbOrTx, accountKey: string, max: number, lockMinutes: number): Promise<AttemptClaim> {
  const lockAt = (n: SQL) => sql`case when ${n} >= ${max}::int then now() + make_interval(mins => ${lockMinutes}::int) else null end`;
  const next = sql`case when t.locked_until is not null then 1 else t.failed_count + 1 end`;
  const r = rowsOf(
    await db.execute(sql`
      insert into login_throttle as t (account_key, failed_count, locked_until, updated_at)
      values (${accountKey}, 1, ${lockAt(sql`1`)}, now())
      on conflict (account_key) do update set failed_count = ${next}, locked_until = ${lockAt(next)}, updated_at = now()
      where t.locked_until is null or t.locked_until <= now()
      returning failed_count as failures`),
  );
  if (r[0]) return { failures: Number(r[0].failures) };
  const l = rowsOf(await db.execute(sql`select locked_until from login_throttle where account_key = ${accountKey}`))[0];
  return { lockedUntil: l?.locked_until ? asDate(l.locked_until) : new Date() };
}

/**
 * Housekeeping: forgets failures of account names without a user that have been quiet for a day and are not
 * locked, so that guessed names cannot grow login_throttle without bound. Returns how many rows went.
 */
export async function pruneLoginThrottle(db: DbOrTx, quietHours = 24): Promise<number> {
  const r = rowsOf(
    await db.execute(sql`
      with gone as (
        delete from login_throttle
        where updated_at < now() - make_interval(hours => ${quietHours}::int) and (locked_until is null or locked_until <= now())
        returning 1)
      select count(*)::int as n from gone`),
  );
  return Number(r[0]?.n ?? 0);
}

/** A verified password clears the user's failure count and lock. */
export async function clearUserFailures(db: DbOrTx, userId: number): Promise<void> {
  await db.update(users).set({ failedLoginCount: 0, lockedUntil: null }).where(eq(users.id, userId));
}
