/**
 * Pre-fill (issue 11 item 4; spec §4 new data / merge / ignore, entry modes gather 5 and inject 6, KBMS 4 for a value
 * read from a source document by the OCR association): candidates per
 * form, decisions applied through the eCRF save path (locking, history, reason, audit, certified forms refused),
 * ignore decisions that hide a record version until cleaned, the source record behind a value, and the automatic
 * inject run that fills only empty items.
 */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { z } from 'zod';
import {
  ENTRY_MODE,
  sourceRef,
  visitWindow,
  type FormDefinition,
  type PrefillCandidate,
  type PrefillConfirmResult,
  type PrefillExecuteResult,
  type PrefillFormCount,
  type PrefillVisitRow,
  type SourceRecordView,
  type prefillConfirmRequest,
} from '@esource/shared';
import type { Db, Tx } from '../../db/client';
import { prefillDecisions, sourceRecords, sourceRecordVersions, subjects, subjectUnscheduledVisits, visits, type forms } from '../../db/schema';
import { AppError } from '../../lib/errors';
import { staleWrite } from '../../lib/stale';
import type { ProjectScopedContext } from '../../lib/context';
import { translator } from '../../lib/i18n';
import { actorOf, recordAudit } from '../audit/audit.service';
import { recordBrief } from '../sources/record-brief';
import { SubjectsService } from '../subjects/subjects.service';
import { EcrfService } from '../ecrf/ecrf.service';
import { computeForm, jsonOfColumns, projectZone, rowFromJson, rulesByForm, synonymIndex, type FormCandidates, type ItemCandidate } from './prefill-engine';

type VisitKey = { ptsId: number; visitId: number; unscheduledId: number };
type FormKey = VisitKey & { formId: number; repeatNo: number };

export class PrefillService {
  private readonly subjects: SubjectsService;
  private readonly ecrf: EcrfService;
  constructor(private readonly db: Db) {
    this.subjects = new SubjectsService(db);
    this.ecrf = new EcrfService(db);
  }

  /**
   * The subject (in the caller's scope), the visit of its design version, and (optionally) a form of that visit — one
   * statement (subject row; visit, unscheduled occurrence and the visit's forms as JSON beside it).
   */
  async resolve(db: Db | Tx, ctx: ProjectScopedContext, key: VisitKey & { formId?: number; repeatNo?: number }) {
    const [row] = await db
      .select({
        subject: subjects,
        // table-qualified by hand: Drizzle leaves columns unqualified in a one-table select
        visit: sql<Record<string, unknown> | null>`(select ${jsonOfColumns(visits)} from visits where visits.id = ${key.visitId} and visits.version_id = coalesce(subjects.design_version_id, -1))`,
        unscheduled: sql<number | null>`${key.unscheduledId > 0 ? sql`(select u.id from subject_unscheduled_visits u where u.id = ${key.unscheduledId} and u.subject_id = subjects.id and u.visit_id = ${key.visitId})` : sql`null::int`}`,
        forms: sql<{ id: number; code: string; name: string; nameEn: string | null; definition: unknown }[]>`(select coalesce(json_agg(json_build_object('id', f.id, 'code', f.code, 'name', f.name, 'nameEn', f.name_en, 'definition', f.definition) order by vf.sort_order), '[]'::json)
          from visit_forms vf join forms f on f.id = vf.form_id where vf.visit_id = ${key.visitId})`,
      })
      .from(subjects)
      .where(and(eq(subjects.id, key.ptsId), this.subjects.scope(ctx)));
    if (!row) throw new AppError('NOT_FOUND', { entity: 'subject' });
    const subject = row.subject;
    if (subject.status === 0) throw new AppError('SUBJECT_DELETED');
    const visit = row.visit ? rowFromJson(visits, row.visit) : undefined;
    if (!visit || visit.unscheduled !== key.unscheduledId > 0) throw new AppError('NOT_FOUND', { entity: 'visit' });
    if (key.unscheduledId > 0 && row.unscheduled == null) throw new AppError('NOT_FOUND', { entity: 'visit' });
    const formRows = row.forms.map((f) => ({ ...f, definition: f.definition as (typeof forms.$inferSelect)['definition'] }));
    let form: (typeof formRows)[number] | null = null;
    if (key.formId !== undefined) {
      form = formRows.find((f) => f.id === key.formId) ?? null;
      if (!form) throw new AppError('NOT_FOUND', { entity: 'form' });
      if ((key.repeatNo ?? 1) > 1 && !(form.definition as { cycle?: boolean }).cycle) throw new AppError('NOT_FOUND', { entity: 'form' });
    }
    return { subject, visit, forms: formRows, form };
  }

  private async compute(db: Db | Tx, ctx: ProjectScopedContext, key: FormKey) {
    const r = await this.resolve(db, ctx, key);
    const def = r.form!.definition as unknown as FormDefinition;
    const c = await computeForm(db, { env: ctx.env, projectId: ctx.project.id, subject: r.subject, visit: r.visit, unscheduledId: key.unscheduledId, formId: key.formId, def, repeatNo: key.repeatNo });
    return { ...r, def, c };
  }

  private candidateView(ctx: ProjectScopedContext, it: ItemCandidate): PrefillCandidate {
    const t = translator(ctx.language);
    const e = it.evaluation;
    return {
      variable: it.field.variable,
      label: it.field.label,
      labelEn: it.field.labelEn ?? null,
      type: it.field.type,
      unit: it.field.unit ?? null,
      options: it.field.options ?? [],
      state: it.state,
      problem: it.problem,
      problemMessage: it.problem ? t(`prefill.problem.${it.problem}`) : null,
      problemDetail: e.problemDetail,
      candidateValue: e.value ?? null,
      currentValue: it.currentValue,
      currentEntryMode: it.currentEntryMode,
      currentSourceRef: it.currentSourceRef,
      source: recordBrief(e.record!),
      conversion: e.conversion,
    };
  }

  /** /crf/prefill/execute */
  async execute(ctx: ProjectScopedContext, key: FormKey): Promise<PrefillExecuteResult> {
    const { form, c } = await this.compute(this.db, ctx, key);
    return {
      formId: form!.id,
      formName: form!.name,
      window: c.window,
      instance: c.instance ? { id: c.instance.id, version: c.instance.version, status: c.instance.status } : null,
      candidates: c.items.map((it) => this.candidateView(ctx, it)),
      ignored: c.ignored,
    };
  }

  private counts(c: FormCandidates) {
    return {
      rules: c.rules,
      waiting: c.items.filter((i) => i.state === 'new' || i.state === 'conflict').length,
      problems: c.items.filter((i) => i.state === 'problem').length,
    };
  }

  /** Per form of one visit: rules, waiting candidates, problems (forms without rules are left out). */
  private async formCounts(ctx: ProjectScopedContext, key: VisitKey, r: Awaited<ReturnType<PrefillService['resolve']>>): Promise<PrefillFormCount[]> {
    const byForm = await rulesByForm(this.db, r.forms.map((f) => f.id));
    const syn = await synonymIndex(this.db, ctx.project.id);
    const zone = await projectZone(this.db, ctx.project.id);
    const out: PrefillFormCount[] = [];
    for (const f of r.forms) {
      const rules = byForm.get(f.id);
      if (!rules?.length) continue;
      const c = await computeForm(
        this.db,
        { env: ctx.env, projectId: ctx.project.id, subject: r.subject, visit: r.visit, unscheduledId: key.unscheduledId, formId: f.id, def: f.definition as unknown as FormDefinition, repeatNo: 1 },
        { synonyms: syn, timeZone: zone, rules },
      );
      out.push({ formId: f.id, code: f.code, name: f.name, nameEn: f.nameEn ?? null, ...this.counts(c) });
    }
    return out;
  }

  /** /crf/prefill/instance/listSelectedCrfForm */
  async listForms(ctx: ProjectScopedContext, key: VisitKey): Promise<PrefillFormCount[]> {
    const r = await this.resolve(this.db, ctx, key);
    return this.formCounts(ctx, key, r);
  }

  /** /crf/prefill/visit/list: every visit of the subject (unscheduled ones per occurrence) with its forms' counts. */
  async visits(ctx: ProjectScopedContext, ptsId: number): Promise<PrefillVisitRow[]> {
    const subject = await this.subjects.find(this.db, ctx, ptsId);
    if (!subject.designVersionId) return [];
    const vs = await this.db.select().from(visits).where(eq(visits.versionId, subject.designVersionId)).orderBy(asc(visits.sortOrder), asc(visits.dayOffset));
    const uns = await this.db.select().from(subjectUnscheduledVisits).where(eq(subjectUnscheduledVisits.subjectId, subject.id)).orderBy(asc(subjectUnscheduledVisits.visitDate));
    const out: PrefillVisitRow[] = [];
    const occurrences: { v: (typeof vs)[number]; unscheduledId: number; label: string | null; win: { planned: string; start: string; end: string } | null }[] = [];
    for (const v of vs) {
      if (v.unscheduled) for (const u of uns.filter((x) => x.visitId === v.id)) occurrences.push({ v, unscheduledId: u.id, label: u.label, win: { planned: u.visitDate, start: u.visitDate, end: u.visitDate } });
      else occurrences.push({ v, unscheduledId: 0, label: null, win: subject.firstVisitDate ? visitWindow(subject.firstVisitDate, v) : null });
    }
    for (const o of occurrences) {
      const key = { ptsId, visitId: o.v.id, unscheduledId: o.unscheduledId };
      const formsOf = await this.formCounts(ctx, key, await this.resolve(this.db, ctx, key));
      out.push({
        visitId: o.v.id,
        unscheduledId: o.unscheduledId,
        code: o.v.code,
        name: o.label ? `${o.v.name} · ${o.label}` : o.v.name,
        nameEn: o.v.nameEn ? (o.label ? `${o.v.nameEn} · ${o.label}` : o.v.nameEn) : null,
        unscheduled: o.v.unscheduled,
        planned: o.win?.planned ?? null,
        start: o.win?.start ?? null,
        end: o.win?.end ?? null,
        waiting: formsOf.reduce((n, f) => n + f.waiting, 0),
        forms: formsOf,
      });
    }
    return out;
  }

  /**
   * /crf/prefill/visit/confirm: each decision is checked against the candidate recomputed now (same record and
   * version, no problem); 'new' only into an empty item (or one holding the same value), 'merge' over a different
   * value only with a reason; accepted values go through the eCRF save path with entry mode 5 and their source.
   */
  async confirm(ctx: ProjectScopedContext, input: z.output<typeof prefillConfirmRequest>): Promise<PrefillConfirmResult> {
    const t = translator(ctx.language);
    return this.db.transaction(async (tx) => {
      const { subject, c } = await this.compute(tx, ctx, input);
      const byVar = new Map(c.items.map((i) => [i.field.variable, i]));
      const problems: { field: string; message: string }[] = [];
      const seen = new Set<string>();
      const items: { variable: string; value: unknown; reason?: string }[] = [];
      const refs = new Map<string, string>();
      // a value read from a source document (OCR association) is saved as KBMS 4, the hospital's as gather 5
      const modes = new Map<string, number>();
      const rows: (typeof prefillDecisions.$inferInsert)[] = [];
      for (const d of input.decisions) {
        if (seen.has(d.variable)) {
          problems.push({ field: d.variable, message: t('validation.prefillDuplicateDecision', { variable: d.variable }) });
          continue;
        }
        seen.add(d.variable);
        const it = byVar.get(d.variable);
        const rec = it?.evaluation.record;
        if (!it || !rec || rec.id !== d.sourceRecordId || rec.version !== d.sourceVersion) {
          problems.push({ field: d.variable, message: t('validation.prefillNoCandidate', { variable: d.variable }) });
          continue;
        }
        const row = {
          env: ctx.env,
          projectId: ctx.project.id,
          siteId: subject.siteId,
          subjectId: subject.id,
          visitId: input.visitId,
          unscheduledId: input.unscheduledId,
          formId: input.formId,
          repeatNo: input.repeatNo,
          variable: d.variable,
          sourceRecordId: rec.id,
          sourceVersion: rec.version,
          candidate: { v: it.evaluation.value ?? null, ...(d.reason ? { reason: d.reason } : {}) },
          decision: d.decision,
          userId: ctx.user.id,
        } satisfies typeof prefillDecisions.$inferInsert;
        if (d.decision === 'ignore') {
          rows.push(row);
          continue;
        }
        if (it.problem) {
          problems.push({ field: d.variable, message: t('validation.prefillProblem', { variable: d.variable, message: t(`prefill.problem.${it.problem}`) }) });
          continue;
        }
        if (it.state === 'conflict' && d.decision === 'new') {
          problems.push({ field: d.variable, message: t('validation.prefillNewOverValue', { variable: d.variable }) });
          continue;
        }
        if (it.state === 'conflict' && !d.reason) {
          problems.push({ field: d.variable, message: t('validation.prefillMergeReason', { variable: d.variable }) });
          continue;
        }
        rows.push(row);
        if (it.state === 'same' && it.currentSourceRef === sourceRef(rec.id, rec.version)) continue;
        items.push({ variable: d.variable, value: it.evaluation.value, ...(d.reason ? { reason: d.reason } : {}) });
        refs.set(d.variable, sourceRef(rec.id, rec.version));
        if (rec.rawFormat === 'ocr') modes.set(d.variable, ENTRY_MODE.kbms);
      }
      if (problems.length) {
        throw new AppError('VALIDATION', { detail: t('validation.field', { field: problems[0]!.field, message: problems[0]!.message }) }, problems);
      }
      let instance = c.instance ? { id: c.instance.id, version: c.instance.version, status: c.instance.status } : null;
      if (items.length) {
        const view = await this.ecrf.saveBatch(
          ctx,
          { ptsId: input.ptsId, visitId: input.visitId, formId: input.formId, unscheduledId: input.unscheduledId, repeatNo: input.repeatNo, version: input.version, entryMode: ENTRY_MODE.gather, items },
          { tx, sourceRefs: refs, entryModes: modes },
        );
        instance = view.instance ? { id: view.instance.id, version: view.instance.version, status: view.instance.status } : null;
      } else if (c.instance && input.version !== undefined && input.version !== c.instance.version) {
        throw await staleWrite(tx, c.instance.updatedBy, c.instance.updatedAt);
      }
      if (rows.length) await tx.insert(prefillDecisions).values(rows);
      // one event for the decisions, carrying each item's (as the save's values are one event: issue 16 item 3)
      if (rows.length)
        await recordAudit(tx, actorOf(ctx), [
          {
            action: 'prefill.decision',
            entity: 'crf_instance',
            entityId: instance?.id ?? null,
            projectId: ctx.project.id,
            siteId: subject.siteId,
            subjectId: subject.id,
            changes: rows.map((r) => ({
              field: r.variable,
              newValue: { decision: r.decision, value: r.candidate?.v ?? null, source: sourceRef(r.sourceRecordId, r.sourceVersion) },
              reason: input.decisions.find((d) => d.variable === r.variable)?.reason ?? null,
            })),
          },
        ]);
      return { instance, saved: items.length, ignored: rows.filter((r) => r.decision === 'ignore').length };
    });
  }

  /** /crf/prefill/clean: forget the ignore decisions of a visit (or one form) so the candidates come back. */
  async clean(ctx: ProjectScopedContext, key: VisitKey & { formId?: number }): Promise<{ removed: number }> {
    return this.db.transaction(async (tx) => {
      const { subject } = await this.resolve(tx, ctx, key);
      const gone = await tx
        .delete(prefillDecisions)
        .where(
          and(
            eq(prefillDecisions.subjectId, subject.id),
            eq(prefillDecisions.visitId, key.visitId),
            eq(prefillDecisions.unscheduledId, key.unscheduledId),
            key.formId ? eq(prefillDecisions.formId, key.formId) : undefined,
            eq(prefillDecisions.decision, 'ignore'),
          ),
        )
        .returning({ id: prefillDecisions.id });
      if (gone.length)
        await recordAudit(tx, actorOf(ctx), [
          { action: 'prefill.clean', entity: 'subject', entityId: subject.id, projectId: ctx.project.id, siteId: subject.siteId, subjectId: subject.id, newValue: { visitId: key.visitId, unscheduledId: key.unscheduledId, formId: key.formId ?? null, removed: gone.length } },
        ]);
      return { removed: gone.length };
    });
  }

  /** /crf/prefill/source/record: one source record (a version of it) with its raw payload, in the caller's scope. */
  async record(ctx: ProjectScopedContext, id: number, version?: number): Promise<SourceRecordView> {
    const [r] = await this.db
      .select({ r: sourceRecords, ptsNo: subjects.ptsNo })
      .from(sourceRecords)
      .innerJoin(subjects, eq(subjects.id, sourceRecords.subjectId))
      .where(and(eq(sourceRecords.id, id), eq(sourceRecords.env, ctx.env), eq(sourceRecords.projectId, ctx.project.id), this.subjects.scope(ctx)));
    if (!r) throw new AppError('NOT_FOUND', { entity: 'sourceRecord' });
    const rec = r.r;
    let v = { version: rec.version, valueNum: rec.valueNum, valueText: rec.valueText, unit: rec.unit, effectiveAt: rec.effectiveAt, raw: rec.raw, changeKind: null as string | null, createdAt: rec.updatedAt };
    if (version !== undefined) {
      const [h] = await this.db.select().from(sourceRecordVersions).where(and(eq(sourceRecordVersions.recordId, id), eq(sourceRecordVersions.version, version)));
      if (!h) {
        if (version !== rec.version) throw new AppError('NOT_FOUND', { entity: 'sourceRecord' });
      } else v = { version: h.version, valueNum: h.valueNum, valueText: h.valueText, unit: h.unit, effectiveAt: h.effectiveAt, raw: h.raw, changeKind: h.changeKind, createdAt: h.createdAt };
    }
    return {
      id: rec.id,
      version: v.version,
      latestVersion: rec.version,
      changeKind: v.changeKind,
      docType: rec.docType,
      resourceType: rec.resourceType,
      codeSystem: rec.codeSystem,
      code: rec.code,
      display: rec.display,
      valueNum: v.valueNum,
      valueText: v.valueText,
      unit: v.unit,
      effectiveDate: rec.effectiveDate,
      effectiveAt: v.effectiveAt ? v.effectiveAt.toISOString() : null,
      status: rec.status,
      rawFormat: rec.rawFormat,
      raw: v.raw,
      ptsId: rec.subjectId,
      ptsNo: r.ptsNo,
      siteId: rec.siteId,
      externalId: rec.externalId,
      createTime: v.createdAt.toISOString(),
      sourceFileId: rec.sourceFileId,
      region: rec.region,
    };
  }

  /**
   * Automatic pre-fill (entry mode inject 6) of one subject visit: every form with rules, only EMPTY items with a
   * candidate and no problem; nothing is overwritten. Certified forms are skipped. Returns per form what was filled
   * or why it failed. `ctx` is the acting context (a job builds one for the schedule's owner).
   */
  async prefillSubjectVisit(ctx: ProjectScopedContext, subjectId: number, visitId: number, mode: 'inject', unscheduledId = 0): Promise<{ filled: number; failures: { formId: number; message: string }[] }> {
    const key = { ptsId: subjectId, visitId, unscheduledId };
    const r = await this.resolve(this.db, ctx, key);
    const byForm = await rulesByForm(this.db, r.forms.map((f) => f.id));
    let filled = 0;
    const failures: { formId: number; message: string }[] = [];
    for (const f of r.forms) {
      if (!byForm.get(f.id)?.length) continue;
      try {
        filled += await this.db.transaction(async (tx) => {
          const def = f.definition as unknown as FormDefinition;
          const c = await computeForm(tx, { env: ctx.env, projectId: ctx.project.id, subject: r.subject, visit: r.visit, unscheduledId, formId: f.id, def, repeatNo: 1 });
          if (c.instance?.status === 3) return 0;
          // a value read from a source document is a proposal a person accepts (KBMS 4), never injected
          const fresh = c.items.filter((i) => i.state === 'new' && i.evaluation.record!.rawFormat !== 'ocr');
          if (fresh.length === 0) return 0;
          const refs = new Map(fresh.map((i) => [i.field.variable, sourceRef(i.evaluation.record!.id, i.evaluation.record!.version)]));
          await this.ecrf.saveBatch(
            ctx,
            { ptsId: subjectId, visitId, formId: f.id, unscheduledId, repeatNo: 1, version: c.instance?.version, entryMode: ENTRY_MODE.inject, items: fresh.map((i) => ({ variable: i.field.variable, value: i.evaluation.value })) },
            { tx, sourceRefs: refs },
          );
          await tx.insert(prefillDecisions).values(
            fresh.map((i) => ({
              env: ctx.env,
              projectId: ctx.project.id,
              siteId: r.subject.siteId,
              subjectId,
              visitId,
              unscheduledId,
              formId: f.id,
              repeatNo: 1,
              variable: i.field.variable,
              sourceRecordId: i.evaluation.record!.id,
              sourceVersion: i.evaluation.record!.version,
              candidate: { v: i.evaluation.value ?? null },
              decision: 'inject' as const,
              userId: ctx.user.id,
            })),
          );
          return fresh.length;
        });
      } catch (e) {
        if (!(e instanceof AppError)) console.error('[prefill inject]', e);
        failures.push({ formId: f.id, message: translator(ctx.language)(e instanceof AppError ? `errors.${e.code}` : 'errors.INTERNAL', e instanceof AppError ? e.params : undefined) });
      }
    }
    return { filled, failures };
  }

  /** Subjects (live, with a first visit) of a project environment and their scheduled visits whose window holds `day`. */
  async subjectVisitsInWindow(env: string, projectId: number, day: string): Promise<{ subjectId: number; siteId: number; visitId: number }[]> {
    const rows = await this.db
      .select({ id: subjects.id, siteId: subjects.siteId, first: subjects.firstVisitDate, versionId: subjects.designVersionId })
      .from(subjects)
      .where(and(eq(subjects.projectId, projectId), eq(subjects.env, env), sql`${subjects.status} <> 0`, sql`${subjects.firstVisitDate} is not null`));
    const versionIds = [...new Set(rows.map((r) => r.versionId).filter((v): v is number => v !== null))];
    if (versionIds.length === 0) return [];
    const vs = await this.db.select().from(visits).where(and(inArray(visits.versionId, versionIds), eq(visits.unscheduled, false)));
    const out: { subjectId: number; siteId: number; visitId: number }[] = [];
    for (const s of rows)
      for (const v of vs.filter((x) => x.versionId === s.versionId)) {
        const w = visitWindow(s.first, v);
        if (day >= w.start && day <= w.end) out.push({ subjectId: s.id, siteId: s.siteId, visitId: v.id });
      }
    return out;
  }
}
