/**
 * Source records for the screens (issue 11 item 2): a subject's records by type/date/text, one record with its raw
 * payload and versions (an audited read of identifiable source data), counts by document type, the matching queue
 * (assign / dismiss, audited; a site user sees and decides only for their sites), and the change reports.
 */
import { and, asc, count, desc, eq, gte, ilike, inArray, lte, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import {
  LIMITS,
  TASK_STATUS,
  type ChangeRow,
  type changeReportRequest,
  type DocTypeCount,
  type GatherDataDetail,
  type GatherPtsDataDetail,
  type MatchQueueRow,
  type matchQueueRequest,
  type ProcessBarResult,
  type SourceRecordDetail,
  type SourceRecordRow,
  type sourceRecordListRequest,
  type extractReportRequest,
} from '@esource/shared';
import type { Db } from '../../db/client';
import { sites, sourceConnections, sourceExtractTasks, sourcePatients, sourceRecords, sourceRecordVersions, subjects } from '../../db/schema';
import { AppError } from '../../lib/errors';
import type { ProjectScopedContext } from '../../lib/context';
import { likeOf, rowsOf } from '../../lib/sql';
import { offsetOf, pageOf } from '../../lib/page';
import { actorOf, recordAudit } from '../audit/audit.service';
import { assignPatient } from './source-store';
import { recordBrief } from './record-brief';
import type { ExtractService } from './extract.service';

const iso = (d: Date | string | null | undefined) => (d == null ? null : d instanceof Date ? d.toISOString() : new Date(d).toISOString());

export class RecordsService {
  constructor(
    private readonly db: Db,
    private readonly extract: ExtractService,
  ) {}

  private siteOk(ctx: ProjectScopedContext, col: typeof sourceRecords.siteId | typeof sourcePatients.siteId | typeof subjects.siteId): SQL | undefined {
    const ids = ctx.project.siteIds;
    return and(ids === null ? undefined : inArray(col, ids.length ? ids : [-1]), ctx.siteId !== null ? eq(col, ctx.siteId) : undefined);
  }

  /** the hospital's records (a result read from a source document has no connection: the documents screens show it) */
  private recordScope(ctx: ProjectScopedContext): SQL {
    return and(
      eq(sourceRecords.projectId, ctx.project.id),
      eq(sourceRecords.env, ctx.env),
      sql`${sourceRecords.deletedAt} is null`,
      sql`${sourceRecords.connectionId} is not null`,
      this.siteOk(ctx, sourceRecords.siteId),
    )!;
  }

  async list(ctx: ProjectScopedContext, q: z.output<typeof sourceRecordListRequest>) {
    await this.extract.subjectOf(ctx, q.ptsId);
    const where = and(
      this.recordScope(ctx),
      eq(sourceRecords.subjectId, q.ptsId),
      q.docType ? eq(sourceRecords.docType, q.docType) : undefined,
      q.dateFrom ? gte(sourceRecords.effectiveDate, q.dateFrom) : undefined,
      q.dateTo ? lte(sourceRecords.effectiveDate, q.dateTo) : undefined,
      q.text ? or(ilike(sourceRecords.display, likeOf(q.text)), ilike(sourceRecords.code, likeOf(q.text))) : undefined,
    );
    const order = q.sort === 'asc' ? [sql`${sourceRecords.effectiveDate} asc nulls last`, asc(sourceRecords.id)] : [sql`${sourceRecords.effectiveDate} desc nulls last`, desc(sourceRecords.id)];
    const [total, rows] = await Promise.all([
      this.db.select({ n: count() }).from(sourceRecords).where(where),
      this.db
        .select({ r: sourceRecords, connectionName: sourceConnections.name })
        .from(sourceRecords)
        .innerJoin(sourceConnections, eq(sourceConnections.id, sourceRecords.connectionId))
        .where(where)
        .orderBy(...order)
        .limit(q.pageSize)
        .offset(offsetOf(q)),
    ]);
    return pageOf(q, total[0]?.n ?? 0, rows.map(({ r, connectionName }) => this.row(r, connectionName)));
  }

  private row(r: typeof sourceRecords.$inferSelect, connectionName: string): SourceRecordRow {
    return { ...recordBrief(r), status: r.status, rawFormat: r.rawFormat, connectionId: r.connectionId!, connectionName, updateTime: r.updatedAt.toISOString() };
  }

  /** One record with its raw payload (of the asked version) and its versions; the read is audited. */
  async detail(ctx: ProjectScopedContext, id: number, version?: number): Promise<SourceRecordDetail> {
    return this.db.transaction(async (tx) => {
      const [x] = await tx
        .select({ r: sourceRecords, connectionName: sourceConnections.name, ptsNo: subjects.ptsNo })
        .from(sourceRecords)
        .innerJoin(sourceConnections, eq(sourceConnections.id, sourceRecords.connectionId))
        .leftJoin(subjects, eq(subjects.id, sourceRecords.subjectId))
        .where(and(this.recordScope(ctx), eq(sourceRecords.id, id)));
      if (!x) throw new AppError('NOT_FOUND', { entity: 'sourceRecord' });
      const versions = await tx.select().from(sourceRecordVersions).where(eq(sourceRecordVersions.recordId, id)).orderBy(desc(sourceRecordVersions.version));
      const shown = version ? versions.find((v) => v.version === version) : undefined;
      if (version && !shown) throw new AppError('NOT_FOUND', { entity: 'sourceRecordVersion' });
      await recordAudit(tx, actorOf(ctx), [
        { action: 'source.record.read', entity: 'sourceRecord', entityId: id, projectId: ctx.project.id, siteId: x.r.siteId, subjectId: x.r.subjectId, newValue: { version: shown?.version ?? x.r.version } },
      ]);
      return {
        ...this.row(x.r, x.connectionName),
        ...(shown ? { valueNum: shown.valueNum, valueText: shown.valueText, unit: shown.unit, effectiveAt: iso(shown.effectiveAt) } : {}),
        shownVersion: shown?.version ?? x.r.version,
        externalId: x.r.externalId,
        ptsId: x.r.subjectId,
        ptsNo: x.ptsNo,
        siteId: x.r.siteId,
        raw: shown?.raw ?? x.r.raw,
        versions: versions.map((v) => ({ version: v.version, changeKind: v.changeKind, valueNum: v.valueNum, valueText: v.valueText, unit: v.unit, effectiveAt: iso(v.effectiveAt), taskId: v.taskId, createTime: v.createdAt.toISOString() })),
        createTime: x.r.createdAt.toISOString(),
      };
    });
  }

  async typeCounts(ctx: ProjectScopedContext, ptsId: number): Promise<DocTypeCount[]> {
    await this.extract.subjectOf(ctx, ptsId);
    const rows = await this.db
      .select({ docType: sourceRecords.docType, n: count(), changed: sql<number | string>`count(*) filter (where ${sourceRecords.version} > 1)::int`, latest: sql<string | null>`max(${sourceRecords.effectiveDate})::text` })
      .from(sourceRecords)
      .where(and(this.recordScope(ctx), eq(sourceRecords.subjectId, ptsId)))
      .groupBy(sourceRecords.docType);
    const by = new Map(rows.map((r) => [r.docType, r]));
    return [1, 2, 3, 4, 5, 6, 7, 8].map((d) => ({ docType: d, count: by.get(d)?.n ?? 0, changed: Number(by.get(d)?.changed ?? 0), latestDate: by.get(d)?.latest ?? null }));
  }

  async processBar(ctx: ProjectScopedContext, ptsId: number): Promise<ProcessBarResult> {
    await this.extract.subjectOf(ctx, ptsId);
    const [task] = await this.extract.taskViews(ctx.language, and(this.extract.taskScope(ctx), eq(sourceExtractTasks.subjectId, ptsId)), { limit: 1 });
    if (!task) return { task: null, percent: 0, running: false };
    const running = task.status === TASK_STATUS.queued || task.status === TASK_STATUS.running;
    const percent = task.status === TASK_STATUS.done ? 100 : task.total > 0 ? Math.min(99, Math.floor((task.done / task.total) * 100)) : 0;
    return { task, percent, running };
  }

  async gatherPts(ctx: ProjectScopedContext, ptsId: number): Promise<GatherPtsDataDetail> {
    const s = await this.extract.subjectOf(ctx, ptsId);
    const [site] = await this.db.select({ name: sites.name }).from(sites).where(eq(sites.id, s.siteId));
    const tasks = await this.extract.taskViews(ctx.language, and(this.extract.taskScope(ctx), eq(sourceExtractTasks.subjectId, ptsId)), { limit: LIMITS.gatherTasksShown });
    const conns = await this.db
      .select({ id: sourceConnections.id, name: sourceConnections.name, kind: sourceConnections.kind, enabled: sourceConnections.enabled })
      .from(sourceConnections)
      .where(and(eq(sourceConnections.siteId, s.siteId), eq(sourceConnections.env, ctx.env), eq(sourceConnections.projectId, ctx.project.id), sql`${sourceConnections.deletedAt} is null`));
    const [pc] = await this.db.select({ n: count() }).from(sourcePatients).where(eq(sourcePatients.subjectId, ptsId));
    return {
      ptsId: s.id,
      ptsNo: s.ptsNo,
      siteId: s.siteId,
      siteName: site?.name ?? '',
      types: await this.typeCounts(ctx, ptsId),
      tasks,
      connections: conns.map((c) => ({ ...c, kind: c.kind as 'fhir' })),
      sourcePatients: pc?.n ?? 0,
      lastExtractTime: tasks.find((t) => t.status === TASK_STATUS.done)?.finishTime ?? null,
    };
  }

  async gatherTask(ctx: ProjectScopedContext, taskId: number): Promise<GatherDataDetail> {
    const [task] = await this.extract.taskViews(ctx.language, and(this.extract.taskScope(ctx), eq(sourceExtractTasks.id, taskId)), { limit: 1 });
    if (!task) throw new AppError('NOT_FOUND', { entity: 'task' });
    const rows = await this.db
      .select({ v: sourceRecordVersions, r: sourceRecords })
      .from(sourceRecordVersions)
      .innerJoin(sourceRecords, eq(sourceRecords.id, sourceRecordVersions.recordId))
      .where(and(eq(sourceRecordVersions.taskId, taskId), this.recordScope(ctx)))
      .orderBy(desc(sourceRecordVersions.id))
      .limit(200);
    return {
      task,
      records: rows.map(({ v, r }) => ({ id: r.id, version: v.version, changeKind: v.changeKind, docType: r.docType, resourceType: r.resourceType, code: r.code, display: r.display, valueNum: v.valueNum, valueText: v.valueText, unit: v.unit, effectiveDate: r.effectiveDate })),
    };
  }

  // ── matching queue ──
  async matchQueue(ctx: ProjectScopedContext, q: z.output<typeof matchQueueRequest>) {
    const where = and(
      eq(sourcePatients.projectId, ctx.project.id),
      eq(sourcePatients.env, ctx.env),
      this.siteOk(ctx, sourcePatients.siteId),
      eq(sourcePatients.status, q.status ?? 0),
      q.siteId ? eq(sourcePatients.siteId, q.siteId) : undefined,
      q.connectionId ? eq(sourcePatients.connectionId, q.connectionId) : undefined,
    );
    const matcher = sql`(select name from users where id = ${sourcePatients.matchedBy})`;
    const [total, rows] = await Promise.all([
      this.db.select({ n: count() }).from(sourcePatients).where(where),
      this.db
        .select({ p: sourcePatients, connectionName: sourceConnections.name, siteName: sites.name, ptsNo: subjects.ptsNo, matchedBy: sql<string | null>`${matcher}`, records: sql<number | string>`(select count(*)::int from source_records r where r.source_patient_id = ${sourcePatients.id})` })
        .from(sourcePatients)
        .innerJoin(sourceConnections, eq(sourceConnections.id, sourcePatients.connectionId))
        .innerJoin(sites, eq(sites.id, sourcePatients.siteId))
        .leftJoin(subjects, eq(subjects.id, sourcePatients.subjectId))
        .where(where)
        .orderBy(desc(sourcePatients.createdAt), desc(sourcePatients.id))
        .limit(q.pageSize)
        .offset(offsetOf(q)),
    ]);
    const content: MatchQueueRow[] = rows.map(({ p, connectionName, siteName, ptsNo, matchedBy, records }) => ({
      id: p.id,
      connectionId: p.connectionId,
      connectionName,
      siteId: p.siteId,
      siteName,
      patientKey: p.patientKey,
      identifiers: p.identifiers,
      name: p.name,
      birthDate: p.birthDate,
      gender: p.gender,
      status: p.status,
      records: Number(records),
      ptsId: p.subjectId,
      ptsNo,
      matchedBy,
      matchTime: iso(p.matchedAt),
      createTime: p.createdAt.toISOString(),
    }));
    if (content.length) {
      // names and identifiers of hospital patients are identifiable: the read is audited
      await this.db.transaction((tx) =>
        recordAudit(tx, actorOf(ctx), [{ action: 'source.patient.read', entity: 'sourcePatient', projectId: ctx.project.id, newValue: { ids: content.map((c) => c.id) } }]),
      );
    }
    return pageOf(q, total[0]?.n ?? 0, content);
  }

  async decide(ctx: ProjectScopedContext, id: number, ptsId: number | null) {
    return this.db.transaction(async (tx) => {
      const [p] = await tx
        .select()
        .from(sourcePatients)
        .where(and(eq(sourcePatients.id, id), eq(sourcePatients.projectId, ctx.project.id), eq(sourcePatients.env, ctx.env), this.siteOk(ctx, sourcePatients.siteId)));
      if (!p) throw new AppError('NOT_FOUND', { entity: 'sourcePatient' });
      if (ptsId !== null) {
        const [s] = await tx.select().from(subjects).where(and(eq(subjects.id, ptsId), eq(subjects.projectId, ctx.project.id), eq(subjects.env, ctx.env), sql`${subjects.status} <> 0`, this.siteOk(ctx, subjects.siteId)));
        if (!s) throw new AppError('NOT_FOUND', { entity: 'subject' });
        if (s.siteId !== p.siteId) throw new AppError('SOURCE_MATCH_SITE');
      }
      await assignPatient(tx, p.id, ptsId, ctx.user.id);
      const [n] = await tx.select({ n: count() }).from(sourceRecords).where(eq(sourceRecords.sourcePatientId, p.id));
      await recordAudit(tx, actorOf(ctx), [
        { action: ptsId ? 'source.patient.assign' : 'source.patient.dismiss', entity: 'sourcePatient', entityId: p.id, projectId: ctx.project.id, siteId: p.siteId, subjectId: ptsId, oldValue: p.subjectId, newValue: ptsId },
      ]);
      return { id: p.id, status: ptsId ? 2 : 3, ptsId, records: n?.n ?? 0 };
    });
  }

  // ── reports ──
  async extractReport(ctx: ProjectScopedContext, q: z.output<typeof extractReportRequest>) {
    const where = and(
      this.extract.taskScope(ctx),
      q.siteId ? eq(sourceExtractTasks.siteId, q.siteId) : undefined,
      q.ptsId ? eq(sourceExtractTasks.subjectId, q.ptsId) : undefined,
      q.ptsNo ? sql`${sourceExtractTasks.subjectId} in (select id from subjects where pts_no ilike ${likeOf(q.ptsNo)})` : undefined,
      q.status !== undefined ? eq(sourceExtractTasks.status, q.status) : undefined,
      q.trigger ? eq(sourceExtractTasks.trigger, q.trigger) : undefined,
      q.dateFrom ? sql`${sourceExtractTasks.createdAt} >= ${q.dateFrom}::date` : undefined,
      q.dateTo ? sql`${sourceExtractTasks.createdAt} < ${q.dateTo}::date + 1` : undefined,
    );
    const [total] = await this.db.select({ n: count() }).from(sourceExtractTasks).where(where);
    return pageOf(q, total?.n ?? 0, await this.extract.taskViews(ctx.language, where, { limit: q.pageSize, offset: offsetOf(q) }));
  }

  private changeWhere(ctx: ProjectScopedContext, q: Partial<z.output<typeof changeReportRequest>>): SQL {
    return and(
      this.recordScope(ctx),
      sql`${sourceRecordVersions.version} > 1`,
      q.siteId ? eq(sourceRecords.siteId, q.siteId) : undefined,
      q.ptsId ? eq(sourceRecords.subjectId, q.ptsId) : undefined,
      q.ptsNo ? sql`${sourceRecords.subjectId} in (select id from subjects where pts_no ilike ${likeOf(q.ptsNo)})` : undefined,
      q.docType ? eq(sourceRecords.docType, q.docType) : undefined,
      q.dateFrom ? sql`${sourceRecordVersions.createdAt} >= ${q.dateFrom}::date` : undefined,
      q.dateTo ? sql`${sourceRecordVersions.createdAt} < ${q.dateTo}::date + 1` : undefined,
    )!;
  }

  private async changeRows(where: SQL, limit: number, offset: number): Promise<ChangeRow[]> {
    const rows = rowsOf(
      await this.db.execute(sql`
        select v.record_id, v.version, v.task_id, v.created_at, v.value_num, v.value_text, v.unit, v.effective_at,
               p.value_num as old_num, p.value_text as old_text, p.unit as old_unit, p.effective_at as old_eff,
               r.subject_id, s.pts_no, st.name as site_name, r.doc_type, r.resource_type, r.code, r.display
        from source_record_versions v
        join source_records r on r.id = v.record_id
        join sites st on st.id = r.site_id
        left join subjects s on s.id = r.subject_id
        left join source_record_versions p on p.record_id = v.record_id and p.version = v.version - 1
        where v.id in (select source_record_versions.id from source_record_versions
                       join source_records on source_records.id = source_record_versions.record_id where ${where})
        order by v.created_at desc, v.id desc
        limit ${limit} offset ${offset}`),
    );
    const val = (n: unknown, t: unknown) => (n != null ? String(Number(n)) : t != null ? (typeof t === 'string' ? t : JSON.stringify(t)) : null);
    return rows.map((r) => {
      const oldValue = val(r.old_num, r.old_text);
      const newValue = val(r.value_num, r.value_text);
      const oldEff = iso(r.old_eff as string | null);
      const newEff = iso(r.effective_at as string | null);
      const changed: string[] = [];
      if (oldValue !== newValue) changed.push('value');
      if ((r.old_unit ?? null) !== (r.unit ?? null)) changed.push('unit');
      if (oldEff !== newEff) changed.push('effective');
      if (changed.length === 0) changed.push('content');
      return {
        recordId: Number(r.record_id),
        version: Number(r.version),
        ptsId: r.subject_id == null ? null : Number(r.subject_id),
        ptsNo: (r.pts_no as string | null) ?? null,
        siteName: String(r.site_name),
        docType: Number(r.doc_type),
        resourceType: String(r.resource_type),
        code: (r.code as string | null) ?? null,
        display: (r.display as string | null) ?? null,
        changed,
        oldValue,
        newValue,
        oldUnit: (r.old_unit as string | null) ?? null,
        newUnit: (r.unit as string | null) ?? null,
        oldEffective: oldEff,
        newEffective: newEff,
        taskId: r.task_id == null ? null : Number(r.task_id),
        changeTime: iso(r.created_at as string)!,
      };
    });
  }

  async changeReport(ctx: ProjectScopedContext, q: z.output<typeof changeReportRequest>) {
    const where = this.changeWhere(ctx, q);
    const [total] = rowsOf<{ n: number | string }>(
      await this.db.execute(sql`select count(*) as n from source_record_versions join source_records on source_records.id = source_record_versions.record_id where ${where}`),
    );
    return pageOf(q, Number(total?.n ?? 0), await this.changeRows(where, q.pageSize, offsetOf(q)));
  }

  async patientChanges(ctx: ProjectScopedContext, ptsId: number, docType?: number): Promise<ChangeRow[]> {
    await this.extract.subjectOf(ctx, ptsId);
    return this.changeRows(this.changeWhere(ctx, { ptsId, docType }), 1000, 0);
  }

  async changeExportRows(ctx: ProjectScopedContext, q: Partial<z.output<typeof changeReportRequest>>): Promise<ChangeRow[]> {
    return this.changeRows(this.changeWhere(ctx, q), 50_000, 0);
  }
}

