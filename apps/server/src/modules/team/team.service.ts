/**
 * Project team members: a user × project × role × sites in one environment. Rules: the role must be a project
 * role allowed in the environment; in DEV only data-manager roles (spec §6); sites must belong to the project in
 * the environment. Every change is audited with old and new values.
 */
import { and, asc, count, eq, ilike, inArray, or, sql } from 'drizzle-orm';
import type { MemberRow } from '@esource/shared';
import type { Db, Tx } from '../../db/client';
import { messages, organizations, projectMemberSites, projectMembers, roles, sites, users } from '../../db/schema';
import { AppError } from '../../lib/errors';
import type { ProjectScopedContext } from '../../lib/context';
import { actorOf, recordAudit } from '../audit/audit.service';
import { roleAllowsEnv } from '../auth/auth.repo';
import { likeOf } from '../../lib/sql';
import { offsetOf, pageOf } from '../../lib/page';


export interface MemberFilter {
  keyword?: string | undefined;
  roleId?: number | undefined;
  siteId?: number | undefined;
  status?: number | undefined;
}

export interface MemberAssignment {
  roleId: number;
  allSites: boolean;
  siteIds: number[];
}

export class TeamService {
  constructor(private readonly db: Db) {}

  private where(ctx: ProjectScopedContext, f: MemberFilter) {
    return and(
      eq(projectMembers.projectId, ctx.project.id),
      eq(projectMembers.env, ctx.env),
      f.keyword ? or(ilike(users.account, likeOf(f.keyword)), ilike(users.name, likeOf(f.keyword))) : undefined,
      f.roleId ? eq(projectMembers.roleId, f.roleId) : undefined,
      f.status !== undefined ? eq(projectMembers.status, f.status) : undefined,
      f.siteId
        ? or(
            eq(projectMembers.allSites, true),
            sql`exists (select 1 from project_member_sites ms where ms.member_id = ${projectMembers.id} and ms.site_id = ${f.siteId})`,
          )
        : undefined,
    );
  }

  async page(ctx: ProjectScopedContext, f: MemberFilter, pageNumber: number, pageSize: number) {
    const where = this.where(ctx, f);
    const [total] = await this.db
      .select({ n: count() })
      .from(projectMembers)
      .innerJoin(users, eq(users.id, projectMembers.userId))
      .where(where);
    const ids = await this.db
      .select({ id: projectMembers.id })
      .from(projectMembers)
      .innerJoin(users, eq(users.id, projectMembers.userId))
      .where(where)
      .orderBy(asc(users.account))
      .limit(pageSize)
      .offset(offsetOf({ pageNumber, pageSize }));
    return pageOf({ pageNumber, pageSize }, total?.n ?? 0, await this.rows(this.db, ids.map((r) => r.id)));
  }

  async all(ctx: ProjectScopedContext, f: MemberFilter): Promise<MemberRow[]> {
    const ids = await this.db
      .select({ id: projectMembers.id })
      .from(projectMembers)
      .innerJoin(users, eq(users.id, projectMembers.userId))
      .where(this.where(ctx, f))
      .orderBy(asc(users.account))
      .limit(10_000);
    return this.rows(this.db, ids.map((r) => r.id));
  }

  async rows(db: Db | Tx, ids: number[]): Promise<MemberRow[]> {
    if (ids.length === 0) return [];
    const ms = await db
      .select({ m: projectMembers, u: users, orgName: organizations.name, roleCode: roles.code, roleName: roles.name })
      .from(projectMembers)
      .innerJoin(users, eq(users.id, projectMembers.userId))
      .innerJoin(roles, eq(roles.id, projectMembers.roleId))
      .leftJoin(organizations, eq(organizations.id, users.orgId))
      .where(inArray(projectMembers.id, ids));
    const ss = await db
      .select({ memberId: projectMemberSites.memberId, id: sites.id, siteNo: sites.siteNo, name: sites.name })
      .from(projectMemberSites)
      .innerJoin(sites, eq(sites.id, projectMemberSites.siteId))
      .where(inArray(projectMemberSites.memberId, ids))
      .orderBy(asc(sites.siteNo));
    const byId = new Map(ms.map((r) => [r.m.id, r]));
    return ids.flatMap((id) => {
      const r = byId.get(id);
      if (!r) return [];
      return [
        {
          id: r.m.id,
          userId: r.u.id,
          account: r.u.account,
          name: r.u.name,
          orgName: r.orgName,
          roleId: r.m.roleId,
          roleCode: r.roleCode,
          roleName: r.roleName,
          allSites: r.m.allSites,
          sites: ss.filter((s) => s.memberId === id).map(({ id: sid, siteNo, name }) => ({ id: sid, siteNo, name })),
          status: r.m.status,
          createTime: r.m.createdAt.toISOString(),
        },
      ];
    });
  }

  /** Checks the role and sites of an assignment against the rules of this project and environment. */
  private async checkAssignment(tx: Tx, ctx: ProjectScopedContext, a: MemberAssignment) {
    const [role] = await tx.select().from(roles).where(and(eq(roles.id, a.roleId), eq(roles.status, 1)));
    if (!role || role.kind !== 'project') throw new AppError('INVALID_REFERENCE', { field: 'roleId' });
    if (ctx.env === 'DEV' && !role.isDm) throw new AppError('DM_ONLY_IN_DEV');
    if (!roleAllowsEnv(role, ctx.env)) throw new AppError('ENV_FORBIDDEN', { env: ctx.env });
    if (!a.allSites) {
      const found = await tx
        .select({ id: sites.id })
        .from(sites)
        .where(and(inArray(sites.id, a.siteIds), eq(sites.projectId, ctx.project.id), eq(sites.env, ctx.env)));
      if (found.length !== new Set(a.siteIds).size) throw new AppError('INVALID_REFERENCE', { field: 'siteIds' });
    }
    return role;
  }

  private async siteList(tx: Tx, memberId: number): Promise<string> {
    const rows = await tx
      .select({ no: sites.siteNo })
      .from(projectMemberSites)
      .innerJoin(sites, eq(sites.id, projectMemberSites.siteId))
      .where(eq(projectMemberSites.memberId, memberId))
      .orderBy(asc(sites.siteNo));
    return rows.map((r) => r.no).join(',');
  }

  async add(ctx: ProjectScopedContext, userId: number, a: MemberAssignment, action = 'member.add'): Promise<MemberRow> {
    return this.db.transaction(async (tx) => {
      const [u] = await tx.select().from(users).where(eq(users.id, userId));
      if (!u || u.status !== 1) throw new AppError('INVALID_REFERENCE', { field: 'userId' });
      const role = await this.checkAssignment(tx, ctx, a);
      const [existing] = await tx
        .select()
        .from(projectMembers)
        .where(and(eq(projectMembers.projectId, ctx.project.id), eq(projectMembers.env, ctx.env), eq(projectMembers.userId, userId)));
      if (existing) throw new AppError('DUPLICATE', { field: 'userId', value: u.account });
      const [m] = await tx
        .insert(projectMembers)
        .values({ env: ctx.env, projectId: ctx.project.id, userId, roleId: a.roleId, allSites: a.allSites })
        .returning();
      if (!a.allSites) await tx.insert(projectMemberSites).values([...new Set(a.siteIds)].map((siteId) => ({ memberId: m!.id, siteId })));
      const base = { action, entity: 'member', entityId: m!.id, projectId: ctx.project.id };
      await recordAudit(tx, actorOf(ctx), [
        { ...base, field: 'user', newValue: u.account },
        { ...base, field: 'role', newValue: role.code },
        { ...base, field: 'sites', newValue: a.allSites ? 'ALL' : await this.siteList(tx, m!.id) },
      ]);
      if (action === 'member.invite') {
        await tx.insert(messages).values({
          env: ctx.env,
          projectId: ctx.project.id,
          userId,
          kind: 'invite',
          senderId: ctx.user.id,
          title: `${ctx.project.no} ${ctx.project.name}`,
          content: `invite:${role.code}`,
        });
      }
      return (await this.rows(tx, [m!.id]))[0]!;
    });
  }

  async update(ctx: ProjectScopedContext, id: number, a: MemberAssignment): Promise<MemberRow> {
    return this.db.transaction(async (tx) => {
      const before = await this.find(tx, ctx, id);
      const role = await this.checkAssignment(tx, ctx, a);
      const [oldRole] = await tx.select({ code: roles.code }).from(roles).where(eq(roles.id, before.roleId));
      const oldSites = before.allSites ? 'ALL' : await this.siteList(tx, id);
      await tx.update(projectMembers).set({ roleId: a.roleId, allSites: a.allSites, updatedAt: new Date() }).where(eq(projectMembers.id, id));
      await tx.delete(projectMemberSites).where(eq(projectMemberSites.memberId, id));
      if (!a.allSites) await tx.insert(projectMemberSites).values([...new Set(a.siteIds)].map((siteId) => ({ memberId: id, siteId })));
      const newSites = a.allSites ? 'ALL' : await this.siteList(tx, id);
      const base = { action: 'member.update', entity: 'member', entityId: id, projectId: ctx.project.id };
      const entries = [];
      if (oldRole?.code !== role.code) entries.push({ ...base, field: 'role', oldValue: oldRole?.code, newValue: role.code });
      if (oldSites !== newSites) entries.push({ ...base, field: 'sites', oldValue: oldSites, newValue: newSites });
      await recordAudit(tx, actorOf(ctx), entries);
      return (await this.rows(tx, [id]))[0]!;
    });
  }

  async setStatus(ctx: ProjectScopedContext, id: number, status: number): Promise<MemberRow> {
    return this.db.transaction(async (tx) => {
      const before = await this.find(tx, ctx, id);
      if (before.userId === ctx.user.id && status === 0) throw new AppError('FORBIDDEN');
      await tx.update(projectMembers).set({ status, updatedAt: new Date() }).where(eq(projectMembers.id, id));
      await recordAudit(tx, actorOf(ctx), [
        { action: 'member.status', entity: 'member', entityId: id, projectId: ctx.project.id, field: 'status', oldValue: before.status, newValue: status },
      ]);
      return (await this.rows(tx, [id]))[0]!;
    });
  }

  async message(ctx: ProjectScopedContext, memberIds: number[], title: string, content: string): Promise<number> {
    return this.db.transaction(async (tx) => {
      const ms = await tx
        .select({ id: projectMembers.id, userId: projectMembers.userId })
        .from(projectMembers)
        .where(and(inArray(projectMembers.id, memberIds), eq(projectMembers.projectId, ctx.project.id), eq(projectMembers.env, ctx.env)));
      if (ms.length !== new Set(memberIds).size) throw new AppError('INVALID_REFERENCE', { field: 'memberIds' });
      await tx
        .insert(messages)
        .values(ms.map((m) => ({ env: ctx.env, projectId: ctx.project.id, userId: m.userId, kind: 'team', senderId: ctx.user.id, title, content })));
      await recordAudit(tx, actorOf(ctx), [
        { action: 'member.message', entity: 'member', projectId: ctx.project.id, newValue: title, field: 'recipients', oldValue: ms.map((m) => m.id).join(',') },
      ]);
      return ms.length;
    });
  }

  /** Enabled users matching the keyword who are not members of the project in this environment. */
  async candidates(ctx: ProjectScopedContext, keyword: string, limit: number) {
    return this.db
      .select({ id: users.id, account: users.account, name: users.name, orgName: organizations.name })
      .from(users)
      .leftJoin(organizations, eq(organizations.id, users.orgId))
      .where(
        and(
          eq(users.status, 1),
          keyword ? or(ilike(users.account, likeOf(keyword)), ilike(users.name, likeOf(keyword))) : undefined,
          sql`not exists (select 1 from project_members m where m.user_id = ${users.id} and m.project_id = ${ctx.project.id} and m.env = ${ctx.env})`,
        ),
      )
      .orderBy(asc(users.account))
      .limit(limit);
  }

  private async find(tx: Tx, ctx: ProjectScopedContext, id: number) {
    const [m] = await tx
      .select()
      .from(projectMembers)
      .where(and(eq(projectMembers.id, id), eq(projectMembers.projectId, ctx.project.id), eq(projectMembers.env, ctx.env)));
    if (!m) throw new AppError('NOT_FOUND', { entity: 'member' });
    return m;
  }
}
