/**
 * Traceability (/project/icrc-source): every pre-filled value → the source record version it came from, flagged
 * when the hospital changed the record since; the pre-fill decisions log (/audit/log/preFillCrfQuery); and the
 * pre-fill schedule config (/crf/prefill/schedule/config/*).
 */
import { and, count, desc, eq, like, sql, type SQL } from 'drizzle-orm';
import ExcelJS from 'exceljs';
import type { z } from 'zod';
import { formFields, parseSourceRef, type FormDefinition, type PrefillScheduleView, type TraceabilityRow, type prefillLogRequest, type prefillScheduleSave, type traceabilityRequest } from '@esource/shared';
import type { Db } from '../../db/client';
import { crfInstances, crfValues, forms, prefillDecisions, prefillSchedules, sites, sourceRecords, subjects, users, visits } from '../../db/schema';
import { staleWrite } from '../../lib/stale';
import type { ProjectScopedContext } from '../../lib/context';
import { translator } from '../../lib/i18n';
import { offsetOf, pageOf } from '../../lib/page';
import { safeRow } from '../../lib/excel';
import { actorOf, recordAudit } from '../audit/audit.service';
import { SubjectsService } from '../subjects/subjects.service';

type TraceQuery = z.output<typeof traceabilityRequest>;

export class TraceService {
  private readonly subjects: SubjectsService;
  constructor(private readonly db: Db) {
    this.subjects = new SubjectsService(db);
  }

  private traceWhere(ctx: ProjectScopedContext, q: Omit<TraceQuery, 'pageNumber' | 'pageSize'>): SQL {
    return and(
      this.subjects.scope(ctx),
      sql`${crfInstances.deletedAt} is null`,
      like(crfValues.sourceRef, 'source:%'),
      q.ptsId ? eq(subjects.id, q.ptsId) : undefined,
      q.visitId ? eq(crfInstances.visitId, q.visitId) : undefined,
      q.formId ? eq(crfInstances.formId, q.formId) : undefined,
    )!;
  }

  private base(where: SQL) {
    return this.db
      .select({
        v: crfValues,
        i: crfInstances,
        ptsNo: subjects.ptsNo,
        siteName: sites.name,
        visitName: visits.name,
        formName: forms.name,
        definition: forms.definition,
        userName: users.name,
        rec: {
          id: sourceRecords.id,
          version: sourceRecords.version,
          docType: sourceRecords.docType,
          resourceType: sourceRecords.resourceType,
          code: sourceRecords.code,
          display: sourceRecords.display,
          effectiveDate: sourceRecords.effectiveDate,
        },
      })
      .from(crfValues)
      .innerJoin(crfInstances, eq(crfInstances.id, crfValues.instanceId))
      .innerJoin(subjects, eq(subjects.id, crfInstances.subjectId))
      .innerJoin(sites, eq(sites.id, subjects.siteId))
      .innerJoin(visits, eq(visits.id, crfInstances.visitId))
      .innerJoin(forms, eq(forms.id, crfInstances.formId))
      .leftJoin(users, eq(users.id, crfValues.updatedBy))
      .leftJoin(sourceRecords, sql`${sourceRecords.id} = (substring(${crfValues.sourceRef} from '^source:([0-9]+):v'))::bigint`)
      .where(where);
  }

  private rowOf(r: Awaited<ReturnType<TraceService['base']>>[number]): TraceabilityRow {
    const ref = parseSourceRef(r.v.sourceRef);
    const field = formFields((r.definition as unknown as FormDefinition).components ?? []).find((f) => f.variable === r.v.variable);
    return {
      ptsId: r.i.subjectId,
      ptsNo: r.ptsNo,
      siteName: r.siteName,
      visitId: r.i.visitId,
      visitName: r.visitName,
      unscheduledId: r.i.unscheduledId,
      formId: r.i.formId,
      formName: r.formName,
      repeatNo: r.i.repeatNo,
      variable: r.v.variable,
      itemLabel: field?.label ?? r.v.variable,
      value: r.v.value?.v ?? null,
      entryMode: r.v.entryMode,
      sourceRef: r.v.sourceRef ?? '',
      recordId: ref?.recordId ?? null,
      recordVersion: ref?.version ?? null,
      latestVersion: r.rec?.version ?? null,
      changedSinceFill: Boolean(ref && r.rec && r.rec.version > ref.version),
      docType: r.rec?.docType ?? null,
      resourceType: r.rec?.resourceType ?? null,
      code: r.rec?.code ?? null,
      display: r.rec?.display ?? null,
      effectiveDate: r.rec?.effectiveDate ?? null,
      updatedBy: r.userName,
      updateTime: r.v.updatedAt.toISOString(),
    };
  }

  async traceability(ctx: ProjectScopedContext, q: TraceQuery) {
    const where = this.traceWhere(ctx, q);
    const [{ n } = { n: 0 }] = await this.db
      .select({ n: count() })
      .from(crfValues)
      .innerJoin(crfInstances, eq(crfInstances.id, crfValues.instanceId))
      .innerJoin(subjects, eq(subjects.id, crfInstances.subjectId))
      .where(where);
    const rows = await this.base(where).orderBy(subjects.ptsNo, crfInstances.visitId, crfInstances.formId, crfValues.variable).limit(q.pageSize).offset(offsetOf(q));
    return pageOf(q, n, rows.map((r) => this.rowOf(r)));
  }

  async exportTraceability(ctx: ProjectScopedContext, q: Omit<TraceQuery, 'pageNumber' | 'pageSize'>): Promise<Buffer> {
    const t = translator(ctx.language);
    const rows = (await this.base(this.traceWhere(ctx, q)).orderBy(subjects.ptsNo, crfInstances.visitId, crfInstances.formId, crfValues.variable).limit(100_000)).map((r) => this.rowOf(r));
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet(t('prefill.trace.sheet'));
    const cols = ['ptsNo', 'siteName', 'visitName', 'formName', 'itemLabel', 'variable', 'value', 'entryMode', 'docType', 'code', 'display', 'effectiveDate', 'recordId', 'recordVersion', 'latestVersion', 'changedSinceFill', 'updatedBy', 'updateTime'] as const;
    ws.columns = cols.map((c) => ({ header: t(`prefill.trace.${c}`), key: c, width: 16 }));
    for (const r of rows)
      ws.addRow(
        safeRow({
          ...r,
          value: typeof r.value === 'string' || typeof r.value === 'number' ? r.value : JSON.stringify(r.value),
          changedSinceFill: r.changedSinceFill ? t('prefill.trace.yes') : '',
        }),
      );
    await this.db.transaction((tx) =>
      recordAudit(tx, actorOf(ctx), [{ action: 'report.traceability.export', entity: 'report', projectId: ctx.project.id, newValue: { rows: rows.length, ...q } }]),
    );
    return Buffer.from(await wb.xlsx.writeBuffer());
  }

  async decisionsLog(ctx: ProjectScopedContext, q: z.output<typeof prefillLogRequest>) {
    const where = and(
      this.subjects.scope(ctx),
      eq(prefillDecisions.env, ctx.env),
      q.ptsId ? eq(prefillDecisions.subjectId, q.ptsId) : undefined,
      q.visitId ? eq(prefillDecisions.visitId, q.visitId) : undefined,
      q.formId ? eq(prefillDecisions.formId, q.formId) : undefined,
      q.decision ? eq(prefillDecisions.decision, q.decision) : undefined,
    );
    const [{ n } = { n: 0 }] = await this.db.select({ n: count() }).from(prefillDecisions).innerJoin(subjects, eq(subjects.id, prefillDecisions.subjectId)).where(where);
    const rows = await this.db
      .select({ d: prefillDecisions, ptsNo: subjects.ptsNo, visitName: visits.name, formName: forms.name, userName: users.name })
      .from(prefillDecisions)
      .innerJoin(subjects, eq(subjects.id, prefillDecisions.subjectId))
      .innerJoin(visits, eq(visits.id, prefillDecisions.visitId))
      .innerJoin(forms, eq(forms.id, prefillDecisions.formId))
      .leftJoin(users, eq(users.id, prefillDecisions.userId))
      .where(where)
      .orderBy(desc(prefillDecisions.id))
      .limit(q.pageSize)
      .offset(offsetOf(q));
    return pageOf(
      q,
      n,
      rows.map((r) => ({
        id: r.d.id,
        ptsId: r.d.subjectId,
        ptsNo: r.ptsNo,
        visitId: r.d.visitId,
        visitName: r.visitName,
        unscheduledId: r.d.unscheduledId,
        formId: r.d.formId,
        formName: r.formName,
        repeatNo: r.d.repeatNo,
        variable: r.d.variable,
        decision: r.d.decision,
        sourceRecordId: r.d.sourceRecordId,
        sourceVersion: r.d.sourceVersion,
        candidate: r.d.candidate?.v ?? null,
        reason: r.d.candidate?.reason ?? null,
        userName: r.userName,
        createTime: r.d.createdAt.toISOString(),
      })),
    );
  }

  // ── schedule ──
  private scheduleView(s: typeof prefillSchedules.$inferSelect, name: string | null): PrefillScheduleView {
    return { id: s.id, startDate: s.startDate, endDate: s.endDate, frequency: s.frequency, days: s.days, enabled: s.enabled, lastRunOn: s.lastRunOn, version: s.version, updatedBy: name, updateTime: s.updatedAt.toISOString() };
  }

  async scheduleInfo(ctx: ProjectScopedContext): Promise<PrefillScheduleView | null> {
    const [r] = await this.db
      .select({ s: prefillSchedules, name: users.name })
      .from(prefillSchedules)
      .leftJoin(users, eq(users.id, prefillSchedules.updatedBy))
      .where(and(eq(prefillSchedules.projectId, ctx.project.id), eq(prefillSchedules.env, ctx.env)));
    return r ? this.scheduleView(r.s, r.name) : null;
  }

  async saveSchedule(ctx: ProjectScopedContext, input: z.output<typeof prefillScheduleSave>): Promise<PrefillScheduleView> {
    return this.db.transaction(async (tx) => {
      const [old] = await tx.select().from(prefillSchedules).where(and(eq(prefillSchedules.projectId, ctx.project.id), eq(prefillSchedules.env, ctx.env)));
      const values = { startDate: input.startDate, endDate: input.endDate, frequency: input.frequency, days: input.frequency === 'daily' ? [] : [...input.days].sort((a, b) => a - b), enabled: input.enabled, updatedBy: ctx.user.id };
      let row: typeof prefillSchedules.$inferSelect | undefined;
      if (old) {
        if (input.version !== undefined && input.version !== old.version) throw await staleWrite(tx, old.updatedBy, old.updatedAt);
        [row] = await tx
          .update(prefillSchedules)
          .set({ ...values, version: old.version + 1, updatedAt: new Date() })
          .where(and(eq(prefillSchedules.id, old.id), eq(prefillSchedules.version, old.version)))
          .returning();
        if (!row) throw await staleWrite(tx, old.updatedBy, old.updatedAt);
      } else [row] = await tx.insert(prefillSchedules).values({ ...values, env: ctx.env, projectId: ctx.project.id }).returning();
      await recordAudit(tx, actorOf(ctx), [
        { action: old ? 'prefill.schedule.update' : 'prefill.schedule.add', entity: 'prefill_schedule', entityId: row!.id, projectId: ctx.project.id, oldValue: old ? { ...old, updatedAt: undefined, createdAt: undefined } : null, newValue: values },
      ]);
      return this.scheduleView(row!, ctx.user.name);
    });
  }
}
