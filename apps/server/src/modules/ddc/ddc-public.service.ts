/**
 * Shared forms, the participant's side (issue 15 item 6; /s/{code}): no account, no session. A code opens one form of
 * one subject's visit until the link expires, is revoked or is used; the submit saves the answers through the eCRF's
 * own save (EcrfService.saveBatch: the form's rules checked on the server, optimistic locking, history, audit) with
 * entry mode participant (7) and the link as the values' source, and consumes the link in the same transaction, so
 * that of two submits one wins. Every open, submit and refusal is audited (a refusal in a transaction of its own,
 * after the refused one rolled back). The page shows only what the project's micro CRF settings allow, never the
 * subject's identifiers.
 */
import { and, eq, isNull, sql } from 'drizzle-orm';
import {
  CRF_STATUS,
  ENTRY_MODE,
  formFields,
  maskSubjectNo,
  PROJECT_STATUS,
  SUBJECT_STATUS,
  type FormDefinition,
  type SharePublicView,
  type sharePublicSubmit,
} from '@esource/shared';
import type { z } from 'zod';
import type { Db, Tx } from '../../db/client';
import { crfInstances, ddcShareLinks, forms, projects, sites, subjects, visits } from '../../db/schema';
import { AppError } from '../../lib/errors';
import type { ProjectScopedContext, RequestContext } from '../../lib/context';
import { translator } from '../../lib/i18n';
import { recordAudit, type AuditActor } from '../audit/audit.service';
import { EcrfService } from '../ecrf/ecrf.service';
import { effectiveStatus, timeIn } from './ddc.service';
import { microSettings } from './micro-config.service';
import { shareCodeHash } from './share-code';

type Loaded = NonNullable<Awaited<ReturnType<DdcPublicService['load']>>>;

/** The audit actor of a participant: no user, the request's address and id. */
function participantActor(rctx: RequestContext, env: string | null): AuditActor {
  return { userId: null, userName: 'participant', requestId: rctx.requestId, ip: rctx.ip, env };
}

export class DdcPublicService {
  private readonly ecrf: EcrfService;
  constructor(private readonly db: Db) {
    this.ecrf = new EcrfService(db);
  }

  /** The link of a code with what the page needs; locked for the submit. Null for an unknown or malformed code. */
  private async load(db: Db | Tx, code: string, lock: boolean) {
    const hash = shareCodeHash(code);
    if (!hash) return null;
    const q = db
      .select({
        l: ddcShareLinks,
        subject: subjects,
        project: projects,
        siteName: sites.name,
        visit: visits,
        form: forms,
      })
      .from(ddcShareLinks)
      .innerJoin(subjects, eq(subjects.id, ddcShareLinks.subjectId))
      .innerJoin(projects, eq(projects.id, ddcShareLinks.projectId))
      .innerJoin(sites, eq(sites.id, subjects.siteId))
      .innerJoin(visits, eq(visits.id, ddcShareLinks.visitId))
      .innerJoin(forms, eq(forms.id, ddcShareLinks.formId))
      .where(eq(ddcShareLinks.codeHash, hash));
    const [r] = lock ? await q.for('update', { of: ddcShareLinks }) : await q;
    return r ?? null;
  }

  private async instanceOf(db: Db | Tx, l: Loaded['l']) {
    const [i] = await db
      .select()
      .from(crfInstances)
      .where(
        and(
          eq(crfInstances.subjectId, l.subjectId),
          eq(crfInstances.visitId, l.visitId),
          eq(crfInstances.unscheduledId, l.unscheduledId),
          eq(crfInstances.formId, l.formId),
          eq(crfInstances.repeatNo, l.repeatNo),
          isNull(crfInstances.deletedAt),
        ),
      );
    return i ?? null;
  }

  /** Why the link cannot be used now, or null. */
  private async refusal(db: Db | Tx, r: Loaded): Promise<AppError | null> {
    const status = effectiveStatus(r.l);
    if (status === 'revoked') return new AppError('SHARE_REVOKED');
    if (status === 'used') return new AppError('SHARE_USED');
    if (status === 'expired')
      return new AppError('SHARE_EXPIRED', { time: timeIn(r.l.expiresAt, r.project.timezone) });
    if (
      r.project.status === PROJECT_STATUS.closed ||
      r.project.deletedAt ||
      r.subject.status === SUBJECT_STATUS.deleted
    )
      return new AppError('SHARE_FORM_CLOSED');
    const inst = await this.instanceOf(db, r.l);
    if (inst && inst.status >= CRF_STATUS.completed) return new AppError('SHARE_FORM_CLOSED');
    return null;
  }

  /** Records a refused open or submit (its own transaction: the refused one wrote nothing). */
  private async auditRefusal(
    rctx: RequestContext,
    r: Loaded | null,
    step: 'open' | 'submit',
    e: AppError,
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      await recordAudit(tx, participantActor(rctx, r?.l.env ?? null), [
        {
          action: 'ddc.refused',
          entity: 'ddc_share_link',
          entityId: r?.l.id ?? null,
          projectId: r?.l.projectId ?? null,
          siteId: r?.subject.siteId ?? null,
          subjectId: r?.l.subjectId ?? null,
          field: step,
          // the reason and, for refused answers, which items (never the answers, never the code)
          newValue: { error: e.code, ...(e.detail?.length ? { items: e.detail.map((d) => d.field) } : {}) },
        },
      ]);
    });
  }

  async open(rctx: RequestContext, code: string): Promise<SharePublicView> {
    const r = await this.load(this.db, code, false);
    try {
      if (!r) throw new AppError('SHARE_NOT_FOUND');
      const refused = await this.refusal(this.db, r);
      if (refused) throw refused;
    } catch (e) {
      if (e instanceof AppError) await this.auditRefusal(rctx, r, 'open', e);
      throw e;
    }
    const s = { projectId: r.l.projectId, env: r.l.env };
    const crf = await microSettings(this.db, s, 'crf');
    await this.db.transaction(async (tx) => {
      await tx
        .update(ddcShareLinks)
        .set({ openCount: sql`${ddcShareLinks.openCount} + 1`, lastOpenedAt: new Date() })
        .where(eq(ddcShareLinks.id, r.l.id));
      await recordAudit(tx, participantActor(rctx, r.l.env), [
        {
          action: 'ddc.open',
          entity: 'ddc_share_link',
          entityId: r.l.id,
          projectId: r.l.projectId,
          siteId: r.subject.siteId,
          subjectId: r.l.subjectId,
        },
      ]);
    });
    const def = r.form.definition as unknown as FormDefinition;
    return {
      formName: r.form.name,
      formNameEn: r.form.nameEn ?? def.nameEn ?? null,
      definition: def,
      projectName: crf.showProjectName ? r.project.name : null,
      siteName: crf.showSiteName ? r.siteName : null,
      subjectNo:
        crf.subjectNo === 'full'
          ? r.subject.ptsNo
          : crf.subjectNo === 'masked'
            ? maskSubjectNo(r.subject.ptsNo)
            : null,
      visitName: crf.showVisitName ? r.visit.name : null,
      visitNameEn: crf.showVisitName ? r.visit.nameEn : null,
      welcomeZh: crf.welcomeZh,
      welcomeEn: crf.welcomeEn,
      language: crf.language,
      languageSwitch: crf.languageSwitch,
      expiresAt: r.l.expiresAt.toISOString(),
    };
  }

  async submit(
    rctx: RequestContext,
    input: z.output<typeof sharePublicSubmit>,
  ): Promise<{ submittedAt: string }> {
    let seen: Loaded | null = null;
    try {
      return await this.db.transaction(async (tx) => {
        // the link row is locked until this transaction ends: a second submit waits, then finds it used
        const r = await this.load(tx, input.code, true);
        seen = r;
        if (!r) throw new AppError('SHARE_NOT_FOUND');
        const refused = await this.refusal(tx, r);
        if (refused) throw refused;
        const l = r.l;
        const t = translator(rctx.language);
        const def = r.form.definition as unknown as FormDefinition;
        // what the participant may answer: the items the page shows (not hidden, read-only, disabled, or files)
        const fields = formFields(def.components);
        const open = new Set(
          fields
            .filter((f) => !f.hidden && !f.readOnly && !f.disabled && f.type !== 'file')
            .map((f) => f.variable),
        );
        const known = new Set(fields.map((f) => f.variable));
        const sent = new Map(input.items.map((i) => [i.variable, i.value]));
        const closed = [...sent.keys()].filter((v) => known.has(v) && !open.has(v));
        if (closed.length) {
          const detail = closed.map((field) => ({ field, message: t('validation.readOnlyItem') }));
          throw new AppError(
            'VALIDATION',
            { detail: t('validation.field', { field: closed[0], message: detail[0]!.message }) },
            detail,
          );
        }
        // the answers are the form: every item the participant could answer is sent (unanswered = empty), so that a
        // draft's values they never saw do not complete it; an unknown item is refused by the save
        const items = [
          ...[...open].map((variable) => ({
            variable,
            value: sent.has(variable) ? sent.get(variable) : null,
          })),
          ...[...sent].filter(([v]) => !known.has(v)).map(([variable, value]) => ({ variable, value })),
        ];
        const inst = await this.instanceOf(tx, l);
        const actor = participantActor(rctx, l.env);
        const ctx: ProjectScopedContext = {
          ...rctx,
          // the save reads no user for a participant's submit (its `participant` option): this one is never written
          user: { id: 0, account: 'participant', name: 'participant', orgId: null, systemRoleId: null },
          sessionId: 0,
          loginType: 3,
          env: l.env as ProjectScopedContext['env'],
          project: {
            id: l.projectId,
            no: r.project.no,
            name: r.project.name,
            status: r.project.status,
            memberId: 0,
            roleId: 0,
            roleCode: 'participant',
            isDm: false,
            siteIds: [r.subject.siteId],
          },
          siteId: r.subject.siteId,
          pms: new Set(),
          systemPms: new Set(),
        };
        const view = await this.ecrf.saveBatch(
          ctx,
          {
            ptsId: l.subjectId,
            visitId: l.visitId,
            formId: l.formId,
            unscheduledId: l.unscheduledId,
            repeatNo: l.repeatNo,
            ...(inst ? { version: inst.version } : {}),
            entryMode: ENTRY_MODE.participant,
            items,
          },
          { tx, participant: { shareId: l.id, actor, reason: t('ddc.participantReason', { id: l.id }) } },
        );
        const now = new Date();
        await tx
          .update(ddcShareLinks)
          .set({ status: 'used', usedAt: now, instanceId: view.instance!.id, review: 'pending' })
          .where(and(eq(ddcShareLinks.id, l.id), eq(ddcShareLinks.status, 'active')));
        await recordAudit(tx, actor, [
          {
            action: 'ddc.submit',
            entity: 'ddc_share_link',
            entityId: l.id,
            projectId: l.projectId,
            siteId: r.subject.siteId,
            subjectId: l.subjectId,
            field: 'status',
            oldValue: 'active',
            newValue: 'used',
          },
        ]);
        return { submittedAt: now.toISOString() };
      });
    } catch (e) {
      if (e instanceof AppError) await this.auditRefusal(rctx, seen, 'submit', e);
      throw e;
    }
  }
}
