/**
 * eCRF data entry (issue 5): one instance per subject × visit × form (more for cycle forms), values with their
 * entry mode, optimistic locking naming who changed what, a reason to change a saved value, item history, the
 * form's rules (types, required when shown, conditions) enforced here exactly as the web renderer applies them,
 * and certification that makes the form read-only until uncertified with a reason.
 */
import { and, asc, desc, eq, gt, inArray, isNotNull, isNull } from 'drizzle-orm';
import {
  CRF_STATUS,
  ENTRY_MODE,
  MARK_STATUS,
  formFields,
  hiddenByCondition,
  latestClock,
  missingRequired,
  rangeText,
  valueIssue,
  visitState,
  visitWindow,
  type CrfInstanceView,
  type FormDefinition,
  type ItemValues,
  type PendingReview,
  type ScheduleVisit,
  type SignatureMeaning,
} from '@esource/shared';
import type { z } from 'zod';
import type { formGroupRequest, FormGroupRow, saveBatchRequest, unscheduledRequest } from '@esource/shared';
import type { Db, Tx } from '../../db/client';
import { crfInstances, crfValueHistory, crfValues, ddcShareLinks, forms, subjects, subjectUnscheduledVisits, users, visitForms, visits } from '../../db/schema';
import { AppError, type FieldProblem } from '../../lib/errors';
import { staleWrite } from '../../lib/stale';
import type { ProjectScopedContext } from '../../lib/context';
import { actorOf, recordAudit, type AuditActor, type AuditChange } from '../audit/audit.service';
import { endReview } from '../ddc/ddc-review';
import { rawRows, rowFromJson } from '../../db/raw';
import { reachesSite } from '../../lib/site-scope';
import { SubjectsService } from '../subjects/subjects.service';
import { syncAutoQueries } from '../queries/auto-queries';
import { auditLostMarks, type LostMark } from '../verification/marks-lost';
import { translator } from '../../lib/i18n';

type Key = { ptsId: number; visitId: number; formId: number; unscheduledId: number; repeatNo: number };
const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const empty = (v: unknown) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);

type StoredItem = Pick<typeof crfValues.$inferSelect, 'value' | 'entryMode' | 'sourceRef' | 'updatedAt' | 'quality'>;
/** a stored value as the save loads it (JSON: the time as text), with the name of who set it */
type LoadedValue = Omit<StoredItem, 'updatedAt'> & { variable: string; updatedAt: string; name: string | null };

function itemView(v: StoredItem, updatedBy: string | null): CrfInstanceView['values'][string] {
  return {
    value: v.value?.v ?? null,
    entryMode: v.entryMode,
    sourceRef: v.sourceRef,
    quality: v.quality ?? null,
    updatedBy,
    updateTime: v.updatedAt.toISOString(),
  };
}

/** What pre-fill adds to a save (see saveBatch). */
export interface SaveBatchOptions {
  /** the caller's transaction (its own writes commit or roll back with the values) */
  tx?: Tx;
  /** variable → source reference of the value being saved */
  sourceRefs?: ReadonlyMap<string, string>;
  /** variable → entry mode of that value when it is not the batch's (pre-fill: KBMS 4 for a value read from a document) */
  entryModes?: ReadonlyMap<string, number>;
  /**
   * A participant's submit through a shared link (modules/ddc, entry mode participant 7): there is no user — values,
   * history and audit name no user id and the actor given, every value's source is 'share:<id>', each changed item
   * carries `reason`, and the form then waits for the site's review (crf_instances.pending_share_id).
   */
  participant?: { shareId: number; actor: AuditActor; reason: string };
}

type Json = Record<string, unknown>;

/** One value a save writes (the JSON parameter of its statement; the keys are the record's columns in SQL). */
interface SaveRow {
  variable: string;
  value: { v: unknown };
  entry_mode: number;
  quality: string | null;
  source_ref: string | null;
  filled_ref: string | null;
  /** the value changed: a history row, and the item's verification mark ends */
  changed: boolean;
  old_value: { v: unknown } | null;
  reason: string | null;
  cause: string | null;
}

/**
 * The save's read (issue 16): subject, the visit of its design version, the form on that visit, the live instance
 * and its values with who set them. $1 subject, $2 visit, $3 form, $4 unscheduled visit, $5 repeat, $6 project, $7
 * environment. A left-joined row that is missing comes as null. The form's join also asks that the visit's link was
 * found: PostgreSQL 18 (the embedded PGlite) otherwise returns the form for a visit that does not have it. (Exported
 * for bench/subjects.bench.ts, which also sends the save's statements from a bare client.)
 */
export const READ_FOR_SAVE = `select row_to_json(s) as subject, row_to_json(v) as visit, row_to_json(f) as form, row_to_json(i) as inst,
    (select json_agg(json_build_object('variable', cv.variable, 'value', cv.value, 'entryMode', cv.entry_mode, 'quality', cv.quality,
            'sourceRef', cv.source_ref, 'updatedAt', cv.updated_at, 'name', u.name))
       from crf_values cv left join users u on u.id = cv.updated_by where cv.instance_id = i.id) as values
  from subjects s
  left join visits v on v.id = $2::int and v.version_id = s.design_version_id
  left join visit_forms vf on vf.visit_id = v.id and vf.form_id = $3::int
  left join forms f on f.id = vf.form_id and vf.visit_id is not null
  left join crf_instances i on i.subject_id = s.id and i.visit_id = $2::int and i.unscheduled_id = $4::int and i.form_id = $3::int
        and i.repeat_no = $5::int and i.deleted_at is null
 where s.id = $1::int and s.project_id = $6::int and s.env = $7::varchar`;

/**
 * The save's writes (issue 16): the rows of its JSON parameter ($2, SaveRow[]) upserted as the instance's values
 * ($1), the changed ones also as history rows. $3 the writer (null: a participant), $4 the time, $5 the instance's
 * version after the save, $6 the writer's name.
 */
const SAVE_ROWS = `x as materialized (select * from json_to_recordset($2::json) as x(variable varchar, value jsonb, entry_mode int,
      quality varchar, source_ref varchar, filled_ref varchar, changed boolean, old_value jsonb, reason varchar, cause varchar))`;
const saveValues = (guard: string) => `w0 as (insert into crf_values (instance_id, variable, value, entry_mode, quality, source_ref, updated_by, updated_at, filled_ref, filled_value)
      select $1::int, variable, value, entry_mode, quality, source_ref, $3::int, $4::timestamptz, filled_ref, case when filled_ref is not null then value end
        from x${guard}
      on conflict (instance_id, variable) do update set value = excluded.value, entry_mode = excluded.entry_mode,
         quality = excluded.quality, source_ref = excluded.source_ref, updated_by = excluded.updated_by, updated_at = excluded.updated_at,
         filled_ref = coalesce(excluded.filled_ref, crf_values.filled_ref),
         filled_value = case when excluded.filled_ref is not null then excluded.filled_value else crf_values.filled_value end),
  w1 as (insert into crf_value_history (instance_id, variable, old_value, new_value, entry_mode, reason, instance_version, user_id, user_name, quality, cause, source_ref)
      select $1::int, variable, old_value, value, entry_mode, reason, $5::int, $3::int, $6::varchar, quality, cause, source_ref
        from x where changed${guard.replace(' where ', ' and ')})`;
/** A new instance's values (inserted just before: no marks, no version to check). */
const WRITE_SAVE_NEW = `with ${SAVE_ROWS}, ${saveValues('')} select 1`;
/**
 * An existing instance's: the optimistic update of the instance first ($7 status, $8–$10 missing items, count and
 * revision, $11 whether the participant's review changes, to $12), each write only when it found the version before
 * ($5 − 1), and the verification marks the changed items end ($13 who ends them, $14 lost, $15 active: the SDV mark
 * of each changed item and the form's SDR mark). Answers a row 'i' when the update was made, and the marks ended.
 */
export const WRITE_SAVE_UPDATE = `with i as (update crf_instances set status = $7::int, version = $5::int, updated_by = $3::int, updated_at = $4::timestamptz,
      missing_items = $8::varchar(40)[], missing_count = $9::int, missing_rev = $10::int,
      pending_share_id = case when $11::boolean then $12::int else pending_share_id end
     where id = $1::int and version = $5::int - 1 returning id),
  ${SAVE_ROWS}, ${saveValues(' where exists (select 1 from i)')},
  lost as (update verification_marks set status = $14::smallint, ended_by = $13::int, ended_at = now()
     where instance_id = $1::int and status = $15::smallint and exists (select 1 from i)
       and ((kind = 'sdv' and variable in (select variable from x where changed)) or (kind = 'sdr' and variable is null and exists (select 1 from x where changed)))
     returning id::float8 as id, variable, kind)
select 'i' as t, null::float8 as id, null::varchar as variable, null::varchar as kind from i
union all select 'lost', id, variable, kind from lost`;

/** History cause of a value cleared because a display condition hid its item (the reason stays the user's). */
export const CLEARED_BY_CONDITION = 'condition';

function viewFrom(
  form: typeof forms.$inferSelect,
  def: FormDefinition,
  inst: typeof crfInstances.$inferSelect | null,
  values: CrfInstanceView['values'],
  certifiedBy: string | null,
  pendingReview: PendingReview | null = null,
): CrfInstanceView {
  return {
    instance: inst
      ? {
          id: inst.id,
          status: inst.status,
          version: inst.version,
          repeatNo: inst.repeatNo,
          certifiedBy,
          certifiedAt: inst.certifiedAt?.toISOString() ?? null,
          updateTime: inst.updatedAt.toISOString(),
          pendingReview,
        }
      : null,
    values,
    formId: form.id,
    formName: form.name,
    formCode: form.code,
    cycle: def.cycle,
    definition: def,
  };
}

/** An electronic signature: the meaning the signer signed with (after re-authenticating). */
export interface Signature {
  meaning: SignatureMeaning;
}

/** The readable signature record kept with each certification, in the signer's language (what they were shown). */
function signatureLine(ctx: ProjectScopedContext, sig: Signature): string {
  const t = translator(ctx.language);
  return t('esign.auditLine', { name: ctx.user.name, account: ctx.user.account, statement: t(`esign.meaning.${sig.meaning}`) });
}

export class EcrfService {
  private readonly subjects: SubjectsService;
  constructor(private readonly db: Db) {
    this.subjects = new SubjectsService(db);
  }

  /** The subject, the visit of its design version, and the form assigned to that visit (one statement; shared links check with it too). */
  async resolve(tx: Db | Tx, ctx: ProjectScopedContext, key: Key) {
    const [r] = await tx
      .select({ subject: subjects, visit: visits, form: forms })
      .from(subjects)
      .leftJoin(visits, and(eq(visits.id, key.visitId), eq(visits.versionId, subjects.designVersionId)))
      .leftJoin(visitForms, and(eq(visitForms.visitId, visits.id), eq(visitForms.formId, key.formId)))
      // "and the link was found": PostgreSQL 18 (the embedded PGlite) otherwise derives forms.id = $formId from the
      // join above and returns the form even when the visit does not have it (docs/decisions.md, "PostgreSQL 18")
      .leftJoin(forms, and(eq(forms.id, visitForms.formId), isNotNull(visitForms.visitId)))
      .where(and(eq(subjects.id, key.ptsId), this.subjects.scope(ctx)));
    return this.resolved(tx, key, r);
  }

  /**
   * resolve() and, in the same statement, the instance with its current values and who set them (the save's first
   * read: one round trip, not two; the values as one JSON array, since fifty values mapped column by column cost
   * more than the statement — issue 16). Plain SQL of constant text (db/raw.ts): the rows come as JSON and are read
   * back through the tables' own column mappings; the caller's scope is checked on the subject found (the same rule
   * as subjects.scope(), in code).
   */
  private async resolveForSave(tx: Tx, ctx: ProjectScopedContext, key: Key) {
    const [r] = await rawRows<{ subject: Json; visit: Json | null; form: Json | null; inst: Json | null; values: LoadedValue[] | null }>(
      tx,
      READ_FOR_SAVE,
      [key.ptsId, key.visitId, key.formId, key.unscheduledId, key.repeatNo, ctx.project.id, ctx.env],
    );
    const subject = r ? rowFromJson(subjects, r.subject)! : null;
    const found = subject && reachesSite(subject.siteId, ctx) ? { subject, visit: rowFromJson(visits, r!.visit), form: rowFromJson(forms, r!.form) } : undefined;
    return { ...(await this.resolved(tx, key, found)), inst: found ? rowFromJson(crfInstances, r!.inst) : null, values: (found && r!.values) || [] };
  }

  /** The checks of what resolve() found: a live subject in scope, the visit of its design version, the form on it. */
  private async resolved(
    tx: Db | Tx,
    key: Key,
    r: { subject: typeof subjects.$inferSelect; visit: typeof visits.$inferSelect | null; form: typeof forms.$inferSelect | null } | undefined,
  ) {
    if (!r) throw new AppError('NOT_FOUND', { entity: 'subject' });
    const { subject, visit, form } = r;
    if (subject.status === 0) throw new AppError('SUBJECT_DELETED');
    if (!visit) throw new AppError('NOT_FOUND', { entity: 'visit' });
    if (!form) throw new AppError('NOT_FOUND', { entity: 'form' });
    if (visit.unscheduled !== key.unscheduledId > 0) throw new AppError('NOT_FOUND', { entity: 'visit' });
    if (key.unscheduledId > 0) {
      const [u] = await tx
        .select()
        .from(subjectUnscheduledVisits)
        .where(and(eq(subjectUnscheduledVisits.id, key.unscheduledId), eq(subjectUnscheduledVisits.subjectId, subject.id)));
      if (!u) throw new AppError('NOT_FOUND', { entity: 'visit' });
    }
    const def = form.definition as unknown as FormDefinition;
    if (key.repeatNo > 1 && !def.cycle) throw new AppError('NOT_FOUND', { entity: 'form' });
    return { subject, visit, form, def };
  }

  /** The repeats (groups) of one form at one visit: each instance's repeat number, state and last change, in order. */
  async formGroups(ctx: ProjectScopedContext, query: z.output<typeof formGroupRequest>): Promise<FormGroupRow[]> {
    await this.resolve(this.db, ctx, { ...query, repeatNo: 1 });
    const rows = await this.db
      .select({ i: crfInstances, name: users.name })
      .from(crfInstances)
      .leftJoin(users, eq(users.id, crfInstances.updatedBy))
      .where(
        and(
          eq(crfInstances.subjectId, query.ptsId),
          eq(crfInstances.visitId, query.visitId),
          eq(crfInstances.unscheduledId, query.unscheduledId),
          eq(crfInstances.formId, query.formId),
          query.withDeleted ? undefined : isNull(crfInstances.deletedAt),
        ),
      )
      .orderBy(asc(crfInstances.repeatNo), asc(crfInstances.id));
    return rows.map(({ i, name }) => ({
      instanceId: i.id,
      repeatNo: i.repeatNo,
      status: i.status,
      version: i.version,
      pendingReview: i.pendingShareId !== null,
      updatedAt: i.updatedAt.toISOString(),
      updatedBy: name ?? null,
      deletedAt: i.deletedAt?.toISOString() ?? null,
    }));
  }

  private instanceKey(key: Key) {
    return and(
      eq(crfInstances.subjectId, key.ptsId),
      eq(crfInstances.visitId, key.visitId),
      eq(crfInstances.unscheduledId, key.unscheduledId),
      eq(crfInstances.formId, key.formId),
      eq(crfInstances.repeatNo, key.repeatNo),
      isNull(crfInstances.deletedAt),
    );
  }

  private async instanceOf(tx: Db | Tx, key: Key) {
    const [i] = await tx.select().from(crfInstances).where(this.instanceKey(key));
    return i ?? null;
  }

  async view(ctx: ProjectScopedContext, key: Key): Promise<CrfInstanceView> {
    const { form, def } = await this.resolve(this.db, ctx, key);
    return this.viewOf(this.db, form, def, await this.instanceOf(this.db, key));
  }

  /** What the entry screen shows of an instance: its state, each item's value with who set it, the definition. */
  private async viewOf(db: Db | Tx, form: typeof forms.$inferSelect, def: FormDefinition, inst: typeof crfInstances.$inferSelect | null): Promise<CrfInstanceView> {
    const values: CrfInstanceView['values'] = {};
    let certifiedBy: string | null = null;
    if (inst) {
      const rows = await db
        .select({ v: crfValues, name: users.name })
        .from(crfValues)
        .leftJoin(users, eq(users.id, crfValues.updatedBy))
        .where(eq(crfValues.instanceId, inst.id));
      for (const r of rows) values[r.v.variable] = itemView(r.v, r.name);
      if (inst.certifiedBy) certifiedBy = (await db.select({ n: users.name }).from(users).where(eq(users.id, inst.certifiedBy)))[0]?.n ?? null;
    }
    let pending: PendingReview | null = null;
    if (inst?.pendingShareId) {
      const [l] = await db.select({ usedAt: ddcShareLinks.usedAt }).from(ddcShareLinks).where(eq(ddcShareLinks.id, inst.pendingShareId));
      pending = { shareId: inst.pendingShareId, submittedAt: (l?.usedAt ?? inst.updatedAt).toISOString() };
    }
    return viewFrom(form, def, inst, values, certifiedBy, pending);
  }

  /**
   * Saves a batch of items of one form instance in one transaction. Pre-fill (modules/prefill) calls it with entry
   * mode gather 5 / inject 6 (never accepted from clients: the route's schema allows SAVE_MODES only), a source
   * reference per item ('source:<recordId>:v<version>') and its own transaction so that its decisions are written
   * with the values. Pre-filled values do not complete a form (no required-item check, a new instance is a draft).
   */
  async saveBatch(ctx: ProjectScopedContext, input: z.output<typeof saveBatchRequest>, opts: SaveBatchOptions = {}): Promise<CrfInstanceView> {
    const prefill = input.entryMode === ENTRY_MODE.gather || input.entryMode === ENTRY_MODE.inject || input.entryMode === ENTRY_MODE.kbms;
    const modeOf = (variable: string) => opts.entryModes?.get(variable) ?? input.entryMode;
    // who writes: the user, or (a shared form) the participant, who has no account
    const participant = opts.participant ?? null;
    const writer = participant ? { id: null, name: null } : { id: ctx.user.id, name: ctx.user.name };
    const actor = participant?.actor ?? actorOf(ctx);
    const refOf = (variable: string) => opts.sourceRefs?.get(variable) ?? (participant ? `share:${participant.shareId}` : null);
    // a site user's save of the whole form (not a draft, not pre-fill) is their review of a participant's answers
    const reviews = !participant && !prefill && input.entryMode !== ENTRY_MODE.stash;
    const inTx = <T>(fn: (tx: Tx) => Promise<T>): Promise<T> => (opts.tx ? fn(opts.tx) : this.db.transaction(fn));
    return inTx(async (tx) => {
      const loaded = await this.resolveForSave(tx, ctx, input);
      const { subject, form, def } = loaded;
      let inst = loaded.inst;
      if (inst?.status === CRF_STATUS.certified) throw new AppError('FORM_CERTIFIED');
      if (inst && input.version !== inst.version) {
        // name who changed what since the version this editor loaded
        const changes = await tx
          .select()
          .from(crfValueHistory)
          .where(and(eq(crfValueHistory.instanceId, inst.id), gt(crfValueHistory.instanceVersion, input.version ?? 0)))
          .orderBy(desc(crfValueHistory.id));
        const who = [...new Set(changes.map((c) => c.userName ?? '?'))].join(', ') || '?';
        throw new AppError('STALE_WRITE_ITEMS', {
          user: who,
          time: `${inst.updatedAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
          fields: [...new Set(changes.map((c) => c.variable))].join(', ') || '-',
        });
      }
      const fields = new Map(formFields(def.components).map((f) => [f.variable, f]));
      const current = new Map<string, StoredItem>();
      const setBy = new Map<string, string | null>();
      for (const v of loaded.values) {
        current.set(v.variable, { value: v.value, entryMode: v.entryMode, quality: v.quality, sourceRef: v.sourceRef, updatedAt: new Date(v.updatedAt) });
        setBy.set(v.variable, v.name);
      }

      const problems: FieldProblem[] = [];
      const t = translator(ctx.language);
      // the latest wall clock on earth: the server does not know the user's time zone (see ecrf-values.ts)
      const clock = latestClock();
      const incoming = new Map<string, { value: unknown; reason?: string | undefined; quality?: string | null; params?: Record<string, string | number>; cause?: string | null }>();
      for (const it of input.items) {
        const f = fields.get(it.variable);
        if (!f) {
          problems.push({ field: it.variable, message: 'validation.unknownItem' });
          continue;
        }
        if ((f.readOnly || f.disabled) && input.entryMode !== ENTRY_MODE.stash && !same(current.get(it.variable)?.value?.v, it.value)) {
          problems.push({ field: it.variable, message: 'validation.readOnlyItem' });
          continue;
        }
        const value = f.type === 'number' && typeof it.value === 'string' && it.value.trim() !== '' ? Number(it.value) : empty(it.value) ? null : it.value;
        // never change what the user typed: a value is stored as sent, refused, or (soft range) flagged
        const issue = valueIssue(f, it.value, clock);
        if (issue && !issue.soft) {
          const key = issue.code === 'min' || issue.code === 'max' ? 'range' : issue.code;
          problems.push({ field: it.variable, message: t(`validation.value_${key}`, { ...issue.params, range: rangeText(issue.params) }) });
        }
        incoming.set(it.variable, { value, reason: it.reason ?? participant?.reason, quality: issue?.soft ? 'range' : null, ...(issue?.soft ? { params: { value: String(it.value), range: rangeText(issue.params) } } : {}) });
      }
      // the merged picture: what is stored, with this batch on top
      const merged: ItemValues = {};
      for (const [k, v] of current) merged[k] = v.value?.v ?? null;
      for (const [k, v] of incoming) merged[k] = v.value;
      // items a display condition hides lose their value; the history says so (cause) and keeps the user's reason
      const hiddenNow = new Set(hiddenByCondition(def, merged));
      for (const hidden of hiddenNow) {
        merged[hidden] = null;
        incoming.set(hidden, { value: null, reason: incoming.get(hidden)?.reason, cause: CLEARED_BY_CONDITION });
      }
      for (const [k, v] of incoming) {
        // the editor sends the clearing it showed the user (value null, their reason): mark it the same way
        if (empty(v.value) && !empty(current.get(k)?.value?.v) && !hiddenNow.has(k) && hiddenByCondition(def, { ...merged, [k]: current.get(k)?.value?.v }).includes(k)) {
          v.cause = CLEARED_BY_CONDITION;
        }
      }
      // the required items left empty (shown by their conditions): refused unless a draft, and kept on the instance
      // for the missing-data report (migration 0040), in this transaction
      const missing = missingRequired(def, merged);
      if (input.entryMode !== ENTRY_MODE.stash && !prefill) {
        for (const v of missing) problems.push({ field: v, message: 'validation.required' });
      }
      // once saved (not as a draft), a value changes only with a reason, also when a display condition clears it
      for (const [k, v] of incoming) {
        const old = current.get(k);
        if (old && old.entryMode !== ENTRY_MODE.stash && !empty(old.value?.v) && !same(old.value?.v, v.value) && !v.reason) {
          problems.push({ field: k, message: v.cause === CLEARED_BY_CONDITION ? 'validation.clearReason' : 'validation.changeReason' });
        }
      }
      if (problems.length) {
        const detail = problems.map((p) => ({ field: p.field, message: t(p.message) }));
        throw new AppError('VALIDATION', { detail: t('validation.field', { field: detail[0]!.field, message: detail[0]!.message }) }, detail);
      }

      const now = new Date();
      const status = prefill ? (inst?.status ?? CRF_STATUS.draft) : input.entryMode === ENTRY_MODE.stash ? CRF_STATUS.draft : CRF_STATUS.completed;
      const prevStatus = inst?.status ?? null;
      const prevMissing = inst?.missingItems ?? null;
      const missingCols = { missingItems: missing, missingCount: missing.length, missingRev: form.lockVersion };
      // the participant's answers wait for the site's review; the site's own save of the form ends that review
      const pendingBefore = inst?.pendingShareId ?? null;
      const pendingCols = participant ? { pendingShareId: participant.shareId } : reviews && pendingBefore ? { pendingShareId: null } : {};
      let updated: { pending: boolean } | null = null;
      if (!inst) {
        inst = (
          await tx
          .insert(crfInstances)
          .values({
            env: ctx.env,
            projectId: ctx.project.id,
            siteId: subject.siteId,
            subjectId: subject.id,
            visitId: input.visitId,
            unscheduledId: input.unscheduledId,
            formId: input.formId,
            repeatNo: input.repeatNo,
            status,
            updatedBy: writer.id,
            ...missingCols,
            ...pendingCols,
          })
          .returning()
        )[0] ?? null;
      } else {
        // the instance's update (optimistic: only from the version this editor loaded) goes with the values below, in
        // one statement that writes them only when it updated the row (issue 16: fewer round trips); the row as it
        // will be is known here (no trigger changes a column of it)
        updated = { pending: 'pendingShareId' in pendingCols };
        inst = { ...inst, status, version: inst.version + 1, updatedBy: writer.id, updatedAt: now, ...missingCols, ...pendingCols };
      }
      // the values to write (one upsert whatever their number) and, of them, the changed ones (their history, and the
      // verification marks they end)
      const rows: SaveRow[] = [];
      const changes: AuditChange[] = [];
      const written: { variable: string; value: { v: unknown }; entryMode: number; quality: string | null; sourceRef: string | null }[] = [];
      let changedCount = 0;
      for (const [k, v] of incoming) {
        const old = current.get(k);
        const quality = v.quality ?? null;
        const ref = refOf(k);
        const mode = modeOf(k);
        if (old && same(old.value?.v, v.value) && old.entryMode === mode && (old.quality ?? null) === quality && (old.sourceRef ?? null) === ref) continue;
        // an unchanged pre-filled value keeps where it came from when the form is saved again by hand
        if (old && same(old.value?.v, v.value) && old.sourceRef && !ref) continue;
        if (!old && empty(v.value)) continue;
        const changed = !(old && same(old.value?.v, v.value));
        // a change pre-filled from a source record is the value's newest pre-fill (kept when edited by hand later)
        const filled = changed && ref?.startsWith('source:') ? ref : null;
        const value = { v: v.value };
        written.push({ variable: k, value, entryMode: mode, quality, sourceRef: ref });
        rows.push({
          variable: k,
          value,
          entry_mode: mode,
          quality,
          source_ref: ref,
          filled_ref: filled,
          changed,
          old_value: changed ? { v: old?.value?.v ?? null } : null,
          reason: changed ? (v.reason ?? null) : null,
          cause: changed ? (v.cause ?? null) : null,
        });
        if (!changed) continue;
        changedCount++;
        changes.push({ field: k, oldValue: old?.value?.v ?? null, newValue: v.value, reason: v.reason ?? null, entryMode: mode, cause: v.cause ?? null });
      }
      // the instance's update, the values, their history and the marks the changed values lose, in one statement of
      // constant text (issue 16 item 4: one round trip, not four); each write only when the instance's update found
      // its version. The rows go as one JSON parameter.
      let lost: LostMark[] = [];
      const items = JSON.stringify(rows);
      // $5: the instance's version after this save (its history rows carry it; the update finds the one before)
      const common = [inst!.id, items, writer.id, now.toISOString(), inst!.version, writer.name];
      if (updated) {
        const answer = await rawRows<{ t: string } & LostMark>(tx, WRITE_SAVE_UPDATE, [
          ...common,
          status,
          missing,
          missing.length,
          form.lockVersion,
          updated.pending,
          inst!.pendingShareId ?? null,
          actor.userId,
          MARK_STATUS.lost,
          MARK_STATUS.active,
        ]);
        if (!answer.some((r) => r.t === 'i')) {
          // another save won the race: name it (the row as committed now)
          const [won] = await tx.select().from(crfInstances).where(eq(crfInstances.id, inst!.id));
          throw won ? await staleWrite(tx, won.updatedBy, won.updatedAt) : new AppError('STALE_WRITE', { user: '?', time: now.toISOString() });
        }
        lost = answer.filter((r) => r.t === 'lost');
      } else if (rows.length) await rawRows(tx, WRITE_SAVE_NEW, common);
      // a new instance or a new status moves the subject's current visit and form progress, and a new status or other
      // missing items the report counts (subjects.report_counts, migration 0040)
      if (prevStatus !== status || !same(prevMissing, missing)) await this.subjects.refreshProgress(tx, [subject.id]);
      await auditLostMarks(tx, actor, inst!, lost);
      // automatic queries: raised for a value kept outside its soft range (not by a draft: work in progress), closed
      // once a save — a draft too — corrects it. An open one exists only while the stored value carries the warning,
      // so a save whose items carry none, before or after, has nothing to look up (the save is a hot path).
      const flagged = [...incoming].filter(([k, v]) => v.quality || current.get(k)?.quality);
      if (flagged.length) {
        await syncAutoQueries(
          tx,
          actor,
          inst!,
          flagged.map(([variable, v]) => ({ variable, quality: v.quality ?? null, ...(v.params ? { params: v.params } : {}) })),
          { raise: input.entryMode !== ENTRY_MODE.stash },
        );
      }
      // one audit event for the save, carrying its item changes (issue 16 item 3: one chained row per action, not one
      // per item); the item history keeps its row per item (crf_value_history, read by the history screens). Last,
      // as everywhere: the chain's lock is the last lock a transaction takes, so that no two writers wait on each other
      if (changes.length)
        await recordAudit(tx, actor, [
          { action: 'crf.value', entity: 'crf_instance', entityId: inst!.id, projectId: ctx.project.id, siteId: subject.siteId, subjectId: subject.id, changes },
        ]);
      // (a save that changes nothing accepts the answers as they are)
      if (reviews && pendingBefore) await endReview(tx, actor, pendingBefore, changedCount ? 'corrected' : 'accepted', inst!);
      // the saved state as this transaction wrote it: what was stored, with this batch's writes on top
      const values: CrfInstanceView['values'] = {};
      for (const [k, v] of current) values[k] = itemView(v, setBy.get(k) ?? null);
      for (const u of written) values[u.variable] = itemView({ value: u.value, entryMode: u.entryMode, sourceRef: u.sourceRef, quality: u.quality, updatedAt: now }, writer.name);
      const pending = inst!.pendingShareId ? { shareId: inst!.pendingShareId, submittedAt: participant ? now.toISOString() : inst!.updatedAt.toISOString() } : null;
      return viewFrom(form, def, inst, values, null, pending);
    });
  }

  private async instanceById(tx: Db | Tx, ctx: ProjectScopedContext, id: number) {
    const [inst] = await tx.select().from(crfInstances).where(and(eq(crfInstances.id, id), isNull(crfInstances.deletedAt)));
    if (!inst) throw new AppError('NOT_FOUND', { entity: 'form' });
    await this.subjects.find(tx, ctx, inst.subjectId);
    return inst;
  }

  async history(ctx: ProjectScopedContext, instanceId: number, variable: string | undefined) {
    await this.instanceById(this.db, ctx, instanceId);
    const rows = await this.db
      .select()
      .from(crfValueHistory)
      .where(and(eq(crfValueHistory.instanceId, instanceId), variable ? eq(crfValueHistory.variable, variable) : undefined))
      .orderBy(asc(crfValueHistory.id));
    return rows.map((r) => ({
      id: r.id,
      variable: r.variable,
      oldValue: r.oldValue?.v ?? null,
      newValue: r.newValue?.v ?? null,
      entryMode: r.entryMode,
      reason: r.reason,
      cause: r.cause,
      quality: r.quality,
      sourceRef: r.sourceRef,
      userName: r.userName,
      createTime: r.createdAt.toISOString(),
    }));
  }

  /**
   * Certify (completed → certified) or uncertify with a reason (certified → completed). Certifying is an electronic
   * signature: the route has re-authenticated the signer, and `signature` carries the meaning they signed with.
   */
  async certify(ctx: ProjectScopedContext, instanceId: number, version: number, on: boolean, reason: string | undefined, signature?: Signature) {
    return this.db.transaction(async (tx) => {
      const inst = await this.instanceById(tx, ctx, instanceId);
      if (inst.version !== version) throw await staleWrite(tx, inst.updatedBy, inst.updatedAt);
      if (on && inst.status !== CRF_STATUS.completed) throw new AppError('CONFLICT', { detail: translator(ctx.language)('errors.CERTIFY_NOT_COMPLETED') });
      // a participant's answers are reviewed by the site before anyone signs for them
      if (on && inst.pendingShareId) throw new AppError('FORM_PENDING_REVIEW', { id: inst.pendingShareId });
      if (!on && inst.status !== CRF_STATUS.certified) throw new AppError('CONFLICT', { detail: 'conflict.notCertified' });
      if (!on && !reason) throw new AppError('REASON_REQUIRED', { detail: 'conflict.toUncertify' }, [{ field: 'reason', message: 'validation.reasonRequired' }]);
      return (await this.setCertified(tx, ctx, [inst], on, reason, signature))[0]!;
    });
  }

  /**
   * Certifies (or uncertifies) several forms in one transaction, each at the version the user saw: any form that
   * changed since, is not in the needed state or is out of reach is named, and then nothing changes.
   */
  async certifyBatch(ctx: ProjectScopedContext, items: { instanceId: number; version: number }[], on: boolean, reason: string | undefined, signature?: Signature) {
    const t = translator(ctx.language);
    if (!on && !reason) throw new AppError('REASON_REQUIRED', { detail: 'conflict.toUncertify' }, [{ field: 'reason', message: 'validation.reasonRequired' }]);
    return this.db.transaction(async (tx) => {
      const ids = [...new Set(items.map((i) => i.instanceId))];
      const rows = await tx
        .select({ i: crfInstances, formName: forms.name })
        .from(crfInstances)
        .innerJoin(subjects, eq(subjects.id, crfInstances.subjectId))
        .innerJoin(forms, eq(forms.id, crfInstances.formId))
        .where(and(inArray(crfInstances.id, ids), isNull(crfInstances.deletedAt), this.subjects.scope(ctx)));
      const byId = new Map(rows.map((r) => [r.i.id, r]));
      const problems: FieldProblem[] = [];
      for (const it of items) {
        const r = byId.get(it.instanceId);
        const field = r ? `${r.formName}${r.i.repeatNo > 1 ? ` #${r.i.repeatNo}` : ''}` : String(it.instanceId);
        if (!r) problems.push({ field, message: t('errors.NOT_FOUND', { entity: t('entities.form') }) });
        else if (r.i.version !== it.version) problems.push({ field, message: t('ecrf.changedSince', { time: r.i.updatedAt.toISOString().slice(0, 16).replace('T', ' ') }) });
        else if (on && r.i.status !== CRF_STATUS.completed) problems.push({ field, message: t('errors.CERTIFY_NOT_COMPLETED') });
        else if (on && r.i.pendingShareId) problems.push({ field, message: t('errors.FORM_PENDING_REVIEW', { id: r.i.pendingShareId }) });
        else if (!on && r.i.status !== CRF_STATUS.certified) problems.push({ field, message: t('ecrf.notCertified') });
      }
      if (problems.length) {
        throw new AppError('CONFLICT', { detail: problems.map((p) => `${p.field}: ${p.message}`).join('; ') }, problems);
      }
      return this.setCertified(tx, ctx, ids.map((id) => byId.get(id)!.i), on, reason, signature);
    });
  }

  private async setCertified(tx: Tx, ctx: ProjectScopedContext, list: (typeof crfInstances.$inferSelect)[], on: boolean, reason: string | undefined, signature?: Signature) {
    // a certification is a signature; none may be recorded without one (the routes re-authenticate first)
    if (on && !signature) throw new Error('certifying needs an electronic signature');
    const sigLine = signature ? signatureLine(ctx, signature) : null;
    const now = new Date();
    const out: { id: number; status: number; version: number }[] = [];
    for (const inst of list) {
      const [after] = await tx
        .update(crfInstances)
        .set({
          status: on ? CRF_STATUS.certified : CRF_STATUS.completed,
          certifiedBy: on ? ctx.user.id : null,
          certifiedAt: on ? now : null,
          version: inst.version + 1,
          // who changed the row last: a stale certify names the signer, not the last saver
          updatedBy: ctx.user.id,
          updatedAt: now,
        })
        .where(and(eq(crfInstances.id, inst.id), eq(crfInstances.version, inst.version)))
        .returning();
      if (!after) throw new AppError('STALE_WRITE', { user: '?', time: now.toISOString() });
      out.push({ id: after.id, status: after.status, version: after.version });
    }
    await this.subjects.refreshProgress(tx, [...new Set(list.map((i) => i.subjectId))]);
    await recordAudit(
      tx,
      actorOf(ctx),
      list.map((inst) => ({
        action: on ? 'crf.certify' : 'crf.uncertify',
        entity: 'crf_instance',
        entityId: inst.id,
        projectId: ctx.project.id,
        siteId: inst.siteId,
        subjectId: inst.subjectId,
        field: 'status',
        oldValue: inst.status,
        newValue: on ? CRF_STATUS.certified : CRF_STATUS.completed,
        // the signature manifest (§11.50): signer, meaning, re-authentication; the time is the event's
        reason: sigLine ? (reason ? `${sigLine}; ${reason}` : sigLine) : (reason ?? null),
      })),
    );
    return out;
  }

  /** Removes one repeat of a cycle form (kept, marked deleted, with a reason). */
  async deleteRepeat(ctx: ProjectScopedContext, instanceId: number, reason: string, outer?: Tx) {
    const inTx = (fn: (tx: Tx) => Promise<void>) => (outer ? fn(outer) : this.db.transaction(fn));
    await inTx(async (tx) => {
      const inst = await this.instanceById(tx, ctx, instanceId);
      const [form] = await tx.select().from(forms).where(eq(forms.id, inst.formId));
      if (!(form!.definition as unknown as FormDefinition).cycle) throw new AppError('CONFLICT', { detail: 'conflict.notCycleForm' });
      if (inst.status === CRF_STATUS.certified) throw new AppError('FORM_CERTIFIED');
      await tx.update(crfInstances).set({ deletedAt: new Date(), version: inst.version + 1 }).where(eq(crfInstances.id, inst.id));
      await this.subjects.refreshProgress(tx, [inst.subjectId]);
      await recordAudit(tx, actorOf(ctx), [
        { action: 'crf.deleteRepeat', entity: 'crf_instance', entityId: inst.id, projectId: ctx.project.id, siteId: inst.siteId, subjectId: inst.subjectId, oldValue: inst.repeatNo, reason },
      ]);
    });
  }

  async addUnscheduled(ctx: ProjectScopedContext, input: z.output<typeof unscheduledRequest>) {
    return this.db.transaction(async (tx) => {
      const subject = await this.subjects.find(tx, ctx, input.ptsId);
      const [visit] = await tx.select().from(visits).where(eq(visits.id, input.visitId));
      if (!visit || !visit.unscheduled || visit.versionId !== subject.designVersionId) throw new AppError('INVALID_REFERENCE', { field: 'visitId' });
      const [u] = await tx
        .insert(subjectUnscheduledVisits)
        .values({ subjectId: subject.id, visitId: visit.id, visitDate: input.visitDate, label: input.label ?? null, createdBy: ctx.user.id })
        .returning();
      await this.subjects.refreshProgress(tx, [subject.id]);
      await recordAudit(tx, actorOf(ctx), [
        { action: 'visit.unscheduled', entity: 'subject', entityId: subject.id, projectId: ctx.project.id, siteId: subject.siteId, subjectId: subject.id, newValue: `${visit.code} ${input.visitDate}` },
      ]);
      return { id: u!.id };
    });
  }

  /** The subject's visits: planned dates and windows from the first visit, state, and each form's status. */
  async schedule(ctx: ProjectScopedContext, ptsId: number, today = new Date().toISOString().slice(0, 10)): Promise<ScheduleVisit[]> {
    const subject = await this.subjects.find(this.db, ctx, ptsId);
    if (!subject.designVersionId) return [];
    const vs = await this.db.select().from(visits).where(eq(visits.versionId, subject.designVersionId)).orderBy(asc(visits.sortOrder), asc(visits.dayOffset));
    if (vs.length === 0) return [];
    const links = await this.db
      .select({ visitId: visitForms.visitId, formId: forms.id, code: forms.code, name: forms.name, definition: forms.definition, sortOrder: visitForms.sortOrder })
      .from(visitForms)
      .innerJoin(forms, eq(forms.id, visitForms.formId))
      .where(inArray(visitForms.visitId, vs.map((v) => v.id)))
      .orderBy(asc(visitForms.sortOrder));
    const insts = await this.db.select().from(crfInstances).where(and(eq(crfInstances.subjectId, subject.id), isNull(crfInstances.deletedAt)));
    const uns = await this.db.select().from(subjectUnscheduledVisits).where(eq(subjectUnscheduledVisits.subjectId, subject.id)).orderBy(asc(subjectUnscheduledVisits.visitDate));
    const build = (v: (typeof vs)[number], unscheduledId: number, win: { planned: string; start: string; end: string } | null, label: string | null): ScheduleVisit => {
      const fs = links
        .filter((l) => l.visitId === v.id)
        .map((l) => {
          const is = insts.filter((i) => i.visitId === v.id && i.formId === l.formId && i.unscheduledId === unscheduledId).sort((a, b) => a.repeatNo - b.repeatNo);
          const status = is.length === 0 ? CRF_STATUS.notStarted : Math.min(...is.map((i) => i.status));
          return {
            formId: l.formId,
            code: l.code,
            name: l.name,
            nameEn: (l.definition as { nameEn?: string }).nameEn ?? null,
            cycle: Boolean((l.definition as { cycle?: boolean }).cycle),
            status,
            instances: is.map((i) => ({ id: i.id, repeatNo: i.repeatNo, status: i.status, version: i.version, pendingReview: i.pendingShareId !== null })),
            pendingReview: is.some((i) => i.pendingShareId !== null),
          };
        });
      const done = fs.length > 0 && fs.every((f) => f.status >= CRF_STATUS.completed);
      return {
        visitId: v.id,
        unscheduledId,
        code: v.code,
        name: label ? `${v.name} · ${label}` : v.name,
        nameEn: v.nameEn ? (label ? `${v.nameEn} · ${label}` : v.nameEn) : null,
        unscheduled: v.unscheduled,
        planned: win?.planned ?? null,
        start: win?.start ?? null,
        end: win?.end ?? null,
        state: win ? visitState(win, done, today, v.unscheduled) : done ? 'done' : 'inWindow',
        forms: fs,
      };
    };
    const out: ScheduleVisit[] = [];
    for (const v of vs) {
      if (v.unscheduled) {
        for (const u of uns.filter((x) => x.visitId === v.id)) {
          out.push(build(v, u.id, { planned: u.visitDate, start: u.visitDate, end: u.visitDate }, u.label || null));
        }
      } else out.push(build(v, 0, visitWindow(subject.firstVisitDate, v), null));
    }
    return out;
  }
}
