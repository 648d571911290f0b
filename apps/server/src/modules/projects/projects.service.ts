/**
 * Projects (studies): create, update with optimistic locking, status changes including close, copy of the
 * configuration, and soft delete while the project holds no subject data. Every change is audited with old and
 * new values in the same transaction.
 */
import { randomUUID } from 'node:crypto';
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { ProjectDetail, ProjectInput, ProjectUpdate } from '@esource/shared';
import { ENVS } from '@esource/shared';
import type { Db, Tx } from '../../db/client';
import { auditEvents, designVersions, projectMembers, projects, roles } from '../../db/schema';
import { copyDesign } from '../design/design.service';
import { AppError } from '../../lib/errors';
import type { AuthedContext, ProjectScopedContext } from '../../lib/context';
import { actorOf, diffEntries, recordAudit } from '../audit/audit.service';

type ProjectRow = typeof projects.$inferSelect;
const AUDITED = ['no', 'name', 'status', 'scene', 'fileConfirmConfig', 'autoPrefillDisabled', 'configFiveFunction'] as const;

/**
 * Does the project hold subject data? A project for which any check says yes cannot be deleted. The modules
 * that hold subject data (subjects, later eCRF data, source records, documents) provide theirs; the
 * composition root (app.ts, AppDeps.hooks) passes them in.
 */
export type SubjectDataCheck = (tx: Tx, projectId: number) => Promise<boolean>;

export function toDetail(p: ProjectRow, roleCode: string | null): ProjectDetail {
  return {
    id: p.id,
    no: p.no,
    name: p.name,
    status: p.status,
    scene: p.scene,
    fileConfirmConfig: p.fileConfirmConfig,
    autoPrefillDisabled: p.autoPrefillDisabled,
    uuidNo: p.uuidNo,
    configFiveFunction: p.configFiveFunction,
    version: p.version,
    createTime: p.createdAt.toISOString(),
    updateTime: p.updatedAt.toISOString(),
    roleCode,
  };
}

export class ProjectsService {
  constructor(
    private readonly db: Db,
    private readonly subjectDataChecks: readonly SubjectDataCheck[] = [],
  ) {}

  private async findLive(tx: Db | Tx, id: number): Promise<ProjectRow> {
    const [p] = await tx.select().from(projects).where(and(eq(projects.id, id), isNull(projects.deletedAt)));
    if (!p) throw new AppError('NOT_FOUND', { entity: 'project' });
    return p;
  }

  private async assertNoUnique(tx: Tx, no: string, exceptId: number | null) {
    const [dup] = await tx
      .select({ id: projects.id })
      .from(projects)
      .where(and(sql`lower(${projects.no}) = lower(${no})`, isNull(projects.deletedAt)));
    if (dup && dup.id !== exceptId) throw new AppError('DUPLICATE', { field: 'no', value: no });
  }

  /** The creator becomes the project's data manager in every environment. */
  private async addCreatorAsDm(tx: Tx, projectId: number, userId: number) {
    const [dm] = await tx
      .select({ id: roles.id })
      .from(roles)
      .where(and(eq(roles.isDm, true), eq(roles.kind, 'project'), eq(roles.status, 1)))
      .orderBy(sql`${roles.code} = 'DM' desc`, roles.id)
      .limit(1);
    if (!dm) return;
    for (const env of ENVS) {
      await tx.insert(projectMembers).values({ env, projectId, userId, roleId: dm.id, allSites: true });
    }
  }

  async get(ctx: ProjectScopedContext): Promise<ProjectDetail> {
    return toDetail(await this.findLive(this.db, ctx.project.id), ctx.project.roleCode);
  }

  async create(ctx: AuthedContext, input: ProjectInput): Promise<ProjectDetail> {
    return this.db.transaction(async (tx) => {
      await this.assertNoUnique(tx, input.no, null);
      const [p] = await tx
        .insert(projects)
        .values({ ...input, status: 1, createdBy: ctx.user.id })
        .returning();
      await this.addCreatorAsDm(tx, p!.id, ctx.user.id);
      await recordAudit(
        tx,
        actorOf(ctx),
        diffEntries({ action: 'project.add', entity: 'project', entityId: p!.id, projectId: p!.id }, null, p!, AUDITED),
      );
      return toDetail(p!, 'DM');
    });
  }

  async update(ctx: ProjectScopedContext, id: number, version: number, input: Omit<ProjectUpdate, 'id' | 'version'>): Promise<ProjectDetail> {
    sameProject(ctx, id);
    return this.db.transaction(async (tx) => {
      const before = await this.findLive(tx, id);
      if (before.version !== version) throw await this.stale(tx, id);
      if (input.no !== undefined) await this.assertNoUnique(tx, input.no, id);
      const changes = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined));
      const [after] = await tx
        .update(projects)
        .set({ ...changes, version: before.version + 1, updatedAt: new Date() })
        .where(and(eq(projects.id, id), eq(projects.version, version)))
        .returning();
      if (!after) throw await this.stale(tx, id);
      await recordAudit(
        tx,
        actorOf(ctx),
        diffEntries({ action: 'project.update', entity: 'project', entityId: id, projectId: id }, before, after, AUDITED),
      );
      return toDetail(after, ctx.project.roleCode);
    });
  }

  /**
   * A new uuidNo: the project's entry link (/project…?uuid=, spec §2 guard; getProId) changes, and links handed out
   * with the old one stop working. Version-checked like an update; audited with the old and new value.
   */
  async resetUuid(ctx: ProjectScopedContext, id: number, version: number): Promise<ProjectDetail> {
    sameProject(ctx, id);
    return this.db.transaction(async (tx) => {
      const before = await this.findLive(tx, id);
      if (before.version !== version) throw await this.stale(tx, id);
      const [after] = await tx
        .update(projects)
        .set({ uuidNo: randomUUID(), version: before.version + 1, updatedAt: new Date() })
        .where(and(eq(projects.id, id), eq(projects.version, version)))
        .returning();
      if (!after) throw await this.stale(tx, id);
      await recordAudit(tx, actorOf(ctx), [
        { action: 'project.uuid', entity: 'project', entityId: id, projectId: id, field: 'uuidNo', oldValue: before.uuidNo, newValue: after.uuidNo },
      ]);
      return toDetail(after, ctx.project.roleCode);
    });
  }

  /** Names who changed the project last and when, for the stale-write message. */
  private async stale(tx: Tx, id: number): Promise<AppError> {
    const [last] = await tx
      .select({ userName: auditEvents.userName, at: auditEvents.createdAt })
      .from(auditEvents)
      .where(and(eq(auditEvents.entity, 'project'), eq(auditEvents.entityId, String(id))))
      .orderBy(desc(auditEvents.id))
      .limit(1);
    return new AppError('STALE_WRITE', { user: last?.userName ?? '?', time: last?.at.toISOString() ?? '?' });
  }

  async setStatus(ctx: ProjectScopedContext, id: number, status: number, reason: string): Promise<ProjectDetail> {
    sameProject(ctx, id);
    return this.db.transaction(async (tx) => {
      const before = await this.findLive(tx, id);
      const [after] = await tx
        .update(projects)
        .set({ status, version: before.version + 1, updatedAt: new Date() })
        .where(eq(projects.id, id))
        .returning();
      await recordAudit(tx, actorOf(ctx), [
        {
          action: status === 3 ? 'project.close' : 'project.status',
          entity: 'project',
          entityId: id,
          projectId: id,
          field: 'status',
          oldValue: before.status,
          newValue: status,
          reason,
        },
      ]);
      return toDetail(after!, ctx.project.roleCode);
    });
  }

  async remove(ctx: ProjectScopedContext, id: number, reason: string | undefined): Promise<void> {
    sameProject(ctx, id);
    await this.db.transaction(async (tx) => {
      const before = await this.findLive(tx, id);
      for (const check of this.subjectDataChecks) {
        if (await check(tx, id)) throw new AppError('PROJECT_HAS_SUBJECT_DATA');
      }
      const now = new Date();
      await tx.update(projects).set({ deletedAt: now, updatedAt: now, version: before.version + 1 }).where(eq(projects.id, id));
      await tx.update(projectMembers).set({ status: 0, updatedAt: now }).where(eq(projectMembers.projectId, id));
      await recordAudit(tx, actorOf(ctx), [
        { action: 'project.delete', entity: 'project', entityId: id, projectId: id, oldValue: before.no, reason: reason ?? null },
      ]);
    });
  }

  /** Copies configuration (never subject data, sites or members) into a new project the caller manages. */
  async copy(ctx: ProjectScopedContext, sourceId: number, no: string, name: string): Promise<ProjectDetail> {
    sameProject(ctx, sourceId);
    return this.db.transaction(async (tx) => {
      const src = await this.findLive(tx, sourceId);
      await this.assertNoUnique(tx, no, null);
      const [p] = await tx
        .insert(projects)
        .values({
          no,
          name,
          status: 1,
          scene: src.scene,
          fileConfirmConfig: src.fileConfirmConfig,
          autoPrefillDisabled: src.autoPrefillDisabled,
          configFiveFunction: src.configFiveFunction,
          createdBy: ctx.user.id,
        })
        .returning();
      await this.addCreatorAsDm(tx, p!.id, ctx.user.id);
      // the design comes along: the source's newest version becomes the copy's unpublished version 1
      const [latest] = await tx
        .select()
        .from(designVersions)
        .where(eq(designVersions.projectId, src.id))
        .orderBy(desc(designVersions.versionNo))
        .limit(1);
      if (latest) {
        const [v] = await tx
          .insert(designVersions)
          .values({ projectId: p!.id, versionNo: 1, name: latest.name })
          .returning({ id: designVersions.id });
        await copyDesign(tx, latest.id, v!.id);
      }
      await recordAudit(tx, actorOf(ctx), [
        { action: 'project.copy', entity: 'project', entityId: p!.id, projectId: p!.id, oldValue: src.no, newValue: no },
        { action: 'project.copied', entity: 'project', entityId: src.id, projectId: src.id, newValue: no },
      ]);
      return toDetail(p!, 'DM');
    });
  }
}

/** A body's project id must be the open project (proId), whose membership the guard checked. */
export function sameProject(ctx: ProjectScopedContext, id: number): void {
  if (id !== ctx.project.id) throw new AppError('VALIDATION', { detail: 'validation.sameProject' }, [{ field: 'id', message: 'validation.sameProject' }]);
}
