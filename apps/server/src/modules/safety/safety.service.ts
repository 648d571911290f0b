/**
 * Safety review (issue 13 items 3, 4): candidates for AE / CM / PR / MH / HISS judgement, generated from a subject's
 * source records and flagged eCRF values (generate.ts), listed per category and state, judged yes or no by a reviewer
 * (clinical:judge:update) at the version they saw — a candidate someone else judged meanwhile is refused naming
 * them — and a "yes" written into the category's log form through the eCRF's normal save path (entry mode gather,
 * the source record linked), in the judgement's transaction. A changed judgement needs a reason and updates the
 * record (yes → no removes the record's repeat, with the reason). Every step audited.
 */
import { createHash } from 'node:crypto';
import { and, asc, count, desc, eq, ilike, inArray, isNull, max, ne, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import {
  CANDIDATE_STATUS,
  CM_LOOKBACK_DAYS,
  CRF_STATUS,
  ENTRY_MODE,
  PROGRESS_STATUS,
  PROGRESS_TYPE,
  SAFETY_CATEGORIES,
  SAFETY_DICTIONARY,
  SAFETY_FIELDS,
  dateMeaning,
  formFields,
  sourceRef,
  type CandidateSource,
  type CandidateView,
  type Env,
  type FormDefinition,
  type GenerateResult,
  type GenerateStatus,
  type SafetyCategory,
  type MedicationSubjectRow,
  type candidateLinkRequest,
  type medicationSubjectsRequest,
  type candidateListRequest,
  type judgeRequest,
} from '@esource/shared';
import { LAB_GRADER_VERSION } from '@esource/interop';
import type { Db, Tx } from '../../db/client';
import { crfInstances, crfValues, forms, progressItems, safetyCandidateSources, safetyCandidates, safetyGeneration, safetyJudgements, sites, sourceRecords, subjects, users, visits } from '../../db/schema';
import type { ProjectScopedContext } from '../../lib/context';
import { AppError } from '../../lib/errors';
import { translator } from '../../lib/i18n';
import { offsetOf, pageOf } from '../../lib/page';
import { siteScope } from '../../lib/site-scope';
import { likeOf, rowsOf } from '../../lib/sql';
import { fieldError, parseInput } from '../../lib/validate';
import { actorOf, recordAudit } from '../audit/audit.service';
import { EcrfService } from '../ecrf/ecrf.service';
import type { JobRunner } from '../jobs/job-runner';
import { regradeLabs, storedOrGraded } from '../sources/lab-assessment';
import { bestTerms } from './coding';
import { findLogForm, logItems, placeFor, type DesignForm } from './log-form';
import { addDays, generateCandidates, type GenFlaggedValue, type GenRecord } from './generate';

type Row = typeof safetyCandidates.$inferSelect;
const S = CANDIDATE_STATUS;
/**
 * The columns of a source record `r` the generator reads, as plain rows named like GenRecord (issue 13: drizzle's
 * per-column mapping of 10,000 rows cost as much as the statement itself). Ids as float8 (exact below 2^53) and the
 * date as text read the same on both drivers; a FHIR result without a reference range needs no payload (the grader
 * falls back to the analyte's range).
 */
const GEN_COLUMNS = sql`r.id::float8 as "id", r.version, r.doc_type::int as "docType", r.resource_type as "resourceType", r.code,
  r.code_system as "codeSystem", r.display, r.value_num as "valueNum", r.value_text as "valueText", r.unit,
  r.effective_date::text as "effectiveDate", r.status, r.raw_format as "rawFormat"`;
export const GEN_RECORD_SELECT = sql`${GEN_COLUMNS},
  case when r.doc_type = 3 and r.raw_format = 'fhir' and strpos(r.raw, 'referenceRange') = 0 and strpos(r.raw, 'interpretation') = 0
       then '{}' else r.raw end as "raw"`;
/**
 * The records one subject's generation reads, in one statement: every diagnosis and procedure (before consent they
 * are history), medications from the look-back window on, and of the lab results from consent on (earlier ones are
 * baseline) only those an episode is made of: the out-of-range ones, and the first result after one (it may end the
 * episode), by the assessment stored with each (regradeLabs first when one is stale). A result in range after
 * another in range changes nothing, so a subject's thousands of normal results stay in the database.
 */
export function generationRecords(s: { id: number; env: string }, consent: string): SQL {
  // the window reads the index source_records_subject_lab alone (migration 0053: analyte, date, id, out); the rows
  // it keeps are then read by id (an array, so that the plan is a primary key lookup whatever the estimates)
  return sql`with labs as (
      select r.id, r.lab_out as out, lag(r.lab_out) over (partition by r.lab_analyte order by r.effective_date, r.id) as prev_out
      from ${sourceRecords} r
      where r.subject_id = ${s.id} and r.doc_type = 3 and r.deleted_at is null and r.lab_analyte is not null
        and r.effective_date >= ${consent}::date
    )
    select ${GEN_LAB_SELECT} from ${sourceRecords} r
    where r.id = any(array(select id from labs where out or prev_out)) and r.env = ${s.env}
    union all
    select ${GEN_RECORD_SELECT}, null::jsonb as "lab" from ${sourceRecords} r
    where r.subject_id = ${s.id} and r.env = ${s.env} and r.deleted_at is null
      and (r.doc_type in (6, 8) or (r.doc_type = 4 and r.effective_date >= ${addDays(consent, -CM_LOOKBACK_DAYS)}::date))`;
}
/** a lab result's columns for the generator: its stored assessment instead of its payload */
const GEN_LAB_SELECT = sql`${GEN_COLUMNS}, '{}' as "raw", r.lab as "lab"`;
/** subjects generated per statement batch when a whole project is generated */
const GENERATE_BATCH = 200;
export const SAFETY_GENERATE_JOB = 'safety.generate';

/** the subjects a generation covers: the caller's project, environment and sites, or one subject */
export interface GenerateScope {
  projectId: number;
  env: Env;
  siteIds: number[] | null;
  siteId: number | null;
  ptsId: number | null;
}
interface GenerateJobData {
  scope: GenerateScope;
  userId: number;
  userName: string;
}
/** candidates per insert statement */
const INSERT_BATCH = 200;
/** bump when the generator's rules change: every subject is generated again on its next run */
const GENERATOR_VERSION = 1;

export class SafetyService {
  private readonly ecrf: EcrfService;
  constructor(private readonly db: Db) {
    this.ecrf = new EcrfService(db);
  }

  /** The caller's candidates: project, environment, sites, live subjects. The query must join subjects. */
  scope(ctx: ProjectScopedContext): SQL {
    return and(eq(safetyCandidates.projectId, ctx.project.id), eq(safetyCandidates.env, ctx.env), siteScope(safetyCandidates.siteId, ctx), ne(subjects.status, 0))!;
  }

  // ── generation ──

  /** The day of informed consent: an eCRF consent date item's value, else the subject's first visit date. */
  private async consentDate(db: Db | Tx, s: typeof subjects.$inferSelect): Promise<string> {
    if (!s.designVersionId) return s.firstVisitDate;
    const fs = await db.select({ id: forms.id, definition: forms.definition }).from(forms).where(eq(forms.versionId, s.designVersionId));
    const vars = new Set<string>();
    for (const f of fs) for (const c of formFields((f.definition as unknown as FormDefinition).components)) if (c.type === 'date' && dateMeaning(c) === 'consent') vars.add(c.variable);
    if (!vars.size) return s.firstVisitDate;
    const [v] = await db
      .select({ value: crfValues.value })
      .from(crfValues)
      .innerJoin(crfInstances, eq(crfInstances.id, crfValues.instanceId))
      .where(and(eq(crfInstances.subjectId, s.id), isNull(crfInstances.deletedAt), inArray(crfValues.variable, [...vars])))
      .limit(1);
    const d = v?.value?.v;
    return typeof d === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(d) ? d : s.firstVisitDate;
  }

  /** eCRF number items saved outside their soft range (quality 'range'), with the form's name and the visit date. */
  private async flaggedValues(db: Db | Tx, subjectId: number): Promise<GenFlaggedValue[]> {
    const rows = await db
      .select({ instanceId: crfValues.instanceId, variable: crfValues.variable, value: crfValues.value, definition: forms.definition, formName: forms.name, date: sql<string | null>`to_char(${crfValues.updatedAt}, 'YYYY-MM-DD')` })
      .from(crfValues)
      .innerJoin(crfInstances, eq(crfInstances.id, crfValues.instanceId))
      .innerJoin(forms, eq(forms.id, crfInstances.formId))
      .where(and(eq(crfInstances.subjectId, subjectId), isNull(crfInstances.deletedAt), eq(crfValues.quality, 'range')));
    const out: GenFlaggedValue[] = [];
    for (const r of rows) {
      const def = r.definition as unknown as FormDefinition;
      if (def.cycle) continue;
      const f = formFields(def.components).find((c) => c.variable === r.variable);
      const n = r.value?.v;
      if (!f || f.type !== 'number' || typeof n !== 'number') continue;
      out.push({ instanceId: r.instanceId, variable: r.variable, label: f.labelEn ?? f.label, formName: r.formName, value: n, unit: f.unit ?? null, date: r.date });
    }
    return out;
  }

  /**
   * What the subject's candidates depend on: its live lab, order, procedure and diagnosis records (count, versions,
   * newest id), its flagged eCRF values and its consent date, and the versions of the generator and the lab grader.
   * With it, how many of its lab results have no assessment from the current grader (`stale`; read in the same pass).
   * An index-only scan of source_records_subject (migration 0053); a subject's records are all of its environment.
   */
  private async fingerprint(db: Db | Tx, s: typeof subjects.$inferSelect, consent: string): Promise<{ print: string; stale: number }> {
    const [r] = rowsOf<{ n: number | string; v: number | string | null; m: number | string | null; stale: number | string }>(
      await db.execute(sql`select count(*) as n, sum(version) as v, max(id) as m,
          count(*) filter (where doc_type = 3 and lab_graded is distinct from ${LAB_GRADER_VERSION}::smallint) as stale
        from source_records where subject_id = ${s.id} and deleted_at is null and doc_type in (3, 4, 6, 8)`),
    );
    const [f] = rowsOf<{ n: number | string; t: string | null }>(
      await db.execute(sql`select count(*) as n, max(v.updated_at)::text as t from crf_values v join crf_instances i on i.id = v.instance_id
        where i.subject_id = ${s.id} and i.deleted_at is null and v.quality = 'range'`),
    );
    const print = createHash('sha256')
      .update(`${GENERATOR_VERSION}|${LAB_GRADER_VERSION}|${consent}|${r?.n}|${r?.v}|${r?.m}|${f?.n}|${f?.t}`)
      .digest('hex');
    return { print, stale: Number(r?.stale ?? 0) };
  }

  /**
   * (Re)generates one subject's candidates in one transaction: new ones are added, changed ones still to judge are
   * updated, those no longer found and still to judge are removed; a judged one whose content changed is marked
   * source-changed (its judgement stays until a reviewer judges again). Skipped when nothing it depends on changed
   * since the last run (unless `force`).
   */
  async generateForSubject(subjectId: number, opts: { force?: boolean } = {}): Promise<GenerateResult> {
    const out: GenerateResult = { subjects: 1, created: 0, updated: 0, removed: 0, sourceChanged: 0 };
    await this.db.transaction(async (tx) => {
      const [s] = await tx.select().from(subjects).where(eq(subjects.id, subjectId));
      if (!s) return;
      // one subject's generation at a time (the extraction's hook and a reviewer's button may meet)
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`safety:${subjectId}`}))`);
      const consent = await this.consentDate(tx, s);
      const { print, stale } = await this.fingerprint(tx, s, consent);
      const [last] = await tx.select().from(safetyGeneration).where(eq(safetyGeneration.subjectId, subjectId));
      if (!opts.force && last?.fingerprint === print) return;
      if (stale > 0) await regradeLabs(tx, s);
      const records = rowsOf<GenRecord>(await tx.execute(generationRecords(s, consent)));
      const generated = generateCandidates(records, consent, await this.flaggedValues(tx, subjectId));
      // plain rows: a subject may hold a thousand candidates, and a mapped row costs as much as the statement
      const existing = rowsOf<Pick<Row, 'id' | 'category' | 'key' | 'contentHash' | 'status' | 'version' | 'sourceChanged'>>(
        await tx.execute(sql`select id::float8 as "id", category, key, content_hash as "contentHash", status, version, source_changed as "sourceChanged"
          from ${safetyCandidates} where subject_id = ${subjectId}`),
      );
      const byKey = new Map(existing.map((c) => [`${c.category}|${c.key}`, c]));
      const valuesOf = (g: (typeof generated)[number]) => ({
        origin: g.origin,
        term: g.term,
        code: g.code,
        codeSystem: g.codeSystem,
        startDate: g.startDate,
        endDate: g.endDate,
        grade: g.grade,
        detail: g.detail,
        contentHash: g.contentHash,
      });
      const fresh = generated.filter((g) => !byKey.has(`${g.category}|${g.key}`));
      if (fresh.length) {
        // the dictionary term each new candidate's code (else its name) matches, one query per dictionary
        const suggestions = new Map<string, { code: string; term: string }>();
        for (const kind of ['diagnosis', 'drug', 'surgery'] as const) {
          const mine = fresh.filter((g) => SAFETY_DICTIONARY[g.category] === kind);
          const texts = mine.flatMap((g) => [g.code ?? '', g.detail.ctcaeTerm?.en ?? g.term]).filter(Boolean);
          const found = await bestTerms(tx, kind, texts);
          for (const g of mine) {
            const hit = (g.code ? found.get(g.code) : undefined) ?? found.get(g.detail.ctcaeTerm?.en ?? g.term);
            if (hit) suggestions.set(`${g.category}|${g.key}`, hit);
          }
        }
        for (let i = 0; i < fresh.length; i += INSERT_BATCH) {
          const batch = fresh.slice(i, i + INSERT_BATCH);
          const ids = await tx
            .insert(safetyCandidates)
            .values(batch.map((g) => ({ env: s.env, projectId: s.projectId, siteId: s.siteId, subjectId, category: g.category, key: g.key, ...valuesOf(g), suggested: suggestions.get(`${g.category}|${g.key}`) ?? null })))
            .onConflictDoNothing()
            .returning({ id: safetyCandidates.id, category: safetyCandidates.category, key: safetyCandidates.key });
          const idOf = new Map(ids.map((r) => [`${r.category}|${r.key}`, r.id]));
          const links = batch.flatMap((g) => {
            const id = idOf.get(`${g.category}|${g.key}`);
            return id === undefined ? [] : g.recordIds.map((r) => ({ candidateId: id, recordId: r }));
          });
          for (let j = 0; j < links.length; j += INSERT_BATCH * 4) await tx.insert(safetyCandidateSources).values(links.slice(j, j + INSERT_BATCH * 4)).onConflictDoNothing();
          out.created += ids.length;
        }
      }
      const seen = new Set<number>();
      for (const g of generated) {
        const old = byKey.get(`${g.category}|${g.key}`);
        if (!old) continue;
        seen.add(old.id);
        if (old.contentHash === g.contentHash) continue;
        const judged = old.status !== S.toJudge;
        await tx
          .update(safetyCandidates)
          .set({ ...valuesOf(g), ...(judged ? { sourceChanged: true } : {}), version: old.version + 1, updatedAt: new Date() })
          .where(eq(safetyCandidates.id, old.id));
        if (judged) out.sourceChanged++;
        else out.updated++;
        await tx.delete(safetyCandidateSources).where(and(eq(safetyCandidateSources.candidateId, old.id), eq(safetyCandidateSources.link, 'generated')));
        if (g.recordIds.length) await tx.insert(safetyCandidateSources).values(g.recordIds.map((r) => ({ candidateId: old.id, recordId: r }))).onConflictDoNothing();
      }
      const gone = existing.filter((c) => !seen.has(c.id));
      const removable = gone.filter((c) => c.status === S.toJudge).map((c) => c.id);
      if (removable.length) {
        await tx.delete(safetyCandidates).where(inArray(safetyCandidates.id, removable));
        out.removed += removable.length;
      }
      const orphaned = gone.filter((c) => c.status !== S.toJudge && !c.sourceChanged).map((c) => c.id);
      if (orphaned.length) {
        await tx.update(safetyCandidates).set({ sourceChanged: true, updatedAt: new Date() }).where(inArray(safetyCandidates.id, orphaned));
        out.sourceChanged += orphaned.length;
      }
      await tx
        .insert(safetyGeneration)
        .values({ subjectId, fingerprint: print })
        .onConflictDoUpdate({ target: safetyGeneration.subjectId, set: { fingerprint: print, generatedAt: new Date() } });
    });
    return out;
  }

  /**
   * POST /selection/generate: one subject, or every live subject the caller reaches. Up to `syncMax` subjects
   * (config SAFETY_GENERATE_SYNC_MAX) are generated in the request; more go to the `safety.generate` job (progress
   * item, done/total), and the answer says queued with the progress item to poll (GET /selection/generate/status).
   */
  async generate(ctx: ProjectScopedContext, ptsId: number | undefined, queue?: { jobs: JobRunner; syncMax: number }): Promise<GenerateResult> {
    const scope: GenerateScope = { projectId: ctx.project.id, env: ctx.env, siteIds: ctx.project.siteIds, siteId: ctx.siteId, ptsId: ptsId ?? null };
    if (ptsId !== undefined && !(await this.scopeIds(scope)).length) throw new AppError('NOT_FOUND', { entity: 'subject' });
    const jobs = queue?.jobs;
    if (ptsId === undefined && jobs?.started) {
      const [n] = await this.db.select({ n: count() }).from(subjects).where(this.scopeWhere(scope));
      if ((n?.n ?? 0) > queue!.syncMax) {
        const t = translator(ctx.language);
        const r = await jobs.enqueue(SAFETY_GENERATE_JOB, { scope, userId: ctx.user.id, userName: ctx.user.name } satisfies GenerateJobData, {
          progress: { userId: ctx.user.id, env: ctx.env, projectId: ctx.project.id, siteId: ctx.siteId, type: PROGRESS_TYPE.extraction, displayInformation: t('safety.generate.progress') },
        });
        return { subjects: n!.n, created: 0, updated: 0, removed: 0, sourceChanged: 0, queued: true, progressId: r.progressItemId };
      }
    }
    const total = await this.generateScope(scope);
    await this.db.transaction((tx) =>
      recordAudit(tx, actorOf(ctx), [{ action: 'safety.generate', entity: 'safetyCandidate', entityId: null, projectId: ctx.project.id, subjectId: ptsId ?? null, newValue: total }]),
    );
    return total;
  }

  /** GET /selection/generate/status: the caller's own queued generation (another user's progress item is not found). */
  async generateStatus(ctx: ProjectScopedContext, id: number): Promise<GenerateStatus> {
    const [p] = await this.db
      .select({ status: progressItems.status, extraInfo: progressItems.extraInfo })
      .from(progressItems)
      .where(and(eq(progressItems.id, id), eq(progressItems.userId, ctx.user.id), eq(progressItems.projectId, ctx.project.id), eq(progressItems.env, ctx.env)));
    if (!p) throw new AppError('NOT_FOUND', { entity: 'progress' });
    const c = p.extraInfo?.count ?? { done: 0, total: 0 };
    const status = p.status === PROGRESS_STATUS.success ? 'success' : p.status === PROGRESS_STATUS.error ? 'error' : 'processing';
    return { status, done: c.done, total: c.total };
  }

  private scopeWhere(s: GenerateScope): SQL {
    const sites = and(s.siteIds === null ? undefined : inArray(subjects.siteId, s.siteIds.length ? s.siteIds : [-1]), s.siteId !== null ? eq(subjects.siteId, s.siteId) : undefined);
    return and(eq(subjects.projectId, s.projectId), eq(subjects.env, s.env), sites, ne(subjects.status, 0), s.ptsId !== null ? eq(subjects.id, s.ptsId) : undefined)!;
  }

  private async scopeIds(s: GenerateScope): Promise<number[]> {
    return (await this.db.select({ id: subjects.id }).from(subjects).where(this.scopeWhere(s)).orderBy(asc(subjects.id))).map((r) => r.id);
  }

  /** Generates every subject of a scope, one transaction each (a subject whose data did not change is skipped). */
  async generateScope(scope: GenerateScope, report?: (done: number, total: number) => Promise<void>): Promise<GenerateResult> {
    const ids = await this.scopeIds(scope);
    const total: GenerateResult = { subjects: 0, created: 0, updated: 0, removed: 0, sourceChanged: 0 };
    for (let i = 0; i < ids.length; i += GENERATE_BATCH) {
      for (const id of ids.slice(i, i + GENERATE_BATCH)) {
        const r = await this.generateForSubject(id);
        total.subjects++;
        total.created += r.created;
        total.updated += r.updated;
        total.removed += r.removed;
        total.sourceChanged += r.sourceChanged;
      }
      await report?.(Math.min(i + GENERATE_BATCH, ids.length), ids.length);
    }
    return total;
  }

  // ── lists ──

  private select(db: Db | Tx) {
    return db
      .select({
        c: safetyCandidates,
        ptsNo: subjects.ptsNo,
        designVersionId: subjects.designVersionId,
        siteName: sites.name,
        judgedBy: users.name,
        sources: sql<number>`(select count(*) from ${safetyCandidateSources} where ${safetyCandidateSources.candidateId} = ${safetyCandidates.id})`.mapWith(Number),
        inst: { id: crfInstances.id, visitId: crfInstances.visitId, unscheduledId: crfInstances.unscheduledId, formId: crfInstances.formId, repeatNo: crfInstances.repeatNo },
        visitName: visits.name,
        visitNameEn: visits.nameEn,
        formName: forms.name,
        formNameEn: forms.nameEn,
      })
      .from(safetyCandidates)
      .innerJoin(subjects, eq(subjects.id, safetyCandidates.subjectId))
      .innerJoin(sites, eq(sites.id, safetyCandidates.siteId))
      .leftJoin(users, eq(users.id, safetyCandidates.judgedBy))
      .leftJoin(crfInstances, eq(crfInstances.id, safetyCandidates.writtenInstanceId))
      .leftJoin(visits, eq(visits.id, crfInstances.visitId))
      .leftJoin(forms, eq(forms.id, crfInstances.formId));
  }

  private toView(ctx: ProjectScopedContext, r: Awaited<ReturnType<ReturnType<SafetyService['select']>['where']>>[number]): CandidateView {
    const c = r.c;
    const en = ctx.language === 'en_US';
    return {
      id: c.id,
      ptsId: c.subjectId,
      ptsNo: r.ptsNo,
      siteId: c.siteId,
      siteName: r.siteName,
      designVersionId: r.designVersionId,
      category: c.category,
      origin: c.origin,
      term: c.term,
      code: c.code,
      codeSystem: c.codeSystem,
      suggested: c.suggested ?? null,
      startDate: c.startDate,
      endDate: c.endDate,
      detail: c.detail,
      sourceCount: r.sources,
      status: c.status,
      version: c.version,
      sourceChanged: c.sourceChanged,
      fields: c.fields ?? null,
      judgedBy: r.judgedBy,
      judgedAt: c.judgedAt?.toISOString() ?? null,
      reason: c.reason,
      written:
        r.inst?.id != null
          ? {
              instanceId: r.inst.id,
              visitId: r.inst.visitId,
              unscheduledId: r.inst.unscheduledId,
              formId: r.inst.formId,
              repeatNo: r.inst.repeatNo,
              visitName: (en && r.visitNameEn) || r.visitName || '',
              formName: (en && r.formNameEn) || r.formName || '',
            }
          : null,
      notWritten: c.notWritten,
      createTime: c.createdAt.toISOString(),
    };
  }

  private where(ctx: ProjectScopedContext, q: z.output<typeof candidateListRequest>): SQL {
    const state =
      q.state === 'toJudge'
        ? eq(safetyCandidates.status, S.toJudge)
        : q.state === 'judged'
          ? ne(safetyCandidates.status, S.toJudge)
          : q.state === 'yes'
            ? eq(safetyCandidates.status, S.yes)
            : q.state === 'no'
              ? eq(safetyCandidates.status, S.no)
              : undefined;
    return and(
      this.scope(ctx),
      state,
      q.category ? eq(safetyCandidates.category, q.category) : undefined,
      q.origin ? eq(safetyCandidates.origin, q.origin) : undefined,
      q.siteId !== undefined ? eq(safetyCandidates.siteId, q.siteId) : undefined,
      q.ptsId !== undefined ? eq(safetyCandidates.subjectId, q.ptsId) : undefined,
      q.ptsNo ? ilike(subjects.ptsNo, likeOf(q.ptsNo)) : undefined,
      q.keyword ? or(ilike(safetyCandidates.term, likeOf(q.keyword)), ilike(safetyCandidates.code, likeOf(q.keyword)), sql`${safetyCandidates.fields}->>'term' ilike ${likeOf(q.keyword)}`) : undefined,
      q.minGrade !== undefined ? sql`coalesce((${safetyCandidates.fields}->>'grade')::int, ${safetyCandidates.grade}) >= ${q.minGrade}` : undefined,
      q.sourceChanged !== undefined ? eq(safetyCandidates.sourceChanged, q.sourceChanged) : undefined,
    )!;
  }

  async list(ctx: ProjectScopedContext, q: z.output<typeof candidateListRequest>) {
    const where = this.where(ctx, q);
    const [total] = await this.db.select({ n: count() }).from(safetyCandidates).innerJoin(subjects, eq(subjects.id, safetyCandidates.subjectId)).where(where);
    const dir = q.sortOrder === 'asc' ? asc : desc;
    const col = {
      startDate: safetyCandidates.startDate,
      ptsNo: subjects.ptsNo,
      term: safetyCandidates.term,
      grade: safetyCandidates.grade,
      judgedAt: safetyCandidates.judgedAt,
      createTime: safetyCandidates.createdAt,
    }[q.sortField];
    const rows = await this.select(this.db)
      .where(where)
      .orderBy(sql`${dir(col)} nulls last`, dir(safetyCandidates.id))
      .limit(q.pageSize)
      .offset(offsetOf(q));
    return pageOf(q, total?.n ?? 0, rows.map((r) => this.toView(ctx, r)));
  }

  /** Every row of a filter (export, signal report), at most `limit`. */
  async all(ctx: ProjectScopedContext, q: z.output<typeof candidateListRequest>, limit: number): Promise<CandidateView[]> {
    const rows = await this.select(this.db).where(this.where(ctx, q)).orderBy(asc(safetyCandidates.startDate), asc(safetyCandidates.id)).limit(limit);
    return rows.map((r) => this.toView(ctx, r));
  }

  async counts(ctx: ProjectScopedContext) {
    const rows = await this.db
      .select({ category: safetyCandidates.category, status: safetyCandidates.status, changed: safetyCandidates.sourceChanged, n: count() })
      .from(safetyCandidates)
      .innerJoin(subjects, eq(subjects.id, safetyCandidates.subjectId))
      .where(this.scope(ctx))
      .groupBy(safetyCandidates.category, safetyCandidates.status, safetyCandidates.sourceChanged);
    const toJudge = Object.fromEntries(SAFETY_CATEGORIES.map((c) => [c, 0])) as Record<SafetyCategory, number>;
    let judged = 0;
    let sourceChanged = 0;
    for (const r of rows) {
      if (r.status === S.toJudge) toJudge[r.category] += r.n;
      else judged += r.n;
      if (r.changed && r.status !== S.toJudge) sourceChanged += r.n;
    }
    return { toJudge, judged, sourceChanged };
  }

  /** POST /selection/medication/subjects: per subject, its medications (CM) by judgement and its judged AEs. */
  async medicationSubjects(ctx: ProjectScopedContext, q: z.output<typeof medicationSubjectsRequest>) {
    const n = (cond: SQL, as: string) => sql<number>`count(*) filter (where ${cond})`.mapWith(Number).as(as);
    const cm = eq(safetyCandidates.category, 'cm');
    const where = and(
      this.scope(ctx),
      inArray(safetyCandidates.category, ['cm', 'ae']),
      q.siteId !== undefined ? eq(safetyCandidates.siteId, q.siteId) : undefined,
      q.ptsNo ? ilike(subjects.ptsNo, likeOf(q.ptsNo)) : undefined,
    );
    const having = q.keyword
      ? sql`count(*) filter (where ${cm} and (${safetyCandidates.term} ilike ${likeOf(q.keyword)} or ${safetyCandidates.code} ilike ${likeOf(q.keyword)} or ${safetyCandidates.fields}->>'term' ilike ${likeOf(q.keyword)})) > 0`
      : sql`count(*) filter (where ${cm}) > 0`;
    const base = this.db
      .select({
        ptsId: subjects.id,
        ptsNo: subjects.ptsNo,
        siteName: sites.name,
        designVersionId: subjects.designVersionId,
        yes: n(and(cm, eq(safetyCandidates.status, S.yes))!, 'yes'),
        toJudge: n(and(cm, eq(safetyCandidates.status, S.toJudge))!, 'to_judge'),
        no: n(and(cm, eq(safetyCandidates.status, S.no))!, 'no'),
        events: n(and(eq(safetyCandidates.category, 'ae'), eq(safetyCandidates.status, S.yes))!, 'events'),
        lastStart: sql<string | null>`max(coalesce(${safetyCandidates.fields}->>'start', ${safetyCandidates.startDate})) filter (where ${cm})`.as('last_start'),
        drugs: sql<string[]>`(array_agg(coalesce(${safetyCandidates.fields}->>'term', ${safetyCandidates.term}) order by ${safetyCandidates.status} = ${S.yes} desc, ${safetyCandidates.startDate} desc) filter (where ${cm} and ${safetyCandidates.status} <> ${S.no}))[1:5]`.as('drugs'),
      })
      .from(safetyCandidates)
      .innerJoin(subjects, eq(subjects.id, safetyCandidates.subjectId))
      .innerJoin(sites, eq(sites.id, subjects.siteId))
      .where(where)
      .groupBy(subjects.id, subjects.ptsNo, sites.name, subjects.designVersionId)
      .having(having)
      .as('m');
    const [total] = await this.db.select({ n: count() }).from(base);
    const dir = q.sortOrder === 'asc' ? asc : desc;
    const col = { ptsNo: base.ptsNo, medications: sql`${base.yes} + ${base.toJudge}`, lastStart: base.lastStart }[q.sortField];
    const rows = await this.db.select().from(base).orderBy(sql`${dir(col)} nulls last`, asc(base.ptsId)).limit(q.pageSize).offset(offsetOf(q));
    return pageOf(q, total?.n ?? 0, rows.map((r): MedicationSubjectRow => ({ ...r, drugs: (r.drugs as string[] | null) ?? [] })));
  }

  private async row(db: Db | Tx, ctx: ProjectScopedContext, id: number): Promise<Row> {
    const [r] = await db
      .select({ c: safetyCandidates })
      .from(safetyCandidates)
      .innerJoin(subjects, eq(subjects.id, safetyCandidates.subjectId))
      .where(and(eq(safetyCandidates.id, id), this.scope(ctx)));
    if (!r) throw new AppError('NOT_FOUND', { entity: 'safetyCandidate' });
    return r.c;
  }

  async detail(ctx: ProjectScopedContext, id: number, db: Db | Tx = this.db): Promise<CandidateView> {
    const [r] = await this.select(db).where(and(eq(safetyCandidates.id, id), this.scope(ctx)));
    if (!r) throw new AppError('NOT_FOUND', { entity: 'safetyCandidate' });
    return this.toView(ctx, r);
  }

  /** POST /selection/source/list: the candidate's source records, each lab result graded. */
  async sources(ctx: ProjectScopedContext, id: number): Promise<CandidateSource[]> {
    await this.row(this.db, ctx, id);
    const rows = await this.db
      .select({ r: sourceRecords, link: safetyCandidateSources.link })
      .from(safetyCandidateSources)
      .innerJoin(sourceRecords, eq(sourceRecords.id, safetyCandidateSources.recordId))
      .where(eq(safetyCandidateSources.candidateId, id))
      .orderBy(asc(sourceRecords.effectiveDate), asc(sourceRecords.id));
    return rows.map(({ r, link }) => {
      const a = r.docType === 3 ? storedOrGraded(r) : null;
      return {
        recordId: r.id,
        version: r.version,
        docType: r.docType,
        resourceType: r.resourceType,
        code: r.code,
        codeSystem: r.codeSystem,
        display: r.display,
        valueNum: r.valueNum,
        valueText: r.valueText,
        unit: r.unit,
        effectiveDate: r.effectiveDate,
        low: a?.low ?? null,
        high: a?.high ?? null,
        rangeUnit: a?.unit ?? null,
        grade: a?.grade ?? null,
        outOfRange: a ? a.outOfRange : null,
        sourceFileId: r.sourceFileId,
        region: r.region ?? null,
        link,
      };
    });
  }

  /** POST /selection/link: link (or unlink) another source record of the same subject. */
  async link(ctx: ProjectScopedContext, input: z.output<typeof candidateLinkRequest>): Promise<CandidateSource[]> {
    await this.db.transaction(async (tx) => {
      const c = await this.row(tx, ctx, input.id);
      const [rec] = await tx
        .select({ id: sourceRecords.id })
        .from(sourceRecords)
        .where(and(eq(sourceRecords.id, input.recordId), eq(sourceRecords.subjectId, c.subjectId), isNull(sourceRecords.deletedAt)));
      if (!rec) throw new AppError('NOT_FOUND', { entity: 'sourceRecord' });
      if (input.unlink) {
        const gone = await tx
          .delete(safetyCandidateSources)
          .where(and(eq(safetyCandidateSources.candidateId, c.id), eq(safetyCandidateSources.recordId, rec.id), eq(safetyCandidateSources.link, 'linked')))
          .returning({ id: safetyCandidateSources.recordId });
        if (!gone.length) throw new AppError('NOT_FOUND', { entity: 'sourceRecord' });
      } else {
        await tx.insert(safetyCandidateSources).values({ candidateId: c.id, recordId: rec.id, link: 'linked', createdBy: ctx.user.id }).onConflictDoNothing();
      }
      await recordAudit(tx, actorOf(ctx), [
        { action: input.unlink ? 'safety.unlink' : 'safety.link', entity: 'safetyCandidate', entityId: c.id, projectId: c.projectId, siteId: c.siteId, subjectId: c.subjectId, newValue: rec.id },
      ]);
    });
    return this.sources(ctx, input.id);
  }

  async history(ctx: ProjectScopedContext, id: number) {
    await this.row(this.db, ctx, id);
    const rows = await this.db.select().from(safetyJudgements).where(eq(safetyJudgements.candidateId, id)).orderBy(desc(safetyJudgements.id));
    return rows.map((r) => ({ decision: r.decision, fields: r.fields ?? null, reason: r.reason, userName: r.userName, createTime: r.createdAt.toISOString() }));
  }

  // ── judgement ──

  /** POST /selection/judge */
  async judge(ctx: ProjectScopedContext, input: z.output<typeof judgeRequest>): Promise<CandidateView> {
    const t = translator(ctx.language);
    const pre = await this.row(this.db, ctx, input.id);
    const fields = input.decision === 'yes' ? (parseInput(SAFETY_FIELDS[pre.category], input.fields ?? {}, ctx.language, 'fields') as Record<string, unknown>) : null;
    if (fields && 'end' in fields && typeof fields.end === 'string') {
      const start = (fields.onset ?? fields.start) as string | undefined;
      if (start && fields.end < start.slice(0, fields.end.length)) throw fieldError(ctx.language, 'end', 'safety.endBeforeStart');
    }
    if (fields && pre.category === 'ae' && fields.serious === true && !(fields.criteria as string[]).length) throw fieldError(ctx.language, 'criteria', 'safety.criteriaRequired');
    // the log form's place (read before the transaction: the schedule reads outside it)
    const placement = fields ? await this.placement(ctx, pre, fields) : null;
    return this.db.transaction(async (tx) => {
      const c = await this.row(tx, ctx, input.id);
      if (c.version !== input.version) {
        const [u] = c.judgedBy ? await tx.select({ name: users.name }).from(users).where(eq(users.id, c.judgedBy)) : [];
        if (c.status !== S.toJudge) throw new AppError('JUDGE_STALE', { user: u?.name ?? '?', time: (c.judgedAt ?? c.updatedAt).toISOString() });
        throw new AppError('STALE_WRITE', { user: t('safety.generator'), time: c.updatedAt.toISOString() });
      }
      const changing = c.status !== S.toJudge;
      if (changing && !input.reason) throw new AppError('JUDGE_REASON_REQUIRED');
      const now = new Date();
      let writtenInstanceId = c.writtenInstanceId;
      let notWritten: string | null = null;
      const primary = await tx
        .select({ id: sourceRecords.id, version: sourceRecords.version })
        .from(safetyCandidateSources)
        .innerJoin(sourceRecords, eq(sourceRecords.id, safetyCandidateSources.recordId))
        .where(eq(safetyCandidateSources.candidateId, c.id))
        .orderBy(asc(sourceRecords.effectiveDate), asc(sourceRecords.id))
        .limit(1);
      const ref = primary[0] ? sourceRef(primary[0].id, primary[0].version) : null;
      if (fields) {
        if (!placement) notWritten = 'noLogForm';
        else writtenInstanceId = await this.writeLog(tx, ctx, c, placement, fields, ref, changing ? input.reason! : undefined);
      } else if (c.writtenInstanceId) {
        await this.removeLog(tx, ctx, c.writtenInstanceId, input.reason ?? t('safety.judgedNo'));
        writtenInstanceId = null;
      }
      const [after] = await tx
        .update(safetyCandidates)
        .set({
          status: input.decision === 'yes' ? S.yes : S.no,
          version: c.version + 1,
          fields,
          reason: input.reason ?? null,
          judgedBy: ctx.user.id,
          judgedAt: now,
          sourceChanged: false,
          writtenInstanceId,
          notWritten,
          updatedAt: now,
        })
        .where(and(eq(safetyCandidates.id, c.id), eq(safetyCandidates.version, c.version)))
        .returning({ id: safetyCandidates.id });
      if (!after) throw new AppError('JUDGE_STALE', { user: '?', time: now.toISOString() });
      await tx.insert(safetyJudgements).values({ candidateId: c.id, decision: input.decision, fields, reason: input.reason ?? null, userId: ctx.user.id, userName: ctx.user.name });
      await recordAudit(tx, actorOf(ctx), [
        {
          action: changing ? 'safety.rejudge' : 'safety.judge',
          entity: 'safetyCandidate',
          entityId: c.id,
          projectId: c.projectId,
          siteId: c.siteId,
          subjectId: c.subjectId,
          field: c.category,
          oldValue: changing ? { decision: c.status === S.yes ? 'yes' : 'no', fields: c.fields } : null,
          newValue: { decision: input.decision, fields },
          reason: input.reason ?? null,
        },
      ]);
      return this.detail(ctx, c.id, tx);
    });
  }

  /** Where a "yes" goes: the category's log form and the visit for its date; null when the design has no such form. */
  private async placement(ctx: ProjectScopedContext, c: Row, fields: Record<string, unknown>) {
    const [s] = await this.db.select({ dv: subjects.designVersionId }).from(subjects).where(eq(subjects.id, c.subjectId));
    if (!s?.dv) return null;
    const fs = (await this.db.select({ id: forms.id, code: forms.code, definition: forms.definition }).from(forms).where(eq(forms.versionId, s.dv))).map(
      (f): DesignForm => ({ id: f.id, code: f.code, definition: f.definition as unknown as FormDefinition }),
    );
    const form = findLogForm(fs, c.category);
    if (!form) return null;
    const date = ((fields.onset ?? fields.start ?? fields.date) as string | undefined) ?? c.startDate;
    const visit = placeFor(await this.ecrf.schedule(ctx, c.subjectId), form.id, date ?? null);
    return visit ? { form, visitId: visit.visitId, unscheduledId: visit.unscheduledId } : null;
  }

  /** Writes (or rewrites) the judgement's record into the log form through the eCRF's save, in this transaction. */
  private async writeLog(
    tx: Tx,
    ctx: ProjectScopedContext,
    c: Row,
    at: { form: DesignForm; visitId: number; unscheduledId: number },
    fields: Record<string, unknown>,
    ref: string | null,
    reason: string | undefined,
  ): Promise<number> {
    const { items } = logItems(at.form.definition, c.category, fields);
    let key: { visitId: number; unscheduledId: number; formId: number; repeatNo: number; version?: number };
    const [cur] = c.writtenInstanceId ? await tx.select().from(crfInstances).where(and(eq(crfInstances.id, c.writtenInstanceId), isNull(crfInstances.deletedAt))) : [];
    if (cur) {
      if (cur.status === CRF_STATUS.certified) throw await this.locked(tx, ctx, cur, 'certified');
      key = { visitId: cur.visitId, unscheduledId: cur.unscheduledId, formId: cur.formId, repeatNo: cur.repeatNo, version: cur.version };
      // a rewrite clears what the new judgement no longer says
      const now = await tx.select({ variable: crfValues.variable, value: crfValues.value }).from(crfValues).where(eq(crfValues.instanceId, cur.id));
      const written = new Set(items.map((i) => i.variable));
      const mapped = new Set(logItems(at.form.definition, c.category, c.fields ?? {}).items.map((i) => i.variable));
      for (const v of now) if (mapped.has(v.variable) && !written.has(v.variable) && v.value?.v != null) items.push({ variable: v.variable, value: null });
    } else {
      // a new repeat after every existing one (removed ones keep their numbers)
      const [m] = await tx
        .select({ n: max(crfInstances.repeatNo) })
        .from(crfInstances)
        .where(and(eq(crfInstances.subjectId, c.subjectId), eq(crfInstances.visitId, at.visitId), eq(crfInstances.unscheduledId, at.unscheduledId), eq(crfInstances.formId, at.form.id)));
      const [only] = await tx
        .select({ id: crfInstances.id, n: count(crfValues.id) })
        .from(crfInstances)
        .leftJoin(crfValues, eq(crfValues.instanceId, crfInstances.id))
        .where(and(eq(crfInstances.subjectId, c.subjectId), eq(crfInstances.visitId, at.visitId), eq(crfInstances.unscheduledId, at.unscheduledId), eq(crfInstances.formId, at.form.id), eq(crfInstances.repeatNo, 1), isNull(crfInstances.deletedAt)))
        .groupBy(crfInstances.id);
      // the first repeat, when it exists but is empty, is filled rather than left blank
      const first = only && only.n === 0 ? await tx.select().from(crfInstances).where(eq(crfInstances.id, only.id)) : [];
      key = first[0]
        ? { visitId: at.visitId, unscheduledId: at.unscheduledId, formId: at.form.id, repeatNo: 1, version: first[0].version }
        : { visitId: at.visitId, unscheduledId: at.unscheduledId, formId: at.form.id, repeatNo: (m?.n ?? 0) + 1 };
    }
    const refs = new Map(ref ? items.filter((i) => i.value !== null).map((i) => [i.variable, ref]) : []);
    const view = await this.ecrf.saveBatch(
      ctx,
      { ptsId: c.subjectId, ...key, entryMode: ENTRY_MODE.gather, items: items.map((i) => ({ ...i, ...(reason ? { reason } : {}) })) },
      { tx, sourceRefs: refs },
    );
    return view.instance!.id;
  }

  private async removeLog(tx: Tx, ctx: ProjectScopedContext, instanceId: number, reason: string) {
    const [inst] = await tx.select().from(crfInstances).where(eq(crfInstances.id, instanceId));
    if (!inst || inst.deletedAt) return;
    if (inst.status === CRF_STATUS.certified) throw await this.locked(tx, ctx, inst, 'certified');
    await this.ecrf.deleteRepeat(ctx, instanceId, reason, tx);
  }

  private async locked(tx: Tx, ctx: ProjectScopedContext, inst: typeof crfInstances.$inferSelect, state: 'certified') {
    const t = translator(ctx.language);
    const en = ctx.language === 'en_US';
    const [f] = await tx.select({ name: forms.name, nameEn: forms.nameEn }).from(forms).where(eq(forms.id, inst.formId));
    const [v] = await tx.select({ name: visits.name, nameEn: visits.nameEn }).from(visits).where(eq(visits.id, inst.visitId));
    return new AppError('JUDGE_LOG_LOCKED', { form: (en && f?.nameEn) || f?.name || '', visit: (en && v?.nameEn) || v?.name || '', repeat: inst.repeatNo, state: t(`safety.logState.${state}`) });
  }
}

/** The `safety.generate` job: generation of a scope too large for one request, with done/total progress. */
export function registerSafetyJobs(jobs: JobRunner, db: Db): void {
  jobs.define<GenerateJobData>(
    SAFETY_GENERATE_JOB,
    async (data, jctx) => {
      const svc = new SafetyService(db);
      const total = await svc.generateScope(data.scope, (done, all) => jctx.report(done, all));
      await db.transaction((tx) =>
        recordAudit(tx, { userId: data.userId, userName: data.userName, requestId: jctx.jobId, ip: null, env: data.scope.env }, [
          { action: 'safety.generate', entity: 'safetyCandidate', entityId: null, projectId: data.scope.projectId, subjectId: null, newValue: total },
        ]),
      );
    },
    // generation is idempotent: a retried job skips the subjects it already did (their fingerprint is stored)
    { retryLimit: 2 },
  );
}
