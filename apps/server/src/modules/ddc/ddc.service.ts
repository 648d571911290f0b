/**
 * Shared-form links, the staff side (issue 15 item 6; /DDC/share and "Share with participant" on a form): create a
 * link to one form of one subject's visit, list, revoke, copy again, and accept a participant's answers. Everything is
 * scoped like the eCRF (project × environment × the caller's sites, by the subject's current site): another site's
 * link or form answers 404. Each action is one transaction with its audit entry; the code itself is never audited.
 */
import { and, asc, count, desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import {
  CRF_STATUS,
  type ShareCreated,
  type ShareRow,
  type ShareStatus,
  type sharePageRequest,
  type shareCreateRequest,
} from '@esource/shared';
import type { z } from 'zod';
import type { Db, Tx } from '../../db/client';
import {
  crfInstances,
  ddcShareLinks,
  forms,
  projects,
  sites,
  subjects,
  users,
  visits,
} from '../../db/schema';
import { AppError } from '../../lib/errors';
import type { ProjectScopedContext } from '../../lib/context';
import { translator } from '../../lib/i18n';
import { likeOf } from '../../lib/sql';
import { staleWrite } from '../../lib/stale';
import { actorOf, recordAudit } from '../audit/audit.service';
import { EcrfService } from '../ecrf/ecrf.service';
import { SubjectsService } from '../subjects/subjects.service';
import { endReview } from './ddc-review';
import { microSettings, shareRefusal } from './micro-config.service';
import { newShareCode, openShareCode, sealShareCode, shareCodeHash } from './share-code';

type Link = typeof ddcShareLinks.$inferSelect;

/** A link's state now: an active link past its expiry is expired whatever the column says (written lazily). */
export function effectiveStatus(l: Pick<Link, 'status' | 'expiresAt'>, now = Date.now()): ShareStatus {
  return l.status === 'active' && l.expiresAt.getTime() <= now ? 'expired' : l.status;
}
/** The same in SQL, for filters. */
const statusSql = sql<ShareStatus>`(case when ${ddcShareLinks.status} = 'active' and ${ddcShareLinks.expiresAt} <= now() then 'expired' else ${ddcShareLinks.status} end)`;

/** A time as the messages show it: in the project's time zone, with the zone's name. */
export function timeIn(d: Date, timeZone: string): string {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(d)
      .map((x) => [x.type, x.value]),
  );
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute} (${timeZone})`;
}

const creator = alias(users, 'share_creator');
const revoker = alias(users, 'share_revoker');
const reviewer = alias(users, 'share_reviewer');

export class DdcService {
  private readonly subjects: SubjectsService;
  private readonly ecrf: EcrfService;
  constructor(private readonly db: Db) {
    this.subjects = new SubjectsService(db);
    this.ecrf = new EcrfService(db);
  }

  private rowsQuery(tx: Db | Tx) {
    return tx
      .select({
        l: ddcShareLinks,
        ptsNo: subjects.ptsNo,
        siteId: subjects.siteId,
        siteName: sites.name,
        visitCode: visits.code,
        visitName: visits.name,
        visitNameEn: visits.nameEn,
        formCode: forms.code,
        formName: forms.name,
        formNameEn: forms.nameEn,
        createdByName: creator.name,
        revokedByName: revoker.name,
        reviewedByName: reviewer.name,
      })
      .from(ddcShareLinks)
      .innerJoin(subjects, eq(subjects.id, ddcShareLinks.subjectId))
      .innerJoin(sites, eq(sites.id, subjects.siteId))
      .innerJoin(visits, eq(visits.id, ddcShareLinks.visitId))
      .innerJoin(forms, eq(forms.id, ddcShareLinks.formId))
      .leftJoin(creator, eq(creator.id, ddcShareLinks.createdBy))
      .leftJoin(revoker, eq(revoker.id, ddcShareLinks.revokedBy))
      .leftJoin(reviewer, eq(reviewer.id, ddcShareLinks.reviewedBy));
  }

  private static toRow(r: Awaited<ReturnType<DdcService['rowsQuery']>>[number]): ShareRow {
    const l = r.l;
    return {
      id: l.id,
      status: effectiveStatus(l),
      review: l.review ?? null,
      ptsId: l.subjectId,
      ptsNo: r.ptsNo,
      siteId: r.siteId,
      siteName: r.siteName,
      visitId: l.visitId,
      unscheduledId: l.unscheduledId,
      visitCode: r.visitCode,
      visitName: r.visitName,
      visitNameEn: r.visitNameEn,
      formId: l.formId,
      formCode: r.formCode,
      formName: r.formName,
      formNameEn: r.formNameEn,
      repeatNo: l.repeatNo,
      note: l.note,
      expiresAt: l.expiresAt.toISOString(),
      createTime: l.createdAt.toISOString(),
      createdByName: r.createdByName,
      usedAt: l.usedAt?.toISOString() ?? null,
      revokedAt: l.revokedAt?.toISOString() ?? null,
      revokedByName: r.revokedByName,
      revokeReason: l.revokeReason,
      reviewedAt: l.reviewedAt?.toISOString() ?? null,
      reviewedByName: r.reviewedByName,
      openCount: l.openCount,
      lastOpenedAt: l.lastOpenedAt?.toISOString() ?? null,
      instanceId: l.instanceId,
    };
  }

  /** One link the caller reaches (its subject in scope), locked for the action when `lock`; else 404. */
  private async reach(tx: Db | Tx, ctx: ProjectScopedContext, id: number, lock = false): Promise<Link> {
    const q = tx
      .select({ l: ddcShareLinks })
      .from(ddcShareLinks)
      .innerJoin(subjects, eq(subjects.id, ddcShareLinks.subjectId))
      .where(and(eq(ddcShareLinks.id, id), this.subjects.scope(ctx)));
    const [r] = lock ? await q.for('update', { of: ddcShareLinks }) : await q;
    if (!r) throw new AppError('NOT_FOUND', { entity: 'shareLink' });
    return r.l;
  }

  private notActive(ctx: ProjectScopedContext, l: Link): AppError {
    return new AppError('SHARE_NOT_ACTIVE', {
      id: l.id,
      status: translator(ctx.language)(`ddc.status.${effectiveStatus(l)}`),
    });
  }

  async create(ctx: ProjectScopedContext, input: z.output<typeof shareCreateRequest>): Promise<ShareCreated> {
    const code = newShareCode();
    const hash = shareCodeHash(code)!;
    const id = await this.db.transaction(async (tx) => {
      // one creation per subject at a time: the check for a live link below cannot be passed twice
      const [locked] = await tx
        .select({ id: subjects.id })
        .from(subjects)
        .where(and(eq(subjects.id, input.ptsId), this.subjects.scope(ctx)))
        .for('update');
      if (!locked) throw new AppError('NOT_FOUND', { entity: 'subject' });
      const { subject, visit, form } = await this.ecrf.resolve(tx, ctx, input);
      const t = translator(ctx.language);
      const dc = await microSettings(tx, { projectId: ctx.project.id, env: ctx.env }, 'dc');
      const refusal = shareRefusal(dc, form);
      if (refusal) throw new AppError('SHARE_NOT_ALLOWED', { detail: t(`ddc.notAllowed.${refusal}`) });
      const hours = input.hours ?? dc.defaultHours;
      if (hours > dc.maxHours)
        throw new AppError('SHARE_NOT_ALLOWED', {
          detail: t('ddc.notAllowed.tooLong', { max: dc.maxHours }),
        });
      const key = and(
        eq(ddcShareLinks.subjectId, subject.id),
        eq(ddcShareLinks.visitId, visit.id),
        eq(ddcShareLinks.unscheduledId, input.unscheduledId),
        eq(ddcShareLinks.formId, form.id),
        eq(ddcShareLinks.repeatNo, input.repeatNo),
      );
      const [inst] = await tx
        .select({ status: crfInstances.status })
        .from(crfInstances)
        .where(
          and(
            eq(crfInstances.subjectId, subject.id),
            eq(crfInstances.visitId, visit.id),
            eq(crfInstances.unscheduledId, input.unscheduledId),
            eq(crfInstances.formId, form.id),
            eq(crfInstances.repeatNo, input.repeatNo),
            sql`${crfInstances.deletedAt} is null`,
          ),
        );
      // the participant fills a form nobody completed yet (a draft is fine: the submit replaces it, the history keeps it)
      if (inst && inst.status >= CRF_STATUS.completed)
        throw new AppError('SHARE_NOT_ALLOWED', { detail: t('ddc.notAllowed.formDone') });
      // links past their expiry stop counting as live (written now, so that the one-live-link index allows a new one)
      await tx
        .update(ddcShareLinks)
        .set({ status: 'expired' })
        .where(and(key, eq(ddcShareLinks.status, 'active'), sql`${ddcShareLinks.expiresAt} <= now()`));
      const [live] = await tx
        .select()
        .from(ddcShareLinks)
        .where(and(key, eq(ddcShareLinks.status, 'active')));
      if (live) {
        const [p] = await tx
          .select({ timezone: projects.timezone })
          .from(projects)
          .where(eq(projects.id, ctx.project.id));
        throw new AppError('SHARE_ACTIVE_EXISTS', {
          id: live.id,
          time: timeIn(live.expiresAt, p?.timezone ?? 'Asia/Shanghai'),
        });
      }
      const expiresAt = new Date(Date.now() + hours * 3_600_000);
      const [row] = await tx
        .insert(ddcShareLinks)
        .values({
          env: ctx.env,
          projectId: ctx.project.id,
          siteId: subject.siteId,
          subjectId: subject.id,
          visitId: visit.id,
          unscheduledId: input.unscheduledId,
          formId: form.id,
          repeatNo: input.repeatNo,
          codeHash: hash,
          codeEnc: sealShareCode(code),
          note: input.note ?? null,
          expiresAt,
          createdBy: ctx.user.id,
        })
        .returning();
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'ddc.add',
          entity: 'ddc_share_link',
          entityId: row!.id,
          projectId: ctx.project.id,
          siteId: subject.siteId,
          subjectId: subject.id,
          newValue: {
            visit: visit.code,
            unscheduledId: input.unscheduledId,
            form: form.code,
            repeatNo: input.repeatNo,
            hours,
            expiresAt: expiresAt.toISOString(),
            note: input.note ?? null,
          },
        },
      ]);
      return row!.id;
    });
    const [r] = await this.rowsQuery(this.db).where(eq(ddcShareLinks.id, id));
    return { ...DdcService.toRow(r!), code };
  }

  async page(
    ctx: ProjectScopedContext,
    q: z.output<typeof sharePageRequest>,
  ): Promise<{ total: number; rows: ShareRow[] }> {
    const kw = q.keyword ? likeOf(q.keyword) : null;
    const where: SQL | undefined = and(
      eq(ddcShareLinks.projectId, ctx.project.id),
      eq(ddcShareLinks.env, ctx.env),
      this.subjects.scope(ctx),
      q.status ? sql`${statusSql} = ${q.status}` : undefined,
      q.review ? eq(ddcShareLinks.review, q.review) : undefined,
      q.siteId ? eq(subjects.siteId, q.siteId) : undefined,
      q.mine ? eq(ddcShareLinks.createdBy, ctx.user.id) : undefined,
      kw
        ? or(
            ilike(subjects.ptsNo, kw),
            ilike(forms.name, kw),
            ilike(forms.nameEn, kw),
            ilike(forms.code, kw),
            ilike(ddcShareLinks.note, kw),
          )
        : undefined,
    );
    const col = q.sortField === 'expiresAt' ? ddcShareLinks.expiresAt : ddcShareLinks.createdAt;
    const dir = q.sortOrder === 'asc' ? asc : desc;
    const [rows, [total]] = await Promise.all([
      this.rowsQuery(this.db)
        .where(where)
        .orderBy(dir(col), dir(ddcShareLinks.id))
        .limit(q.pageSize)
        .offset((q.pageNumber - 1) * q.pageSize),
      this.db
        .select({ n: count() })
        .from(ddcShareLinks)
        .innerJoin(subjects, eq(subjects.id, ddcShareLinks.subjectId))
        .innerJoin(forms, eq(forms.id, ddcShareLinks.formId))
        .where(where),
    ]);
    return { total: total?.n ?? 0, rows: rows.map((r) => DdcService.toRow(r)) };
  }

  async revoke(ctx: ProjectScopedContext, id: number, reason: string | undefined): Promise<ShareRow> {
    await this.db.transaction(async (tx) => {
      const l = await this.reach(tx, ctx, id, true);
      if (effectiveStatus(l) !== 'active') throw this.notActive(ctx, l);
      await tx
        .update(ddcShareLinks)
        .set({
          status: 'revoked',
          revokedBy: ctx.user.id,
          revokedAt: new Date(),
          revokeReason: reason ?? null,
        })
        .where(eq(ddcShareLinks.id, l.id));
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'ddc.revoke',
          entity: 'ddc_share_link',
          entityId: l.id,
          projectId: l.projectId,
          siteId: l.siteId,
          subjectId: l.subjectId,
          field: 'status',
          oldValue: 'active',
          newValue: 'revoked',
          reason: reason ?? null,
        },
      ]);
    });
    const [r] = await this.rowsQuery(this.db).where(eq(ddcShareLinks.id, id));
    return DdcService.toRow(r!);
  }

  /** The code of a live link, to copy it again; the look is audited (the code is not). */
  async code(ctx: ProjectScopedContext, id: number): Promise<{ code: string }> {
    return this.db.transaction(async (tx) => {
      const l = await this.reach(tx, ctx, id);
      if (effectiveStatus(l) !== 'active') throw this.notActive(ctx, l);
      const code = openShareCode(l.codeEnc);
      if (!code) throw new AppError('NOT_FOUND', { entity: 'shareLink' });
      await recordAudit(tx, actorOf(ctx), [
        {
          action: 'ddc.copy',
          entity: 'ddc_share_link',
          entityId: l.id,
          projectId: l.projectId,
          siteId: l.siteId,
          subjectId: l.subjectId,
        },
      ]);
      return { code };
    });
  }

  /** Accepts a participant's answers as they are, at the form version the user saw: the pending review ends. */
  async accept(ctx: ProjectScopedContext, instanceId: number, version: number) {
    return this.db.transaction(async (tx) => {
      const [r] = await tx
        .select({ i: crfInstances })
        .from(crfInstances)
        .innerJoin(subjects, eq(subjects.id, crfInstances.subjectId))
        .where(
          and(
            eq(crfInstances.id, instanceId),
            sql`${crfInstances.deletedAt} is null`,
            this.subjects.scope(ctx),
          ),
        )
        .for('update', { of: crfInstances });
      if (!r) throw new AppError('NOT_FOUND', { entity: 'form' });
      const inst = r.i;
      if (!inst.pendingShareId) throw new AppError('SHARE_NO_PENDING_REVIEW');
      if (inst.version !== version) throw await staleWrite(tx, inst.updatedBy, inst.updatedAt);
      const [after] = await tx
        .update(crfInstances)
        .set({
          pendingShareId: null,
          version: inst.version + 1,
          updatedBy: ctx.user.id,
          updatedAt: new Date(),
        })
        .where(and(eq(crfInstances.id, inst.id), eq(crfInstances.version, inst.version)))
        .returning();
      await endReview(tx, actorOf(ctx), inst.pendingShareId, 'accepted', inst);
      return { id: after!.id, status: after!.status, version: after!.version };
    });
  }
}
