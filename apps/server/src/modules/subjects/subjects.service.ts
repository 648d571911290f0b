/**
 * Subjects: enrolment at a site, identifiers (shown masked to roles without patient:identifier:query; reads in
 * full are audited), status transitions from the shared table (a reason where required), and the recycle bin
 * (status 0; restore returns the status it had). A site user reaches only their sites' subjects.
 */
import { and, asc, count, desc, eq, gte, ilike, inArray, isNull, lte, ne, or, sql, type SQL } from 'drizzle-orm';
import {
  CRF_STATUS,
  REASON_REQUIRED_STATUSES,
  SUBJECT_STATUS,
  canTransition,
  maskIdentifier,
  type SubjectRow,
  type VisitQueryTally,
} from '@esource/shared';
import type { z } from 'zod';
import type { subjectCreate, subjectListRequest, subjectUpdate, SubjectNeighbour, SubjectPickerRow } from '@esource/shared';

type SubjectListFilters = Omit<z.output<typeof subjectListRequest>, 'pageNumber' | 'pageSize'>;
import type { Db, Tx } from '../../db/client';
import { crfInstances, designVersions, organizations, sites, subjectCounts, subjects, visits } from '../../db/schema';
import { siteScope } from '../../lib/site-scope';
import { AppError } from '../../lib/errors';
import type { ProjectScopedContext } from '../../lib/context';
import { actorOf, diffEntries, recordAudit } from '../audit/audit.service';
import { translator } from '../../lib/i18n';
import { likeOf } from '../../lib/sql';
import { offsetOf, pageOf } from '../../lib/page';
import { subjectQueryTallies, visitQueryTallies } from './subject-queries';

type Subject = typeof subjects.$inferSelect;
const AUDITED = ['siteId', 'ptsNo', 'firstVisitDate', 'initials', 'medicalRecordId', 'inpatientId', 'outpatientId', 'idCard'] as const;

/** After the plan of an editable (DEV) design version changed: its subjects' current visit and progress. */
export async function refreshVersionProgress(tx: Db | Tx, versionId: number): Promise<void> {
  await tx.execute(sql`select refresh_subject_progress(array(select id from subjects where design_version_id = ${versionId}))`);
}

/** A project with subjects (even in the recycle bin) holds subject data and cannot be deleted (AppDeps.hooks). */
export async function projectHasSubjects(tx: Db | Tx, projectId: number): Promise<boolean> {
  return (await tx.select({ id: subjects.id }).from(subjects).where(eq(subjects.projectId, projectId)).limit(1)).length > 0;
}

export class SubjectsService {
  constructor(private readonly db: Db) {}

  /** Rows the caller may see: this project and environment, and only their sites. */
  scope(ctx: ProjectScopedContext): SQL {
    return and(eq(subjects.projectId, ctx.project.id), eq(subjects.env, ctx.env), siteScope(subjects.siteId, ctx))!;
  }

  private seesIdentifiers(ctx: ProjectScopedContext): boolean {
    return ctx.pms.has('patient:identifier:query');
  }

  /** The list's columns: the subject, its site and organisation, and the name of its current visit. */
  private rowSelect(total: SQL = sql`null`, db: Db | Tx = this.db) {
    return db
      .select({ s: subjects, siteName: sites.name, siteRiskLevel: sites.riskLevel, orgId: sites.orgId, orgNo: organizations.code, visitName: visits.name, visitNameEn: visits.nameEn, total: sql<number | null>`(${total})` })
      .from(subjects)
      .innerJoin(sites, eq(sites.id, subjects.siteId))
      .innerJoin(organizations, eq(organizations.id, sites.orgId))
      .leftJoin(visits, eq(visits.id, subjects.currentVisitId));
  }

  private toRow(ctx: ProjectScopedContext, r: { s: Subject; siteName: string; siteRiskLevel: number; orgId: number; orgNo: string | null; visitName: string | null; visitNameEn?: string | null }): SubjectRow {
    const { s } = r;
    const full = this.seesIdentifiers(ctx);
    const m = (v: string | null) => (full ? v : maskIdentifier(v));
    return {
      ptsId: s.id,
      ptsNo: s.ptsNo,
      designVersionId: s.designVersionId,
      orgId: r.orgId,
      orgNo: r.orgNo,
      siteName: r.siteName,
      siteId: s.siteId,
      status: s.status,
      statusReason: s.statusReason,
      initials: s.initials,
      firstVisitDate: s.firstVisitDate,
      medicalRecordId: m(s.medicalRecordId),
      inpatientId: m(s.inpatientId),
      outpatientId: m(s.outpatientId),
      idCard: m(s.idCard),
      identifiersMasked: !full,
      currentVisitId: s.currentVisitId,
      currentVisitName: ctx.language === 'en_US' && r.visitNameEn ? r.visitNameEn : r.visitName,
      formsDone: s.formsDone,
      formsTotal: s.formsTotal,
      riskLevel: s.riskLevel,
      siteRiskLevel: r.siteRiskLevel,
      version: s.version,
      createTime: s.createdAt.toISOString(),
      updateTime: s.updatedAt.toISOString(),
      deleteTime: s.deletedAt?.toISOString() ?? null,
      deleteReason: s.deleteReason,
    };
  }

  /** Rows as the list shows them, in the given order (for subjects just read or written in `db`). */
  async toRows(db: Db | Tx, ctx: ProjectScopedContext, list: Subject[]): Promise<SubjectRow[]> {
    if (list.length === 0) return [];
    const rows = await this.rowSelect(sql`null`, db).where(inArray(subjects.id, list.map((s) => s.id)));
    const byId = new Map(rows.map((r) => [r.s.id, r]));
    return list.map((s) => this.toRow(ctx, { ...byId.get(s.id)!, s }));
  }

  /** Recomputes current visit and form progress of these subjects (in the transaction that changed their forms). */
  async refreshProgress(tx: Db | Tx, ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    await tx.execute(sql`select refresh_subject_progress(array[${sql.join(ids.map((i) => sql`${i}`), sql`, `)}]::int[])`);
  }

  /**
   * One page of subjects: the rows (one statement joining site, organisation and visit) and the exact total, read
   * side by side. The filters and orders all have an index (0006/0007 migrations).
   */
  /** The list's filters (ptsList and the calls that follow its order: nextPts). */
  private listWhere(ctx: ProjectScopedContext, q: SubjectListFilters, recycleBin: boolean): SQL {
    const idLike = q.identifier ? likeOf(q.identifier) : null;
    return and(
      this.scope(ctx),
      recycleBin ? eq(subjects.status, SUBJECT_STATUS.deleted) : sql`${subjects.status} <> 0`,
      q.status !== undefined && !recycleBin ? eq(subjects.status, q.status) : undefined,
      q.siteId ? eq(subjects.siteId, q.siteId) : undefined,
      q.visitId ? eq(subjects.currentVisitId, q.visitId) : undefined,
      q.keyword ? or(ilike(subjects.ptsNo, likeOf(q.keyword)), ilike(subjects.initials, likeOf(q.keyword))) : undefined,
      // identifiers are searched in full only by whoever may see them
      idLike && this.seesIdentifiers(ctx)
        ? or(ilike(subjects.medicalRecordId, idLike), ilike(subjects.inpatientId, idLike), ilike(subjects.outpatientId, idLike), ilike(subjects.idCard, idLike))
        : undefined,
      q.startDate ? gte(subjects.firstVisitDate, q.startDate) : undefined,
      q.endDate ? lte(subjects.firstVisitDate, q.endDate) : undefined,
    )!;
  }

  private sortColumn(q: Pick<SubjectListFilters, 'sortField'>) {
    return {
      ptsNo: subjects.ptsNo,
      status: subjects.status,
      firstVisitDate: subjects.firstVisitDate,
      createTime: subjects.createdAt,
      siteName: subjects.siteId,
    }[q.sortField];
  }

  /**
   * The subjects before and after one in the list's order with the list's filters (POST /project/manage/nextPts:
   * "previous / next subject" on the subject page). Keyset on (sort column, id); PostgreSQL's order puts empty
   * values last ascending and first descending, and so does this.
   */
  async neighbours(ctx: ProjectScopedContext, q: SubjectListFilters, ptsId: number): Promise<{ prev: SubjectNeighbour | null; next: SubjectNeighbour | null }> {
    await this.find(this.db, ctx, ptsId);
    const col = this.sortColumn(q);
    const where = this.listWhere(ctx, q, false);
    const [cur] = await this.db.select({ v: col }).from(subjects).where(eq(subjects.id, ptsId));
    const v = cur?.v ?? null;
    const after = (dir: 'asc' | 'desc'): Promise<SubjectNeighbour | null> => {
      const ahead =
        dir === 'asc'
          ? v === null
            ? and(sql`${col} is null`, sql`${subjects.id} > ${ptsId}`)
            : or(sql`${col} > ${v}`, and(sql`${col} = ${v}`, sql`${subjects.id} > ${ptsId}`), sql`${col} is null`)
          : v === null
            ? or(and(sql`${col} is null`, sql`${subjects.id} < ${ptsId}`), sql`${col} is not null`)
            : or(sql`${col} < ${v}`, and(sql`${col} = ${v}`, sql`${subjects.id} < ${ptsId}`));
      const order = dir === 'asc' ? [asc(col), asc(subjects.id)] : [desc(col), desc(subjects.id)];
      return this.db
        .select({ ptsId: subjects.id, ptsNo: subjects.ptsNo })
        .from(subjects)
        .where(and(where, ahead))
        .orderBy(...order)
        .limit(1)
        .then((r) => r[0] ?? null);
    };
    const forward = q.sortOrder === 'desc' ? 'desc' : 'asc';
    const [next, prev] = await Promise.all([after(forward), after(forward === 'asc' ? 'desc' : 'asc')]);
    return { prev, next };
  }

  /**
   * A short list of live subjects for pickers (POST /project/manage/listPa): number, initials, site and status, by
   * number or initials, in the caller's sites; identifiers never (a picker is not the subject list).
   */
  async picker(ctx: ProjectScopedContext, q: { keyword?: string | undefined; siteId?: number | undefined; limit: number }): Promise<SubjectPickerRow[]> {
    const rows = await this.db
      .select({ ptsId: subjects.id, ptsNo: subjects.ptsNo, initials: subjects.initials, status: subjects.status, siteId: subjects.siteId, siteNo: sites.siteNo, siteName: sites.name })
      .from(subjects)
      .innerJoin(sites, eq(sites.id, subjects.siteId))
      .where(
        and(
          this.scope(ctx),
          sql`${subjects.status} <> 0`,
          q.siteId ? eq(subjects.siteId, q.siteId) : undefined,
          q.keyword ? or(ilike(subjects.ptsNo, likeOf(q.keyword)), ilike(subjects.initials, likeOf(q.keyword))) : undefined,
        ),
      )
      .orderBy(asc(subjects.ptsNo), asc(subjects.id))
      .limit(q.limit);
    return rows;
  }

  async page(ctx: ProjectScopedContext, q: z.output<typeof subjectListRequest>, recycleBin: boolean) {
    const where = this.listWhere(ctx, q, recycleBin);
    const sortCol = this.sortColumn(q);
    const order = [q.sortOrder === 'desc' ? desc(sortCol) : asc(sortCol), q.sortOrder === 'desc' ? desc(subjects.id) : asc(subjects.id)];
    const offset = offsetOf(q);
    if (q.keyword || q.identifier || q.startDate || q.endDate) {
      // filters the counters do not hold: the rows and an exact count side by side
      const [total, list] = await Promise.all([
        this.db.select({ n: count() }).from(subjects).where(where),
        this.rowSelect().where(where).orderBy(...order).limit(q.pageSize).offset(offset),
      ]);
      return pageOf(q, total[0]?.n ?? 0, list.map((r) => this.toRow(ctx, r)));
    }
    // otherwise the total rides along with the rows, summed from the counters: one statement per page
    const counted = this.countByKeys(ctx, q, recycleBin);
    const list = await this.rowSelect(sql`${counted}`)
      .where(where)
      .orderBy(...order)
      .limit(q.pageSize)
      .offset(offset);
    const totalCount = list.length ? Number(list[0]!.total) : ((await counted)[0]?.n ?? 0);
    return pageOf(q, totalCount, list.map((r) => this.toRow(ctx, r)));
  }

  /**
   * Follow-up records (POST /followUp/exists): saved forms of the subject in a visit after its design's first
   * scheduled visit (or in the named visit). Unscheduled occurrences count as follow-up.
   */
  async followUp(ctx: ProjectScopedContext, ptsId: number, visitId: number | undefined): Promise<{ exists: boolean; count: number }> {
    const s = await this.find(this.db, ctx, ptsId);
    const [first] = s.designVersionId
      ? await this.db
          .select({ id: visits.id })
          .from(visits)
          .where(and(eq(visits.versionId, s.designVersionId), eq(visits.unscheduled, false)))
          .orderBy(asc(visits.sortOrder), asc(visits.id))
          .limit(1)
      : [];
    const [r] = await this.db
      .select({ n: count() })
      .from(crfInstances)
      .where(
        and(
          eq(crfInstances.subjectId, s.id),
          isNull(crfInstances.deletedAt),
          gte(crfInstances.status, CRF_STATUS.draft),
          visitId ? eq(crfInstances.visitId, visitId) : undefined,
          first ? or(ne(crfInstances.visitId, first.id), sql`${crfInstances.unscheduledId} <> 0`) : undefined,
        ),
      );
    const n = r?.n ?? 0;
    return { exists: n > 0, count: n };
  }

  /** The subject list (ptsList, centerPtsPageQuery): a page, and each row's open and replied queries (one grouped read over the page's subjects). */
  async listPage(ctx: ProjectScopedContext, q: z.output<typeof subjectListRequest>) {
    const p = await this.page(ctx, q, false);
    const tallies = await subjectQueryTallies(this.db, ctx, p.content.map((r) => r.ptsId));
    return { ...p, content: p.content.map((r) => ({ ...r, queries: tallies?.get(r.ptsId) ?? null })) };
  }

  /** A live subject's visit occurrences with open or replied queries (its visit cards); none for one in the recycle bin. */
  async visitQueries(ctx: ProjectScopedContext, id: number): Promise<VisitQueryTally[]> {
    const s = await this.find(this.db, ctx, id);
    return s.status === SUBJECT_STATUS.deleted ? [] : visitQueryTallies(this.db, ctx, s.id);
  }

  /** The exact total of a list filtered only by site, status and visit: summed from subject_counts. */
  private countByKeys(ctx: ProjectScopedContext, q: z.output<typeof subjectListRequest>, recycleBin: boolean) {
    const c = subjectCounts;
    const siteIds = ctx.project.siteIds;
    return this.db
      .select({ n: sql<number>`coalesce(sum(${c.n}), 0)::int` })
      .from(c)
      .where(
        and(
          eq(c.projectId, ctx.project.id),
          eq(c.env, ctx.env),
          siteIds === null ? undefined : inArray(c.siteId, siteIds.length ? siteIds : [-1]),
          ctx.siteId !== null ? eq(c.siteId, ctx.siteId) : undefined,
          recycleBin ? eq(c.status, SUBJECT_STATUS.deleted) : sql`${c.status} <> 0`,
          q.status !== undefined && !recycleBin ? eq(c.status, q.status) : undefined,
          q.siteId ? eq(c.siteId, q.siteId) : undefined,
          q.visitId ? eq(c.visitId, q.visitId) : undefined,
        ),
      );
  }

  async find(db: Db | Tx, ctx: ProjectScopedContext, id: number): Promise<Subject> {
    const [s] = await db.select().from(subjects).where(and(eq(subjects.id, id), this.scope(ctx)));
    if (!s) throw new AppError('NOT_FOUND', { entity: 'subject' });
    return s;
  }

  /** One subject; reading identifiers in full is audited (identifiable data). */
  async read(ctx: ProjectScopedContext, id: number): Promise<SubjectRow> {
    return this.db.transaction(async (tx) => {
      const s = await this.find(tx, ctx, id);
      if (this.seesIdentifiers(ctx) && (s.idCard || s.medicalRecordId || s.inpatientId || s.outpatientId)) {
        await recordAudit(tx, actorOf(ctx), [
          { action: 'subject.read', entity: 'subject', entityId: s.id, projectId: ctx.project.id, siteId: s.siteId, subjectId: s.id },
        ]);
      }
      return (await this.toRows(tx, ctx, [s]))[0]!;
    });
  }

  private async siteOf(tx: Tx, ctx: ProjectScopedContext, siteId: number) {
    if (ctx.project.siteIds !== null && !ctx.project.siteIds.includes(siteId)) throw new AppError('SITE_FORBIDDEN');
    const [site] = await tx.select().from(sites).where(and(eq(sites.id, siteId), eq(sites.projectId, ctx.project.id), eq(sites.env, ctx.env)));
    if (!site || site.status !== 1) throw new AppError('INVALID_REFERENCE', { field: 'siteId' });
    return site;
  }

  private async assertNoFree(tx: Tx, ctx: ProjectScopedContext, ptsNo: string, exceptId: number | null) {
    const [dup] = await tx
      .select({ id: subjects.id })
      .from(subjects)
      .where(and(eq(subjects.projectId, ctx.project.id), eq(subjects.env, ctx.env), sql`lower(${subjects.ptsNo}) = lower(${ptsNo})`));
    if (dup && dup.id !== exceptId) throw new AppError('DUPLICATE', { field: 'ptsNo', value: ptsNo });
  }

  /** The version in force in this environment: the newest published to it (DEV: the newest). */
  private async versionInForce(tx: Tx, ctx: ProjectScopedContext): Promise<number | null> {
    const [v] = await tx
      .select({ id: designVersions.id })
      .from(designVersions)
      .where(and(eq(designVersions.projectId, ctx.project.id), ctx.env === 'DEV' ? undefined : sql`${ctx.env} = any(${designVersions.publishedEnvs})`))
      .orderBy(desc(designVersions.versionNo))
      .limit(1);
    return v?.id ?? null;
  }

  async create(ctx: ProjectScopedContext, input: z.output<typeof subjectCreate>, tx0?: Tx): Promise<SubjectRow> {
    const run = async (tx: Tx) => {
      const site = await this.siteOf(tx, ctx, input.siteId);
      let ptsNo = input.ptsNo;
      if (!ptsNo) {
        // <siteNo>-<NNN>: the next number at that site; the advisory lock keeps two enrolments apart
        await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`pts:${ctx.env}:${site.id}`}))`);
        const [n] = await tx.select({ n: count() }).from(subjects).where(and(eq(subjects.siteId, site.id), eq(subjects.env, ctx.env)));
        ptsNo = `${site.siteNo}-${String((n?.n ?? 0) + 1).padStart(3, '0')}`;
      }
      await this.assertNoFree(tx, ctx, ptsNo, null);
      const [s] = await tx
        .insert(subjects)
        .values({
          env: ctx.env,
          projectId: ctx.project.id,
          siteId: site.id,
          ptsNo,
          status: input.status,
          designVersionId: await this.versionInForce(tx, ctx),
          firstVisitDate: input.firstVisitDate,
          initials: input.initials ?? null,
          medicalRecordId: input.medicalRecordId ?? null,
          inpatientId: input.inpatientId ?? null,
          outpatientId: input.outpatientId ?? null,
          idCard: input.idCard ?? null,
          createdBy: ctx.user.id,
        })
        .returning();
      await this.refreshProgress(tx, [s!.id]);
      const base = { action: 'subject.add', entity: 'subject', entityId: s!.id, projectId: ctx.project.id, siteId: s!.siteId, subjectId: s!.id };
      await recordAudit(tx, actorOf(ctx), [...diffEntries(base, null, s!, AUDITED), { ...base, field: 'status', newValue: s!.status }]);
      return (await this.toRows(tx, ctx, [await this.find(tx, ctx, s!.id)]))[0]!;
    };
    return tx0 ? run(tx0) : this.db.transaction(run);
  }

  async update(ctx: ProjectScopedContext, input: z.output<typeof subjectUpdate>): Promise<SubjectRow> {
    return this.db.transaction(async (tx) => {
      const before = await this.find(tx, ctx, input.ptsId);
      if (before.status === SUBJECT_STATUS.deleted) throw new AppError('SUBJECT_DELETED');
      if (before.version !== input.version) throw new AppError('STALE_WRITE', { user: '?', time: before.updatedAt.toISOString() });
      if (input.siteId !== undefined && input.siteId !== before.siteId) await this.siteOf(tx, ctx, input.siteId);
      const ids = ['medicalRecordId', 'inpatientId', 'outpatientId', 'idCard'] as const;
      if (!this.seesIdentifiers(ctx) && ids.some((k) => input[k] !== undefined)) throw new AppError('FORBIDDEN');
      // only what was sent changes: an absent field keeps its value
      const next: Partial<typeof subjects.$inferInsert> = {};
      if (input.siteId !== undefined) next.siteId = input.siteId;
      if (input.firstVisitDate !== undefined) next.firstVisitDate = input.firstVisitDate;
      if (input.initials !== undefined) next.initials = input.initials;
      for (const k of ids) if (input[k] !== undefined) next[k] = input[k];
      const [after] = await tx
        .update(subjects)
        .set({ ...next, version: before.version + 1, updatedAt: new Date() })
        .where(and(eq(subjects.id, before.id), eq(subjects.version, input.version)))
        .returning();
      if (!after) throw new AppError('STALE_WRITE', { user: '?', time: before.updatedAt.toISOString() });
      await recordAudit(
        tx,
        actorOf(ctx),
        diffEntries(
          { action: 'subject.update', entity: 'subject', entityId: before.id, projectId: ctx.project.id, siteId: after.siteId, subjectId: before.id, reason: input.reason ?? null },
          before,
          after,
          AUDITED,
        ),
      );
      return (await this.toRows(tx, ctx, [after]))[0]!;
    });
  }

  async setStatus(ctx: ProjectScopedContext, id: number, version: number, status: number, reason: string | undefined): Promise<SubjectRow> {
    return this.db.transaction(async (tx) => {
      const before = await this.find(tx, ctx, id);
      if (before.status === SUBJECT_STATUS.deleted) throw new AppError('SUBJECT_DELETED');
      if (before.version !== version) throw new AppError('STALE_WRITE', { user: '?', time: before.updatedAt.toISOString() });
      if (!canTransition(before.status, status)) {
        const t = translator(ctx.language);
        throw new AppError('SUBJECT_TRANSITION', { from: t(`subjectStatus.${before.status}`), to: t(`subjectStatus.${status}`) });
      }
      if (REASON_REQUIRED_STATUSES.includes(status) && !reason) {
        throw new AppError('REASON_REQUIRED', { detail: translator(ctx.language)(`subjectStatus.${status}`) }, [{ field: 'reason', message: 'validation.reasonRequired' }]);
      }
      const [after] = await tx
        .update(subjects)
        .set({ status, statusReason: reason ?? null, version: before.version + 1, updatedAt: new Date() })
        .where(eq(subjects.id, id))
        .returning();
      await recordAudit(tx, actorOf(ctx), [
        { action: 'subject.status', entity: 'subject', entityId: id, projectId: ctx.project.id, siteId: before.siteId, subjectId: id, field: 'status', oldValue: before.status, newValue: status, reason: reason ?? null },
      ]);
      return (await this.toRows(tx, ctx, [after!]))[0]!;
    });
  }

  /** Moves a subject to the recycle bin (status 0); nothing is removed. */
  async remove(ctx: ProjectScopedContext, id: number, reason: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const before = await this.find(tx, ctx, id);
      if (before.status === SUBJECT_STATUS.deleted) throw new AppError('SUBJECT_DELETED');
      await tx
        .update(subjects)
        .set({ status: SUBJECT_STATUS.deleted, statusBeforeDelete: before.status, deleteReason: reason, deletedAt: new Date(), version: before.version + 1, updatedAt: new Date() })
        .where(eq(subjects.id, id));
      await recordAudit(tx, actorOf(ctx), [
        { action: 'subject.delete', entity: 'subject', entityId: id, projectId: ctx.project.id, siteId: before.siteId, subjectId: id, field: 'status', oldValue: before.status, newValue: 0, reason },
      ]);
    });
  }

  async restore(ctx: ProjectScopedContext, id: number, reason: string): Promise<SubjectRow> {
    return this.db.transaction(async (tx) => {
      const before = await this.find(tx, ctx, id);
      if (before.status !== SUBJECT_STATUS.deleted) throw new AppError('CONFLICT', { detail: 'conflict.notInRecycleBin' });
      const status = before.statusBeforeDelete ?? SUBJECT_STATUS.screening;
      const [after] = await tx
        .update(subjects)
        .set({ status, statusBeforeDelete: null, deleteReason: null, deletedAt: null, version: before.version + 1, updatedAt: new Date() })
        .where(eq(subjects.id, id))
        .returning();
      await recordAudit(tx, actorOf(ctx), [
        { action: 'subject.restore', entity: 'subject', entityId: id, projectId: ctx.project.id, siteId: before.siteId, subjectId: id, field: 'status', oldValue: 0, newValue: status, reason },
      ]);
      return (await this.toRows(tx, ctx, [after!]))[0]!;
    });
  }
}

