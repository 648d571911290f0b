/**
 * SDV and SDR (issue 13 item 1, /project/verification). A monitor marks the items of completed forms as
 * source-verified (SDV, verification:sdv:check) — one form, or every form of a visit at once — and forms as
 * source-reviewed (SDR, verification:sdr:check); marks are removed with a reason; a value that changes afterwards loses
 * its mark (marks-lost.ts, from the eCRF save). The list shows each completed form's progress; a site's risk level
 * (research:page:update) selects the share of its forms that need SDV, reproducibly per form (SDV_SHARE). Every step
 * audited; a caller reaches its sites' live subjects only.
 */
import { and, eq, inArray, isNull, ne, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import {
  CRF_STATUS,
  MARK_STATUS,
  SDV_SHARE,
  type MarkView,
  type VerificationPage,
  type markDeleteRequest,
  type markSaveRequest,
  type verificationPageRequest,
} from '@esource/shared';
import type { Db } from '../../db/client';
import { crfInstances, crfValues, forms, sites, subjects, users, verificationMarks, visits } from '../../db/schema';
import type { ProjectScopedContext } from '../../lib/context';
import { AppError } from '../../lib/errors';
import { offsetOf } from '../../lib/page';
import { reachesSite } from '../../lib/site-scope';
import { likeOf } from '../../lib/sql';
import { fieldError } from '../../lib/validate';
import { actorOf, recordAudit } from '../audit/audit.service';
import { SubjectsService } from '../subjects/subjects.service';

/** Whether a form is selected for SDV by its site's risk level: the same answer for the same form, always. */
const requiredSql = (instanceId: unknown, riskLevel: unknown) =>
  sql`((abs(hashtext('sdv:' || ${instanceId}::text)) % 100) < (case ${riskLevel} when 1 then ${sql.raw(String(SDV_SHARE[1]))} when 2 then ${sql.raw(String(SDV_SHARE[2]))} else ${sql.raw(String(SDV_SHARE[3]))} end))`;

/** An item counts when it holds a value (not null, not empty text, not an empty list). */
const hasValue = sql`(${crfValues.value} -> 'v') is not null and jsonb_typeof(${crfValues.value} -> 'v') <> 'null' and (${crfValues.value} ->> 'v') <> '' and (${crfValues.value} -> 'v') <> '[]'::jsonb`;

export class VerificationService {
  private readonly subjects: SubjectsService;
  constructor(private readonly db: Db) {
    this.subjects = new SubjectsService(db);
  }

  /** Completed or certified forms of the caller's live subjects. The query must join subjects. */
  private formScope(ctx: ProjectScopedContext): SQL {
    return and(this.subjects.scope(ctx), ne(subjects.status, 0), isNull(crfInstances.deletedAt), eq(crfInstances.projectId, ctx.project.id), eq(crfInstances.env, ctx.env))!;
  }

  async saveMarks(ctx: ProjectScopedContext, input: z.output<typeof markSaveRequest>) {
    if (!ctx.pms.has(input.kind === 'sdv' ? 'verification:sdv:check' : 'verification:sdr:check')) throw new AppError('FORBIDDEN');
    const ids = [...new Set(input.instanceIds)];
    return this.db.transaction(async (tx) => {
      const found = await tx
        .select({ i: crfInstances, formName: forms.name, formNameEn: forms.nameEn })
        .from(crfInstances)
        .innerJoin(subjects, eq(subjects.id, crfInstances.subjectId))
        .innerJoin(forms, eq(forms.id, crfInstances.formId))
        .where(and(inArray(crfInstances.id, ids), this.formScope(ctx)));
      if (found.length !== ids.length) throw new AppError('NOT_FOUND', { entity: 'form' });
      const draft = found.find((r) => r.i.status < CRF_STATUS.completed);
      if (draft) throw new AppError('VERIFY_NOT_COMPLETED', { form: ctx.language === 'en_US' && draft.formNameEn ? draft.formNameEn : draft.formName });
      const rows: (typeof verificationMarks.$inferInsert)[] = [];
      if (input.kind === 'sdr') {
        for (const { i } of found) rows.push({ env: i.env, projectId: i.projectId, siteId: i.siteId, subjectId: i.subjectId, instanceId: i.id, kind: 'sdr', markedBy: ctx.user.id });
      } else {
        const values = await tx
          .select({ instanceId: crfValues.instanceId, variable: crfValues.variable, value: crfValues.value })
          .from(crfValues)
          .where(and(inArray(crfValues.instanceId, ids), hasValue));
        if (input.variables) {
          const have = new Set(values.map((v) => v.variable));
          const i = input.variables.findIndex((v) => !have.has(v));
          if (i >= 0) throw fieldError(ctx.language, `variables.${i}`, 'verification.noValue', { item: input.variables[i] });
        }
        const wanted = input.variables ? new Set(input.variables) : null;
        const byId = new Map(found.map((r) => [r.i.id, r.i]));
        for (const v of values) {
          if (wanted && !wanted.has(v.variable)) continue;
          const i = byId.get(v.instanceId)!;
          rows.push({ env: i.env, projectId: i.projectId, siteId: i.siteId, subjectId: i.subjectId, instanceId: i.id, variable: v.variable, kind: 'sdv', value: v.value, markedBy: ctx.user.id });
        }
      }
      // an item already verified keeps its mark (the partial unique index: one active mark per item and kind)
      const inserted = rows.length ? await tx.insert(verificationMarks).values(rows).onConflictDoNothing().returning({ id: verificationMarks.id, instanceId: verificationMarks.instanceId }) : [];
      const perForm = new Map<number, number>();
      for (const m of inserted) perForm.set(m.instanceId, (perForm.get(m.instanceId) ?? 0) + 1);
      await recordAudit(
        tx,
        actorOf(ctx),
        found
          .filter((r) => perForm.has(r.i.id))
          .map((r) => ({ action: `verification.${input.kind}`, entity: 'crfInstance', entityId: r.i.id, projectId: r.i.projectId, siteId: r.i.siteId, subjectId: r.i.subjectId, newValue: { marked: perForm.get(r.i.id) } })),
      );
      return { marked: inserted.length, already: rows.length - inserted.length };
    });
  }

  async deleteMarks(ctx: ProjectScopedContext, input: z.output<typeof markDeleteRequest>): Promise<{ removed: number }> {
    const ids = [...new Set(input.ids)];
    return this.db.transaction(async (tx) => {
      const found = await tx
        .select({ m: verificationMarks })
        .from(verificationMarks)
        .innerJoin(subjects, eq(subjects.id, verificationMarks.subjectId))
        .where(and(inArray(verificationMarks.id, ids), eq(verificationMarks.projectId, ctx.project.id), eq(verificationMarks.env, ctx.env), this.subjects.scope(ctx), ne(subjects.status, 0)));
      if (found.length !== ids.length) throw new AppError('NOT_FOUND', { entity: 'verificationMark' });
      for (const { m } of found) {
        if (!ctx.pms.has(m.kind === 'sdv' ? 'verification:sdv:check' : 'verification:sdr:check')) throw new AppError('FORBIDDEN');
        if (m.status !== MARK_STATUS.active) throw new AppError('VERIFY_MARK_ENDED');
      }
      const done = await tx
        .update(verificationMarks)
        .set({ status: MARK_STATUS.removed, reason: input.reason, endedBy: ctx.user.id, endedAt: new Date() })
        .where(and(inArray(verificationMarks.id, ids), eq(verificationMarks.status, MARK_STATUS.active)))
        .returning({ id: verificationMarks.id });
      if (done.length !== ids.length) throw new AppError('VERIFY_MARK_ENDED');
      await recordAudit(
        tx,
        actorOf(ctx),
        found.map(({ m }) => ({ action: 'verification.remove', entity: 'verificationMark', entityId: m.id, projectId: m.projectId, siteId: m.siteId, subjectId: m.subjectId, field: m.variable, oldValue: m.kind, reason: input.reason })),
      );
      return { removed: done.length };
    });
  }

  /** A form's marks: the active ones, and the lost ones of items not verified again since. */
  async marks(ctx: ProjectScopedContext, instanceId: number): Promise<MarkView[]> {
    const [inst] = await this.db
      .select({ id: crfInstances.id })
      .from(crfInstances)
      .innerJoin(subjects, eq(subjects.id, crfInstances.subjectId))
      .where(and(eq(crfInstances.id, instanceId), this.formScope(ctx)));
    if (!inst) throw new AppError('NOT_FOUND', { entity: 'form' });
    const rows = await this.db
      .select({ m: verificationMarks, by: users.name })
      .from(verificationMarks)
      .leftJoin(users, eq(users.id, verificationMarks.markedBy))
      .where(and(eq(verificationMarks.instanceId, instanceId), inArray(verificationMarks.status, [MARK_STATUS.active, MARK_STATUS.lost])))
      .orderBy(verificationMarks.id);
    const active = new Set(rows.filter((r) => r.m.status === MARK_STATUS.active).map((r) => `${r.m.kind}:${r.m.variable ?? ''}`));
    const lastLost = new Map<string, (typeof rows)[number]>();
    for (const r of rows) if (r.m.status === MARK_STATUS.lost) lastLost.set(`${r.m.kind}:${r.m.variable ?? ''}`, r);
    const shown = [...rows.filter((r) => r.m.status === MARK_STATUS.active), ...[...lastLost.entries()].filter(([k]) => !active.has(k)).map(([, r]) => r)];
    return shown.map(({ m, by }) => ({
      id: m.id,
      instanceId: m.instanceId,
      variable: m.variable,
      kind: m.kind,
      status: m.status,
      value: m.value?.v ?? null,
      reason: m.reason,
      markedBy: by,
      markTime: m.markedAt.toISOString(),
      endTime: m.endedAt?.toISOString() ?? null,
    }));
  }

  async page(ctx: ProjectScopedContext, q: z.output<typeof verificationPageRequest>): Promise<VerificationPage> {
    const activeSdv = sql`(select count(*) from ${verificationMarks} vm where vm.instance_id = ${crfInstances.id} and vm.kind = 'sdv' and vm.status = ${MARK_STATUS.active})`;
    const items = sql`(select count(*) from ${crfValues} where ${crfValues.instanceId} = ${crfInstances.id} and ${hasValue})`;
    const lost = sql`(select count(distinct vm.variable) from ${verificationMarks} vm where vm.instance_id = ${crfInstances.id} and vm.kind = 'sdv' and vm.status = ${MARK_STATUS.lost}
      and not exists (select 1 from ${verificationMarks} va where va.instance_id = vm.instance_id and va.variable = vm.variable and va.kind = 'sdv' and va.status = ${MARK_STATUS.active}))`;
    const reviewed = sql`exists (select 1 from ${verificationMarks} vm where vm.instance_id = ${crfInstances.id} and vm.kind = 'sdr' and vm.status = ${MARK_STATUS.active})`;
    // selected by the site's risk level, or already being verified (a monitor started it: its lost marks must show)
    const required = sql`(${requiredSql(crfInstances.id, sites.riskLevel)} or exists (select 1 from ${verificationMarks} vm where vm.instance_id = ${crfInstances.id} and vm.kind = 'sdv' and vm.status in (${sql.raw(String(MARK_STATUS.active))}, ${sql.raw(String(MARK_STATUS.lost))})))`;
    const where = and(
      this.formScope(ctx),
      sql`${crfInstances.status} >= ${CRF_STATUS.completed}`,
      q.siteId !== undefined ? eq(crfInstances.siteId, q.siteId) : undefined,
      q.ptsNo ? sql`${subjects.ptsNo} ilike ${likeOf(q.ptsNo)}` : undefined,
      q.visitId !== undefined ? eq(crfInstances.visitId, q.visitId) : undefined,
      q.requiredOnly ? required : undefined,
    );
    const base = this.db
      .select({
        instanceId: sql<number>`${crfInstances.id}`.as('instance_id'),
        ptsId: sql<number>`${subjects.id}`.as('pts_id'),
        ptsNo: sql<string>`${subjects.ptsNo}`.as('pts_no'),
        designVersionId: sql<number | null>`${subjects.designVersionId}`.as('design_version_id'),
        siteId: sql<number>`${sites.id}`.as('site_id'),
        siteName: sql<string>`${sites.name}`.as('site_name'),
        riskLevel: sql<number>`${sites.riskLevel}`.as('risk_level'),
        visitId: sql<number>`${visits.id}`.as('visit_id'),
        visitName: sql<string>`${ctx.language === 'en_US' ? sql`coalesce(${visits.nameEn}, ${visits.name})` : visits.name}`.as('visit_name'),
        visitOrder: sql<number>`${visits.sortOrder}`.as('visit_order'),
        formId: sql<number>`${forms.id}`.as('form_id'),
        formName: sql<string>`${ctx.language === 'en_US' ? sql`coalesce(${forms.nameEn}, ${forms.name})` : forms.name}`.as('form_name'),
        unscheduledId: sql<number>`${crfInstances.unscheduledId}`.as('unscheduled_id'),
        repeatNo: sql<number>`${crfInstances.repeatNo}`.as('repeat_no'),
        required: sql<boolean>`${required}`.as('required'),
        // counts are bigint: text from the PostgreSQL driver, numbers from the embedded one
        items: sql<string | number>`${items}`.as('items'),
        verified: sql<string | number>`${activeSdv}`.as('verified'),
        lost: sql<string | number>`${lost}`.as('lost'),
        reviewed: sql<boolean>`${reviewed}`.as('reviewed'),
        updatedAt: sql<Date>`${crfInstances.updatedAt}`.as('updated_at'),
      })
      .from(crfInstances)
      .innerJoin(subjects, eq(subjects.id, crfInstances.subjectId))
      .innerJoin(sites, eq(sites.id, crfInstances.siteId))
      .innerJoin(visits, eq(visits.id, crfInstances.visitId))
      .innerJoin(forms, eq(forms.id, crfInstances.formId))
      .where(where)
      .as('f');
    const stateWhere = q.state === 'remaining' ? sql`(${base.verified} < ${base.items} or ${base.lost} > 0)` : q.state === 'done' ? sql`${base.verified} >= ${base.items}` : undefined;
    const [sum] = await this.db
      .select({
        forms: sql<number>`count(*)`.mapWith(Number),
        done: sql<number>`count(*) filter (where ${base.verified} >= ${base.items})`.mapWith(Number),
        items: sql<number>`coalesce(sum(${base.items}), 0)`.mapWith(Number),
        verified: sql<number>`coalesce(sum(${base.verified}), 0)`.mapWith(Number),
      })
      .from(base)
      .where(stateWhere);
    const rows = await this.db
      .select()
      .from(base)
      .where(stateWhere)
      .orderBy(base.ptsNo, base.visitOrder, base.unscheduledId, base.formName, base.repeatNo)
      .limit(q.pageSize)
      .offset(offsetOf(q));
    return {
      pageNumber: q.pageNumber,
      pageSize: q.pageSize,
      totalCount: sum?.forms ?? 0,
      summary: { forms: sum?.forms ?? 0, done: sum?.done ?? 0, items: sum?.items ?? 0, verified: sum?.verified ?? 0 },
      content: rows.map((r) => ({
        instanceId: r.instanceId,
        ptsId: r.ptsId,
        ptsNo: r.ptsNo,
        designVersionId: r.designVersionId,
        siteId: r.siteId,
        siteName: r.siteName,
        riskLevel: r.riskLevel,
        visitId: r.visitId,
        visitName: r.visitName,
        formId: r.formId,
        formName: r.formName,
        unscheduledId: r.unscheduledId,
        repeatNo: r.repeatNo,
        required: r.required,
        items: Number(r.items),
        verified: Number(r.verified),
        lost: Number(r.lost),
        reviewed: r.reviewed,
        updateTime: new Date(r.updatedAt).toISOString(),
      })),
    };
  }

  /** A site's risk level (research:page:update). */
  async setRisk(ctx: ProjectScopedContext, siteId: number, riskLevel: number): Promise<void> {
    if (!reachesSite(siteId, ctx)) throw new AppError('SITE_FORBIDDEN');
    await this.db.transaction(async (tx) => {
      const [before] = await tx.select().from(sites).where(and(eq(sites.id, siteId), eq(sites.projectId, ctx.project.id), eq(sites.env, ctx.env)));
      if (!before) throw new AppError('NOT_FOUND', { entity: 'site' });
      if (before.riskLevel === riskLevel) return;
      await tx.update(sites).set({ riskLevel, updatedAt: new Date() }).where(eq(sites.id, siteId));
      await recordAudit(tx, actorOf(ctx), [{ action: 'verification.risk', entity: 'site', entityId: siteId, projectId: ctx.project.id, siteId, field: 'riskLevel', oldValue: before.riskLevel, newValue: riskLevel }]);
    });
  }
}
