/**
 * SDV and SDR (issue 13 item 1, /project/verification). A monitor marks the items of completed forms as
 * source-verified (SDV, verification:sdv:check) — one form, or every form of a visit at once — and forms as
 * source-reviewed (SDR, verification:sdr:check); marks are removed with a reason; a value that changes afterwards loses
 * its mark (marks-lost.ts, from the eCRF save). The list shows each completed form's progress; a site's risk level
 * (research:page:update) selects the share of its forms that need SDV, reproducibly per form (SDV_SHARE), and a
 * subject's own level, when set, overrides its site's for that subject's forms. Every step audited; a caller reaches
 * its sites' live subjects only.
 */
import { and, eq, inArray, isNotNull, isNull, ne, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import {
  CRF_STATUS,
  MARK_STATUS,
  SDV_SHARE,
  SUBJECT_RISK_LIST_MAX,
  type MarkView,
  type SubjectRiskRow,
  type VerificationPage,
  type markDeleteRequest,
  type markSaveRequest,
  type subjectRiskRequest,
  type verificationPageRequest,
} from '@esource/shared';
import type { Db } from '../../db/client';
import { crfInstances, crfValues, forms, sites, subjects, users, verificationCounts, verificationMarks, verificationProgress, visits } from '../../db/schema';
import type { ProjectScopedContext } from '../../lib/context';
import { AppError } from '../../lib/errors';
import { offsetOf } from '../../lib/page';
import { reachesSite, siteScope } from '../../lib/site-scope';
import { likeOf, rowsOf } from '../../lib/sql';
import { fieldError } from '../../lib/validate';
import { actorOf, recordAudit } from '../audit/audit.service';
import { SubjectsService } from '../subjects/subjects.service';

/** The share (%) of forms a risk level selects for SDV. */
const shareSql = (riskLevel: unknown) =>
  sql`(case ${riskLevel} when 1 then ${sql.raw(String(SDV_SHARE[1]))} when 2 then ${sql.raw(String(SDV_SHARE[2]))} else ${sql.raw(String(SDV_SHARE[3]))} end)`;

/**
 * Whether a form is selected for SDV by its risk level: the same answer for the same form and level, always. The
 * form's bucket, abs(hashtext('sdv:' || id)) % 100, is kept in verification_progress.bucket (migration 0029).
 */
const requiredSql = (bucket: unknown, riskLevel: unknown) => sql`(${bucket} < ${shareSql(riskLevel)})`;

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

  /**
   * The SDV list: one page of completed forms in subject, visit and form order, with their progress, and the totals
   * of the filter. Progress comes from verification_progress (kept by triggers) instead of per-row sub-selects; the
   * totals are summed from verification_counts (a few hundred counter rows) unless the subject-number filter is
   * used, which only the rows can answer. The page rides along with the totals: one statement.
   */
  async page(ctx: ProjectScopedContext, q: z.output<typeof verificationPageRequest>): Promise<VerificationPage> {
    const p = verificationProgress;
    // the form's site, visit and form are looked up per row (sub-selects on primary keys) rather than joined: with six
    // tables joined, planning the statement took longer (≈ 2 ms) than running it
    const siteRisk = sql`(select ${sites.riskLevel} from ${sites} where ${sites.id} = ${crfInstances.siteId})`;
    const effectiveRisk = sql`coalesce(${subjects.riskLevel}, ${siteRisk})`;
    // selected by the effective risk level (the subject's own, else the site's), or already being verified (a monitor
    // started it: its lost marks must show)
    const required = sql`(${requiredSql(p.bucket, effectiveRisk)} or ${p.marked})`;
    const stateWhere = q.state === 'remaining' ? sql`(${p.verified} < ${p.items} or ${p.lost} > 0)` : q.state === 'done' ? sql`${p.verified} >= ${p.items}` : undefined;
    const where = and(
      this.formScope(ctx),
      sql`${crfInstances.status} >= ${CRF_STATUS.completed}`,
      q.siteId !== undefined ? eq(crfInstances.siteId, q.siteId) : undefined,
      q.ptsNo ? sql`${subjects.ptsNo} ilike ${likeOf(q.ptsNo)}` : undefined,
      q.visitId !== undefined ? eq(crfInstances.visitId, q.visitId) : undefined,
      q.requiredOnly ? required : undefined,
      stateWhere,
    );
    const visitName = sql`(select ${ctx.language === 'en_US' ? sql`coalesce(${visits.nameEn}, ${visits.name})` : visits.name} from ${visits} where ${visits.id} = ${crfInstances.visitId})`;
    const visitOrder = sql`(select ${visits.sortOrder} from ${visits} where ${visits.id} = ${crfInstances.visitId})`;
    const formName = sql`(select ${ctx.language === 'en_US' ? sql`coalesce(${forms.nameEn}, ${forms.name})` : forms.name} from ${forms} where ${forms.id} = ${crfInstances.formId})`;
    type Summary = { forms: number | string; done: number | string; items: number | string; verified: number | string };
    let summary: SQL;
    if (q.ptsNo) {
      summary = sql`(select json_build_object('forms', count(*), 'done', count(*) filter (where ${p.verified} >= ${p.items}), 'items', coalesce(sum(${p.items}), 0), 'verified', coalesce(sum(${p.verified}), 0))
        from ${crfInstances} inner join ${p} on ${p.instanceId} = ${crfInstances.id} inner join ${subjects} on ${subjects.id} = ${crfInstances.subjectId} where ${where})`;
    } else {
      const c = verificationCounts;
      const counted = and(
        eq(c.projectId, ctx.project.id),
        eq(c.env, ctx.env),
        siteScope(c.scopeSiteId, ctx),
        q.siteId !== undefined ? eq(c.siteId, q.siteId) : undefined,
        q.visitId !== undefined ? eq(c.visitId, q.visitId) : undefined,
        q.requiredOnly ? sql`(${requiredSql(c.bucket, sql`coalesce(nullif(${c.subjectRisk}, 0), cs.risk_level)`)} or ${c.marked})` : undefined,
        q.state === 'remaining' ? sql`(not ${c.done} or ${c.lost})` : q.state === 'done' ? sql`${c.done}` : undefined,
      );
      summary = sql`(select json_build_object('forms', coalesce(sum(${c.forms}), 0), 'done', coalesce(sum(${c.forms}) filter (where ${c.done}), 0), 'items', coalesce(sum(${c.items}), 0), 'verified', coalesce(sum(${c.verified}), 0))
        from ${c} inner join ${sites} cs on cs.id = ${c.siteId} where ${counted})`;
    }
    const rows = await this.db
      .select({
        instanceId: crfInstances.id,
        ptsId: subjects.id,
        ptsNo: subjects.ptsNo,
        designVersionId: subjects.designVersionId,
        siteId: crfInstances.siteId,
        siteName: sql<string>`(select ${sites.name} from ${sites} where ${sites.id} = ${crfInstances.siteId})`,
        riskLevel: sql<number>`${effectiveRisk}`,
        subjectRiskLevel: subjects.riskLevel,
        visitId: crfInstances.visitId,
        visitName: sql<string>`${visitName}`,
        formId: crfInstances.formId,
        formName: sql<string>`${formName}`,
        unscheduledId: crfInstances.unscheduledId,
        repeatNo: crfInstances.repeatNo,
        required: sql<boolean>`${required}`,
        items: p.items,
        verified: p.verified,
        lost: p.lost,
        reviewed: p.reviewed,
        updatedAt: crfInstances.updatedAt,
        summary: sql<Summary | string>`${summary}`,
      })
      .from(crfInstances)
      .innerJoin(p, eq(p.instanceId, crfInstances.id))
      .innerJoin(subjects, eq(subjects.id, crfInstances.subjectId))
      .where(where)
      .orderBy(subjects.ptsNo, visitOrder, crfInstances.unscheduledId, formName, crfInstances.repeatNo)
      .limit(q.pageSize)
      .offset(offsetOf(q));
    // an empty page (past the end, or nothing to show) still has its totals
    const raw = rows.length ? rows[0]!.summary : rowsOf<{ summary: Summary | string }>(await this.db.execute(sql`select ${summary} as summary`))[0]?.summary;
    const sum = typeof raw === 'string' ? (JSON.parse(raw) as Summary) : raw;
    const n = (v: number | string | undefined) => Number(v ?? 0);
    return {
      pageNumber: q.pageNumber,
      pageSize: q.pageSize,
      totalCount: n(sum?.forms),
      summary: { forms: n(sum?.forms), done: n(sum?.done), items: n(sum?.items), verified: n(sum?.verified) },
      content: rows.map((r) => ({
        instanceId: r.instanceId,
        ptsId: r.ptsId,
        ptsNo: r.ptsNo,
        designVersionId: r.designVersionId,
        siteId: r.siteId,
        siteName: r.siteName,
        riskLevel: r.riskLevel,
        subjectRiskLevel: r.subjectRiskLevel,
        visitId: r.visitId,
        visitName: r.visitName,
        formId: r.formId,
        formName: r.formName,
        unscheduledId: r.unscheduledId,
        repeatNo: r.repeatNo,
        required: r.required,
        items: r.items,
        verified: r.verified,
        lost: r.lost,
        reviewed: r.reviewed,
        updateTime: r.updatedAt.toISOString(),
      })),
    };
  }

  /**
   * A subject's own risk level (research:page:update, as for sites), or null to inherit its site's again: a live
   * subject of the caller's sites; audited with the old and new level and the reason, if any.
   */
  async setSubjectRisk(ctx: ProjectScopedContext, input: z.output<typeof subjectRiskRequest>): Promise<void> {
    await this.db.transaction(async (tx) => {
      const [before] = await tx
        .select({ id: subjects.id, siteId: subjects.siteId, riskLevel: subjects.riskLevel })
        .from(subjects)
        .where(and(eq(subjects.id, input.ptsId), this.subjects.scope(ctx), ne(subjects.status, 0)))
        .for('update');
      if (!before) throw new AppError('NOT_FOUND', { entity: 'subject' });
      if (before.riskLevel === input.riskLevel) return;
      await tx.update(subjects).set({ riskLevel: input.riskLevel, updatedAt: new Date() }).where(eq(subjects.id, before.id));
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'verification.subjectRisk',
          entity: 'subject',
          entityId: before.id,
          projectId: ctx.project.id,
          siteId: before.siteId,
          subjectId: before.id,
          field: 'riskLevel',
          oldValue: before.riskLevel,
          newValue: input.riskLevel,
          reason: input.reason ?? null,
        },
      ]);
    });
  }

  /** The caller's live subjects with a risk level of their own (the risk drawer), by subject number, capped. */
  async subjectRisks(ctx: ProjectScopedContext): Promise<SubjectRiskRow[]> {
    return this.db
      .select({ ptsId: subjects.id, ptsNo: subjects.ptsNo, designVersionId: subjects.designVersionId, siteId: sites.id, siteName: sites.name, siteRiskLevel: sites.riskLevel, riskLevel: sql<number>`${subjects.riskLevel}` })
      .from(subjects)
      .innerJoin(sites, eq(sites.id, subjects.siteId))
      .where(and(this.subjects.scope(ctx), ne(subjects.status, 0), isNotNull(subjects.riskLevel)))
      .orderBy(subjects.ptsNo)
      .limit(SUBJECT_RISK_LIST_MAX);
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
