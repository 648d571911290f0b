/**
 * Study design: versions with their stages, visits and forms. A version is edited in DEV while unpublished;
 * publishing it to UAT/PRO makes it read-only (a change needs a new version, copied from it). Every change is
 * audited with old and new values in the same transaction.
 */
import { and, asc, count, desc, eq, inArray, max, ne, sql } from 'drizzle-orm';
import { formDefinition, formFields, formFieldsInTables, type DesignExportFile, type FieldComponent, type FormDefinition, type FormItemRow, type FormRow, type VersionRow, type VisitRow } from '@esource/shared';
import type { z } from 'zod';
import type { formItemPatch } from '@esource/shared';

type FormItemPatch = z.output<typeof formItemPatch>;
import type { Db, Tx } from '../../db/client';
import { designVersions, forms, stages, visitForms, visits } from '../../db/schema';
import { AppError } from '../../lib/errors';
import { fieldError, parseInput } from '../../lib/validate';
import type { ProjectScopedContext } from '../../lib/context';
import { actorOf, diffEntries, recordAudit } from '../audit/audit.service';
import { refreshVersionProgress } from '../subjects/subjects.service';

type Version = typeof designVersions.$inferSelect;

/**
 * Does study data exist against this version? (then it is 'collecting'). The modules that hold such data
 * provide the checks; the composition root (app.ts, AppDeps.hooks) passes them in.
 */
export type CollectingCheck = (db: Db | Tx, versionId: number) => Promise<boolean>;

export class DesignService {
  constructor(
    private readonly db: Db,
    private readonly collectingChecks: readonly CollectingCheck[] = [],
  ) {}

  async version(tx: Db | Tx, ctx: ProjectScopedContext, id: number): Promise<Version> {
    const [v] = await tx
      .select()
      .from(designVersions)
      .where(and(eq(designVersions.id, id), eq(designVersions.projectId, ctx.project.id)));
    if (!v) throw new AppError('NOT_FOUND', { entity: 'version' });
    // outside DEV only what was published to that environment exists
    if (ctx.env !== 'DEV' && !v.publishedEnvs.includes(ctx.env)) throw new AppError('NOT_FOUND', { entity: 'version' });
    return v;
  }

  /** A version that may still change: DEV, unpublished. */
  async editable(tx: Db | Tx, ctx: ProjectScopedContext, id: number): Promise<Version> {
    if (ctx.env !== 'DEV') throw new AppError('ENV_FORBIDDEN', { env: ctx.env });
    const v = await this.version(tx, ctx, id);
    if (v.status !== 0) throw new AppError('VERSION_LOCKED');
    return v;
  }

  private base(ctx: ProjectScopedContext, entity: string, entityId: number) {
    return { entity, entityId, projectId: ctx.project.id };
  }

  async versions(ctx: ProjectScopedContext): Promise<VersionRow[]> {
    const vs = await this.db
      .select()
      .from(designVersions)
      .where(
        and(
          eq(designVersions.projectId, ctx.project.id),
          ctx.env === 'DEV' ? undefined : sql`${ctx.env} = any(${designVersions.publishedEnvs})`,
        ),
      )
      .orderBy(desc(designVersions.versionNo));
    if (vs.length === 0) return [];
    const ids = vs.map((v) => v.id);
    const fc = await this.db.select({ id: forms.versionId, n: count() }).from(forms).where(inArray(forms.versionId, ids)).groupBy(forms.versionId);
    const vc = await this.db.select({ id: visits.versionId, n: count() }).from(visits).where(inArray(visits.versionId, ids)).groupBy(visits.versionId);
    const out: VersionRow[] = [];
    for (const v of vs) {
      out.push({
        id: v.id,
        versionNo: v.versionNo,
        name: v.name,
        status: v.status,
        publishedEnvs: v.publishedEnvs,
        publishedAt: v.publishedAt?.toISOString() ?? null,
        collecting: await this.collecting(this.db, v.id),
        formCount: fc.find((x) => x.id === v.id)?.n ?? 0,
        visitCount: vc.find((x) => x.id === v.id)?.n ?? 0,
        createTime: v.createdAt.toISOString(),
      });
    }
    return out;
  }

  private async collecting(db: Db | Tx, versionId: number): Promise<boolean> {
    for (const c of this.collectingChecks) if (await c(db, versionId)) return true;
    return false;
  }

  /** A new version: empty, or a copy of basedOnId (default: the newest) — stages, visits, forms, assignments. */
  async createVersion(ctx: ProjectScopedContext, name: string, basedOnId: number | undefined): Promise<VersionRow> {
    if (ctx.env !== 'DEV') throw new AppError('ENV_FORBIDDEN', { env: ctx.env });
    const id = await this.db.transaction(async (tx) => {
      const [m] = await tx.select({ n: max(designVersions.versionNo) }).from(designVersions).where(eq(designVersions.projectId, ctx.project.id));
      let source: Version | null = null;
      if (basedOnId) source = await this.version(tx, ctx, basedOnId);
      else {
        const [latest] = await tx
          .select()
          .from(designVersions)
          .where(eq(designVersions.projectId, ctx.project.id))
          .orderBy(desc(designVersions.versionNo))
          .limit(1);
        source = latest ?? null;
      }
      const [v] = await tx
        .insert(designVersions)
        .values({ projectId: ctx.project.id, versionNo: (m?.n ?? 0) + 1, name, basedOnId: source?.id ?? null })
        .returning();
      if (source) await copyDesign(tx, source.id, v!.id);
      await recordAudit(tx, actorOf(ctx), [
        { action: 'version.add', ...this.base(ctx, 'version', v!.id), field: 'name', newValue: name, oldValue: source ? `based on v${source.versionNo}` : null },
      ]);
      return v!.id;
    });
    return (await this.versions(ctx)).find((v) => v.id === id)!;
  }

  async publish(ctx: ProjectScopedContext, id: number, envs: ('UAT' | 'PRO')[]): Promise<VersionRow> {
    if (ctx.env !== 'DEV') throw new AppError('ENV_FORBIDDEN', { env: ctx.env });
    await this.db.transaction(async (tx) => {
      const v = await this.version(tx, ctx, id);
      const [fc] = await tx.select({ n: count() }).from(forms).where(eq(forms.versionId, id));
      if (!fc?.n) throw new AppError('VALIDATION', { detail: 'validation.componentsEmpty' }, [{ field: 'forms', message: 'validation.componentsEmpty' }]);
      const next = [...new Set([...v.publishedEnvs, ...envs])].sort();
      await tx
        .update(designVersions)
        .set({ status: 1, publishedEnvs: next, publishedAt: new Date(), publishedBy: ctx.user.id, updatedAt: new Date() })
        .where(eq(designVersions.id, id));
      await recordAudit(tx, actorOf(ctx), [
        { action: 'version.publish', ...this.base(ctx, 'version', id), field: 'publishedEnvs', oldValue: v.publishedEnvs.join(','), newValue: next.join(',') },
      ]);
    });
    return (await this.versions(ctx)).find((v) => v.id === id)!;
  }

  async deleteVersion(ctx: ProjectScopedContext, id: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      const v = await this.editable(tx, ctx, id);
      await tx.delete(designVersions).where(eq(designVersions.id, id));
      await recordAudit(tx, actorOf(ctx), [{ action: 'version.delete', ...this.base(ctx, 'version', id), oldValue: `v${v.versionNo} ${v.name}` }]);
    });
  }

  // ── stages ──
  async stages(ctx: ProjectScopedContext, versionId: number) {
    await this.version(this.db, ctx, versionId);
    return this.db.select().from(stages).where(eq(stages.versionId, versionId)).orderBy(asc(stages.sortOrder), asc(stages.id));
  }

  async saveStage(ctx: ProjectScopedContext, input: { id?: number; versionId: number; name: string; sortOrder: number }) {
    return this.db.transaction(async (tx) => {
      let versionId = input.versionId;
      let before: typeof stages.$inferSelect | null = null;
      if (input.id) {
        before = (await tx.select().from(stages).where(eq(stages.id, input.id)))[0] ?? null;
        if (!before) throw new AppError('NOT_FOUND', { entity: 'stage' });
        versionId = before.versionId;
      }
      await this.editable(tx, ctx, versionId);
      const [row] = input.id
        ? await tx.update(stages).set({ name: input.name, sortOrder: input.sortOrder }).where(eq(stages.id, input.id)).returning()
        : await tx.insert(stages).values({ versionId, name: input.name, sortOrder: input.sortOrder }).returning();
      await recordAudit(
        tx,
        actorOf(ctx),
        diffEntries({ action: input.id ? 'stage.update' : 'stage.add', ...this.base(ctx, 'stage', row!.id) }, before, row!, ['name', 'sortOrder']),
      );
      return row!;
    });
  }

  async deleteStage(ctx: ProjectScopedContext, id: number) {
    await this.db.transaction(async (tx) => {
      const [s] = await tx.select().from(stages).where(eq(stages.id, id));
      if (!s) throw new AppError('NOT_FOUND', { entity: 'stage' });
      await this.editable(tx, ctx, s.versionId);
      await tx.delete(stages).where(eq(stages.id, id));
      await recordAudit(tx, actorOf(ctx), [{ action: 'stage.delete', ...this.base(ctx, 'stage', id), oldValue: s.name }]);
    });
  }

  // ── visits ──
  async visits(db: Db | Tx, versionId: number): Promise<VisitRow[]> {
    const vs = await db.select().from(visits).where(eq(visits.versionId, versionId)).orderBy(asc(visits.sortOrder), asc(visits.dayOffset), asc(visits.id));
    const links = vs.length
      ? await db.select().from(visitForms).where(inArray(visitForms.visitId, vs.map((v) => v.id))).orderBy(asc(visitForms.sortOrder))
      : [];
    return vs.map((v) => ({
      id: v.id,
      versionId: v.versionId,
      stageId: v.stageId,
      code: v.code,
      name: v.name,
      nameEn: v.nameEn,
      sortOrder: v.sortOrder,
      dayOffset: v.dayOffset,
      windowBefore: v.windowBefore,
      windowAfter: v.windowAfter,
      unscheduled: v.unscheduled,
      formIds: links.filter((l) => l.visitId === v.id).map((l) => l.formId),
    }));
  }

  async saveVisit(
    ctx: ProjectScopedContext,
    input: Omit<VisitRow, 'id' | 'versionId' | 'stageId' | 'nameEn'> & { id?: number; versionId?: number; stageId?: number | undefined; nameEn?: string | null | undefined },
  ): Promise<VisitRow> {
    return this.db.transaction(async (tx) => {
      let before: typeof visits.$inferSelect | null = null;
      let versionId = input.versionId ?? 0;
      if (input.id) {
        before = (await tx.select().from(visits).where(eq(visits.id, input.id)))[0] ?? null;
        if (!before) throw new AppError('NOT_FOUND', { entity: 'visit' });
        versionId = before.versionId;
      }
      await this.editable(tx, ctx, versionId);
      const [dup] = await tx
        .select({ id: visits.id })
        .from(visits)
        .where(and(eq(visits.versionId, versionId), eq(visits.code, input.code), input.id ? ne(visits.id, input.id) : undefined));
      if (dup) throw new AppError('DUPLICATE', { field: 'code', value: input.code });
      if (input.stageId) {
        const [st] = await tx.select().from(stages).where(and(eq(stages.id, input.stageId), eq(stages.versionId, versionId)));
        if (!st) throw new AppError('INVALID_REFERENCE', { field: 'stageId' });
      }
      if (input.formIds.length) {
        const fs = await tx.select({ id: forms.id }).from(forms).where(and(inArray(forms.id, input.formIds), eq(forms.versionId, versionId)));
        if (fs.length !== new Set(input.formIds).size) throw new AppError('INVALID_REFERENCE', { field: 'formIds' });
      }
      const fields = {
        stageId: input.stageId ?? null,
        code: input.code,
        name: input.name,
        nameEn: input.nameEn?.trim() || null,
        sortOrder: input.sortOrder,
        dayOffset: input.unscheduled ? 0 : input.dayOffset,
        windowBefore: input.unscheduled ? 0 : input.windowBefore,
        windowAfter: input.unscheduled ? 0 : input.windowAfter,
        unscheduled: input.unscheduled,
      };
      const [row] = input.id
        ? await tx.update(visits).set(fields).where(eq(visits.id, input.id)).returning()
        : await tx.insert(visits).values({ versionId, ...fields }).returning();
      const oldForms = before ? (await tx.select().from(visitForms).where(eq(visitForms.visitId, row!.id))).map((l) => l.formId) : [];
      await tx.delete(visitForms).where(eq(visitForms.visitId, row!.id));
      const ids = [...new Set(input.formIds)];
      if (ids.length) await tx.insert(visitForms).values(ids.map((formId, i) => ({ visitId: row!.id, formId, sortOrder: i })));
      const entries = diffEntries(
        { action: input.id ? 'visit.update' : 'visit.add', ...this.base(ctx, 'visit', row!.id) },
        before,
        row!,
        ['code', 'name', 'nameEn', 'stageId', 'sortOrder', 'dayOffset', 'windowBefore', 'windowAfter', 'unscheduled'],
      );
      if (oldForms.join(',') !== ids.join(','))
        entries.push({ action: input.id ? 'visit.update' : 'visit.add', ...this.base(ctx, 'visit', row!.id), field: 'forms', oldValue: oldForms.join(','), newValue: ids.join(',') });
      await recordAudit(tx, actorOf(ctx), entries);
      await refreshVersionProgress(tx, versionId);
      return (await this.visits(tx, versionId)).find((v) => v.id === row!.id)!;
    });
  }

  async deleteVisit(ctx: ProjectScopedContext, id: number) {
    await this.db.transaction(async (tx) => {
      const [v] = await tx.select().from(visits).where(eq(visits.id, id));
      if (!v) throw new AppError('NOT_FOUND', { entity: 'visit' });
      await this.editable(tx, ctx, v.versionId);
      await tx.delete(visits).where(eq(visits.id, id));
      await refreshVersionProgress(tx, v.versionId);
      await recordAudit(tx, actorOf(ctx), [{ action: 'visit.delete', ...this.base(ctx, 'visit', id), oldValue: `${v.code} ${v.name}` }]);
    });
  }

  // ── forms ──
  toFormRow(f: typeof forms.$inferSelect): FormRow {
    const definition = f.definition as unknown as FormDefinition;
    return {
      id: f.id,
      versionId: f.versionId,
      code: f.code,
      name: f.name,
      nameEn: f.nameEn,
      lockVersion: f.lockVersion,
      fieldCount: formFields(definition.components).length,
      definition,
      updateTime: f.updatedAt.toISOString(),
    };
  }

  async formsOf(ctx: ProjectScopedContext, versionId: number): Promise<FormRow[]> {
    await this.version(this.db, ctx, versionId);
    const rows = await this.db.select().from(forms).where(eq(forms.versionId, versionId)).orderBy(asc(forms.sortOrder), asc(forms.code));
    return rows.map((f) => this.toFormRow(f));
  }

  async form(ctx: ProjectScopedContext, id: number): Promise<FormRow> {
    const [f] = await this.db.select().from(forms).where(eq(forms.id, id));
    if (!f) throw new AppError('NOT_FOUND', { entity: 'form' });
    await this.version(this.db, ctx, f.versionId);
    return this.toFormRow(f);
  }

  /** Creates or replaces a form definition; a stale lockVersion is refused naming who saved last. */
  async saveForm(ctx: ProjectScopedContext, versionId: number, id: number | undefined, lockVersion: number | undefined, def: FormDefinition): Promise<FormRow> {
    return this.db.transaction(async (tx) => {
      await this.editable(tx, ctx, versionId);
      const [dup] = await tx
        .select({ id: forms.id })
        .from(forms)
        .where(and(eq(forms.versionId, versionId), eq(forms.code, def.code), id ? ne(forms.id, id) : undefined));
      if (dup) throw new AppError('DUPLICATE', { field: 'code', value: def.code });
      const definition = def as unknown as Record<string, unknown>;
      if (!id) {
        const [f] = await tx
          .insert(forms)
          .values({ versionId, code: def.code, name: def.name, nameEn: def.nameEn ?? null, definition })
          .returning();
        await recordAudit(tx, actorOf(ctx), [
          { action: 'form.add', ...this.base(ctx, 'form', f!.id), field: 'definition', newValue: JSON.stringify(def) },
        ]);
        return this.toFormRow(f!);
      }
      const [before] = await tx.select().from(forms).where(and(eq(forms.id, id), eq(forms.versionId, versionId)));
      if (!before) throw new AppError('NOT_FOUND', { entity: 'form' });
      if (lockVersion !== undefined && lockVersion !== before.lockVersion) {
        const [last] = await tx.execute(sql`select user_name, created_at from audit_events where entity = 'form' and entity_id = ${String(id)} order by id desc limit 1`).then(
          (r) => (r as { rows: { user_name: string; created_at: Date | string }[] }).rows,
        );
        throw new AppError('STALE_WRITE', { user: last?.user_name ?? '?', time: last ? new Date(last.created_at).toISOString() : '?' });
      }
      const [after] = await tx
        .update(forms)
        .set({ code: def.code, name: def.name, nameEn: def.nameEn ?? null, definition, lockVersion: before.lockVersion + 1, updatedAt: new Date() })
        .where(eq(forms.id, id))
        .returning();
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'form.update',
          ...this.base(ctx, 'form', id),
          field: 'definition',
          oldValue: JSON.stringify(before.definition),
          newValue: JSON.stringify(def),
        },
      ]);
      return this.toFormRow(after!);
    });
  }

  async deleteForm(ctx: ProjectScopedContext, id: number) {
    await this.db.transaction(async (tx) => {
      const [f] = await tx.select().from(forms).where(eq(forms.id, id));
      if (!f) throw new AppError('NOT_FOUND', { entity: 'form' });
      await this.editable(tx, ctx, f.versionId);
      await tx.delete(forms).where(eq(forms.id, id));
      await refreshVersionProgress(tx, f.versionId);
      await recordAudit(tx, actorOf(ctx), [
        { action: 'form.delete', ...this.base(ctx, 'form', id), field: 'definition', oldValue: JSON.stringify(f.definition) },
      ]);
    });
  }

  /** A version's whole design as an export file (default: the newest version visible in this environment). */
  async exportDesign(ctx: ProjectScopedContext, versionId: number | undefined): Promise<DesignExportFile> {
    const list = await this.versions(ctx);
    const v = versionId ? list.find((x) => x.id === versionId) : list[0];
    if (!v) throw new AppError('NOT_FOUND', { entity: 'version' });
    await this.db.transaction((tx) =>
      recordAudit(tx, actorOf(ctx), [{ action: 'design.export', ...this.base(ctx, 'version', v.id), newValue: `v${v.versionNo}` }]),
    );
    return this.designFile(v, { no: ctx.project.no, name: ctx.project.name });
  }

  /** A design version as a design file (stages, forms, visits with their forms by code); no access check, no audit. */
  async designFile(v: { id: number; name: string }, project: { no: string; name: string }): Promise<DesignExportFile> {
    const st = await this.db.select().from(stages).where(eq(stages.versionId, v.id)).orderBy(asc(stages.sortOrder), asc(stages.id));
    const fs = await this.db.select().from(forms).where(eq(forms.versionId, v.id)).orderBy(asc(forms.sortOrder), asc(forms.code));
    const vs = await this.visits(this.db, v.id);
    const formCode = new Map(fs.map((f) => [f.id, f.code]));
    const stageName = new Map(st.map((x) => [x.id, x.name]));
    return {
      kind: 'esource.design',
      schemaVersion: 1,
      project,
      version: { name: v.name },
      stages: st.map((x) => ({ name: x.name, sortOrder: x.sortOrder })),
      forms: fs.map((f) => f.definition as unknown as FormDefinition),
      visits: vs.map((x) => ({
        code: x.code,
        name: x.name,
        nameEn: x.nameEn,
        stage: x.stageId ? (stageName.get(x.stageId) ?? null) : null,
        sortOrder: x.sortOrder,
        dayOffset: x.dayOffset,
        windowBefore: x.windowBefore,
        windowAfter: x.windowAfter,
        unscheduled: x.unscheduled,
        forms: x.formIds.map((id) => formCode.get(id)!).filter(Boolean),
      })),
    };
  }

  /** Imports a design file as a new unpublished version of the open project (DEV); `from` says where it came from. */
  async importDesign(ctx: ProjectScopedContext, file: DesignExportFile, name: string | undefined, from?: { source: 'odm'; unmapped: number }): Promise<VersionRow> {
    if (ctx.env !== 'DEV') throw new AppError('ENV_FORBIDDEN', { env: ctx.env });
    const id = await this.db.transaction(async (tx) => {
      const [m] = await tx.select({ n: max(designVersions.versionNo) }).from(designVersions).where(eq(designVersions.projectId, ctx.project.id));
      const [v] = await tx
        .insert(designVersions)
        .values({ projectId: ctx.project.id, versionNo: (m?.n ?? 0) + 1, name: name ?? file.version.name })
        .returning();
      const stageIds = new Map<string, number>();
      for (const st of file.stages) {
        const [row] = await tx.insert(stages).values({ versionId: v!.id, name: st.name, sortOrder: st.sortOrder }).returning();
        stageIds.set(st.name, row!.id);
      }
      const formIds = new Map<string, number>();
      for (const [i, f] of file.forms.entries()) {
        const [row] = await tx
          .insert(forms)
          .values({ versionId: v!.id, code: f.code, name: f.name, nameEn: f.nameEn ?? null, definition: f, sortOrder: i })
          .returning();
        formIds.set(f.code, row!.id);
      }
      for (const x of file.visits) {
        const [row] = await tx
          .insert(visits)
          .values({
            versionId: v!.id,
            stageId: x.stage ? (stageIds.get(x.stage) ?? null) : null,
            code: x.code,
            name: x.name,
            nameEn: x.nameEn?.trim() || null,
            sortOrder: x.sortOrder,
            dayOffset: x.dayOffset,
            windowBefore: x.windowBefore,
            windowAfter: x.windowAfter,
            unscheduled: x.unscheduled,
          })
          .returning();
        if (x.forms.length) await tx.insert(visitForms).values(x.forms.map((c, i) => ({ visitId: row!.id, formId: formIds.get(c)!, sortOrder: i })));
      }
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'design.import',
          ...this.base(ctx, 'version', v!.id),
          newValue: `v${v!.versionNo}: ${file.forms.length} forms, ${file.visits.length} visits${from ? ` (CDISC ODM; ${from.unmapped} parts not mapped)` : ''}`,
          oldValue: file.project ? file.project.no : null,
        },
      ]);
      return v!.id;
    });
    return (await this.versions(ctx)).find((x) => x.id === id)!;
  }

  /** The version in force in the request's environment: the newest published to it (DEV: the newest version). */
  private async enabledVersion(ctx: ProjectScopedContext): Promise<VersionRow | null> {
    const list = await this.versions(ctx);
    return (ctx.env === 'DEV' ? list[0] : list.find((x) => x.publishedEnvs.includes(ctx.env))) ?? null;
  }

  /** Forms of the version in force (POST /crf/form/listByEnabledVersionAndStage), of one stage's visits when named. */
  async enabledForms(ctx: ProjectScopedContext, stageId: number | undefined): Promise<{ version: VersionRow | null; forms: FormRow[] }> {
    const v = await this.enabledVersion(ctx);
    if (!v) return { version: null, forms: [] };
    const all = await this.formsOf(ctx, v.id);
    if (!stageId) return { version: v, forms: all };
    const [stage] = await this.db.select().from(stages).where(and(eq(stages.id, stageId), eq(stages.versionId, v.id)));
    if (!stage) throw new AppError('NOT_FOUND', { entity: 'stage' });
    const used = new Set((await this.visits(this.db, v.id)).filter((x) => x.stageId === stageId).flatMap((x) => x.formIds));
    return { version: v, forms: all.filter((f) => used.has(f.id)) };
  }

  /**
   * The master of a form (POST /crf/form/checkHaveMaster): the form with the same code in the newest version
   * published to UAT or PRO other than the form's own — what subjects' data follow while this one is edited.
   */
  async formMaster(ctx: ProjectScopedContext, formId: number) {
    const f = await this.form(ctx, formId);
    const published = (await this.versions(ctx)).filter((x) => x.id !== f.versionId && x.publishedEnvs.length > 0);
    for (const v of published) {
      const [m] = await this.db.select({ id: forms.id }).from(forms).where(and(eq(forms.versionId, v.id), eq(forms.code, f.code)));
      if (m) return { hasMaster: true, master: { formId: m.id, versionId: v.id, versionNo: v.versionNo, versionName: v.name, publishedEnvs: v.publishedEnvs } };
    }
    return { hasMaster: false, master: null };
  }

  /** A form's items in order, those inside tables too (GET /crf/form/item/list). */
  async formItems(ctx: ProjectScopedContext, formId: number): Promise<FormItemRow[]> {
    const f = await this.form(ctx, formId);
    return formFieldsInTables(f.definition.components).map(({ field: c, table }) => ({
      variable: c.variable,
      type: c.type,
      label: c.label,
      labelEn: c.labelEn ?? null,
      unit: c.unit ?? null,
      required: c.required ?? false,
      hidden: c.hidden ?? false,
      table: table?.label || null,
      options: (c.options ?? []).map((o) => ({ value: o.value, label: o.label, labelEn: o.labelEn ?? null })),
    }));
  }

  /**
   * Changes several items of a form at once (POST /crf/form/item/saveBatch): texts, unit and flags; an unknown
   * variable is refused naming it. Saved through saveForm: the version must be editable, the lockVersion current,
   * and the whole definition passes the form rules again; one audited change.
   */
  async saveFormItems(ctx: ProjectScopedContext, formId: number, lockVersion: number, patches: FormItemPatch[]): Promise<FormRow> {
    const f = await this.form(ctx, formId);
    const byVar = new Map<string, FormItemPatch>();
    for (const p of patches) {
      if (byVar.has(p.variable)) throw new AppError('DUPLICATE', { field: 'items.variable', value: p.variable });
      byVar.set(p.variable, p);
    }
    const known = new Set(formFields(f.definition.components).map((c) => c.variable));
    const unknown = patches.find((p) => !known.has(p.variable));
    if (unknown) throw fieldError(ctx.language, `items.${patches.indexOf(unknown)}.variable (${unknown.variable})`, 'validation.unknownItem');
    const patch = (c: FieldComponent): FieldComponent => {
      const p = byVar.get(c.variable);
      if (!p) return c;
      const { variable: _v, ...rest } = p;
      const next = { ...c };
      for (const [k, v] of Object.entries(rest)) if (v !== undefined) (next as Record<string, unknown>)[k] = v;
      // an empty English label or unit means none
      if (next.labelEn === '') delete next.labelEn;
      if (next.unit === '') delete next.unit;
      return next;
    };
    const def: FormDefinition = {
      ...f.definition,
      components: f.definition.components.map((c) =>
        c.type === 'table' ? { ...c, cells: c.cells.map((cell) => (cell.component ? { ...cell, component: patch(cell.component) } : cell)) } : patch(c),
      ),
    };
    // the whole form passes the form rules again (e.g. a label made empty), named by field in the caller's language
    return this.saveForm(ctx, f.versionId, f.id, lockVersion, parseInput(formDefinition, def, ctx.language, 'definition'));
  }

  /** Visits of the newest version published to the request's environment (DEV: the newest version). */
  async enabledVersionVisits(ctx: ProjectScopedContext): Promise<{ version: VersionRow | null; visits: VisitRow[] }> {
    const list = await this.versions(ctx);
    const v = ctx.env === 'DEV' ? list[0] : list.find((x) => x.publishedEnvs.includes(ctx.env));
    if (!v) return { version: null, visits: [] };
    return { version: v, visits: await this.visits(this.db, v.id) };
  }
}

/** Copies stages, visits, forms and their assignments from one version to another. */
export async function copyDesign(tx: Tx, fromId: number, toId: number) {
  const stageMap = new Map<number, number>();
  for (const s of await tx.select().from(stages).where(eq(stages.versionId, fromId))) {
    const [n] = await tx.insert(stages).values({ versionId: toId, name: s.name, sortOrder: s.sortOrder }).returning({ id: stages.id });
    stageMap.set(s.id, n!.id);
  }
  const formMap = new Map<number, number>();
  for (const f of await tx.select().from(forms).where(eq(forms.versionId, fromId))) {
    const [n] = await tx
      .insert(forms)
      .values({ versionId: toId, code: f.code, name: f.name, nameEn: f.nameEn, definition: f.definition, sortOrder: f.sortOrder })
      .returning({ id: forms.id });
    formMap.set(f.id, n!.id);
  }
  for (const v of await tx.select().from(visits).where(eq(visits.versionId, fromId))) {
    const { id: oldId, versionId: _v, stageId, ...rest } = v;
    const [n] = await tx
      .insert(visits)
      .values({ ...rest, versionId: toId, stageId: stageId ? (stageMap.get(stageId) ?? null) : null })
      .returning({ id: visits.id });
    const links = await tx.select().from(visitForms).where(eq(visitForms.visitId, oldId));
    if (links.length)
      await tx.insert(visitForms).values(links.map((l) => ({ visitId: n!.id, formId: formMap.get(l.formId)!, sortOrder: l.sortOrder })));
  }
}

