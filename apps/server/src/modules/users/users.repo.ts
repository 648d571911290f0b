/** Data access for system users (module 2): lists, lookups of the referenced dictionaries, writes. */
import { and, asc, count, desc, eq, ilike, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { UserFilters } from '@esource/shared';
import type { DbOrTx, Tx } from '../../db/client';
import { auditEvents, departments, messages, organizations, permissionGroups, roles, sessions, users } from '../../db/schema';
import { likeOf } from '../../lib/sql';

export type UserRow = typeof users.$inferSelect;
export type NewUser = typeof users.$inferInsert;

/** `%kw%` with LIKE's own wildcards escaped, so that a search for 'a_b' finds exactly that. */
export const likePattern = likeOf;

/** The columns of a list row: the user with the names of what it references; never the password hash. */
const listColumns = {
  id: users.id,
  account: users.account,
  name: users.name,
  phone: users.phone,
  mail: users.mail,
  orgId: users.orgId,
  orgName: organizations.name,
  deptId: users.deptId,
  deptName: departments.name,
  loginTypes: users.loginTypes,
  systemRoleId: users.systemRoleId,
  systemRoleCode: roles.code,
  systemRoleName: roles.name,
  permissionGroupId: users.permissionGroupId,
  permissionGroupName: permissionGroups.name,
  status: users.status,
  lockedUntil: users.lockedUntil,
  lastLoginAt: users.lastLoginAt,
  createdAt: users.createdAt,
  updatedAt: users.updatedAt,
};


export function filterWhere(f: UserFilters): SQL | undefined {
  const kw = f.keyword ? likePattern(f.keyword) : null;
  return and(
    kw ? or(ilike(users.account, kw), ilike(users.name, kw), ilike(users.phone, kw)) : undefined,
    f.status !== undefined ? eq(users.status, f.status) : undefined,
    f.orgId !== undefined ? eq(users.orgId, f.orgId) : undefined,
    f.loginType !== undefined ? sql`${f.loginType}::integer = any(${users.loginTypes})` : undefined,
  );
}

function orderBy(f: UserFilters): SQL[] {
  const dir = f.sortOrder === 'asc' ? sql`asc` : sql`desc`;
  const col: SQL = (() => {
    switch (f.sortField) {
      case 'account':
        return sql`lower(${users.account})`;
      case 'name':
        return sql`${users.name}`;
      case 'orgName':
        return sql`${organizations.name}`;
      case 'status':
        return sql`${users.status}`;
      case 'lastLoginTime':
        return sql`${users.lastLoginAt}`;
      case 'createTime':
        return sql`${users.createdAt}`;
    }
  })();
  // nulls last either way; the id keeps pages stable when the sort column ties
  return [sql`${col} ${dir} nulls last`, f.sortOrder === 'asc' ? asc(users.id) : desc(users.id)];
}

function listQuery(db: DbOrTx) {
  return db
    .select(listColumns)
    .from(users)
    .leftJoin(organizations, eq(organizations.id, users.orgId))
    .leftJoin(departments, eq(departments.id, users.deptId))
    .leftJoin(roles, eq(roles.id, users.systemRoleId))
    .leftJoin(permissionGroups, eq(permissionGroups.id, users.permissionGroupId));
}

export type UserListRecord = Awaited<ReturnType<typeof listQuery>>[number];

export async function countUsers(db: DbOrTx, f: UserFilters): Promise<number> {
  const [r] = await db.select({ n: count() }).from(users).where(filterWhere(f));
  return r?.n ?? 0;
}

export async function listUsers(db: DbOrTx, f: UserFilters, limit: number, offset: number): Promise<UserListRecord[]> {
  return listQuery(db)
    .where(filterWhere(f))
    .orderBy(...orderBy(f))
    .limit(limit)
    .offset(offset);
}

/** One user with the names of what it references, plus the fields only the detail shows. */
export async function findUserDetail(db: DbOrTx, id: number) {
  const [r] = await db
    .select({
      ...listColumns,
      idNumber: users.idNumber,
      imgUrl: users.imgUrl,
      passwordChangedAt: users.passwordChangedAt,
    })
    .from(users)
    .leftJoin(organizations, eq(organizations.id, users.orgId))
    .leftJoin(departments, eq(departments.id, users.deptId))
    .leftJoin(roles, eq(roles.id, users.systemRoleId))
    .leftJoin(permissionGroups, eq(permissionGroups.id, users.permissionGroupId))
    .where(eq(users.id, id))
    .limit(1);
  return r ?? null;
}

/** Enabled users whose account, name or phone contains the keyword (the picker). */
export async function pickUsers(db: DbOrTx, keyword: string | undefined, limit: number) {
  const kw = keyword ? likePattern(keyword) : null;
  return db
    .select({ id: users.id, account: users.account, name: users.name, orgName: organizations.name })
    .from(users)
    .leftJoin(organizations, eq(organizations.id, users.orgId))
    .where(and(eq(users.status, 1), kw ? or(ilike(users.account, kw), ilike(users.name, kw), ilike(users.phone, kw)) : undefined))
    .orderBy(sql`lower(${users.account})`)
    .limit(limit);
}

/** The user row, locked for the rest of the transaction (so that two edits are applied one after the other). */
export async function lockUser(tx: Tx, id: number): Promise<UserRow | null> {
  const [u] = await tx.select().from(users).where(eq(users.id, id)).for('update');
  return u ?? null;
}

export async function findUser(db: DbOrTx, id: number): Promise<UserRow | null> {
  const [u] = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return u ?? null;
}

/** Which of these accounts exist already (compared case-insensitively); answers them in lower case. */
export async function existingAccounts(db: DbOrTx, accounts: string[]): Promise<Set<string>> {
  if (accounts.length === 0) return new Set();
  const lower = [...new Set(accounts.map((a) => a.toLowerCase()))];
  const rows = await db
    .select({ a: sql<string>`lower(${users.account})` })
    .from(users)
    .where(inArray(sql`lower(${users.account})`, lower));
  return new Set(rows.map((r) => r.a));
}

export async function existingUserIds(db: DbOrTx, ids: number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db.select({ id: users.id }).from(users).where(inArray(users.id, ids));
  return new Set(rows.map((r) => r.id));
}

export async function insertUsers(tx: Tx, values: NewUser[]): Promise<{ id: number; account: string }[]> {
  if (values.length === 0) return [];
  return tx.insert(users).values(values).returning({ id: users.id, account: users.account });
}

export async function updateUser(tx: Tx, id: number, set: Partial<NewUser>): Promise<void> {
  await tx.update(users).set(set).where(eq(users.id, id));
}

/** Ends every open session of the user; returns how many were open. */
export async function endSessions(tx: Tx, userId: number, reason: string, at: Date): Promise<number> {
  const rows = await tx
    .update(sessions)
    .set({ endedAt: at, endReason: reason })
    .where(and(eq(sessions.userId, userId), isNull(sessions.endedAt)))
    .returning({ id: sessions.id });
  return rows.length;
}

export async function insertMessages(tx: Tx, values: (typeof messages.$inferInsert)[]): Promise<{ id: number; userId: number }[]> {
  if (values.length === 0) return [];
  return tx.insert(messages).values(values).returning({ id: messages.id, userId: messages.userId });
}

/** Who last changed a user (for the stale-write message). */
export async function lastChangeOf(db: DbOrTx, userId: number): Promise<{ userName: string | null; createdAt: Date } | null> {
  const [r] = await db
    .select({ userName: auditEvents.userName, createdAt: auditEvents.createdAt })
    .from(auditEvents)
    .where(and(eq(auditEvents.entity, 'user'), eq(auditEvents.entityId, String(userId))))
    .orderBy(desc(auditEvents.id))
    .limit(1);
  return r ?? null;
}

// ── the dictionaries a user references ──

export async function findOrg(db: DbOrTx, id: number) {
  const [r] = await db.select().from(organizations).where(eq(organizations.id, id)).limit(1);
  return r ?? null;
}

export async function findDept(db: DbOrTx, id: number) {
  const [r] = await db.select().from(departments).where(eq(departments.id, id)).limit(1);
  return r ?? null;
}

export async function findRole(db: DbOrTx, id: number) {
  const [r] = await db.select().from(roles).where(eq(roles.id, id)).limit(1);
  return r ?? null;
}

export async function findPermissionGroup(db: DbOrTx, id: number) {
  const [r] = await db.select().from(permissionGroups).where(eq(permissionGroups.id, id)).limit(1);
  return r ?? null;
}

/** Every organisation, department, system role and permission group: what an import row may name. */
export async function loadDictionaries(db: DbOrTx) {
  const [orgs, depts, systemRoles, groups] = await Promise.all([
    db.select({ id: organizations.id, name: organizations.name, code: organizations.code, status: organizations.status }).from(organizations).orderBy(asc(organizations.id)),
    db.select({ id: departments.id, orgId: departments.orgId, name: departments.name, code: departments.code, status: departments.status }).from(departments).orderBy(asc(departments.id)),
    db.select({ id: roles.id, code: roles.code, status: roles.status }).from(roles).where(eq(roles.kind, 'system')).orderBy(asc(roles.id)),
    db.select({ id: permissionGroups.id, name: permissionGroups.name, status: permissionGroups.status }).from(permissionGroups).orderBy(asc(permissionGroups.id)),
  ]);
  return { orgs, depts, systemRoles, groups };
}
export type Dictionaries = Awaited<ReturnType<typeof loadDictionaries>>;
