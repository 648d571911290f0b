/**
 * Queries (issue 13, /project/doubtList; spec §4 query open / replied / closed, §7 eCRF Queries): a question on an
 * eCRF item, a form, a visit or a subject. Raised by monitors and data managers (doubt:querying:add) or automatically
 * when a save keeps a value outside its soft range (closed automatically when the value is corrected); the site
 * answers (doubt:querying:reply), possibly changing the item's value in the same transaction through the eCRF's
 * normal save path (reason required); the raiser closes it (doubt:querying:close) or reopens it with a reason. Every
 * step is a message of the thread and an audit event, version-checked. A caller reaches the queries of its sites'
 * live subjects, in the statuses its permissions show (doubt:querying|replied|closed:query).
 */
import { and, asc, count, desc, eq, ilike, inArray, isNull, ne, or, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import {
  CRF_STATUS,
  ENTRY_MODE,
  QUERY_ACTIONS,
  QUERY_STATUS,
  QUERY_STATUS_PERMISSION,
  formFields,
  type FieldComponent,
  type FormDefinition,
  type Language,
  type QueryAction,
  type QueryDetail,
  type QueryView,
  type queryAddRequest,
  type queryListRequest,
  type queryUpdateRequest,
} from '@esource/shared';
import type { Db, Tx } from '../../db/client';
import { crfInstances, crfValues, forms, queries, queryCounts, queryMessages, sites, subjects, users, visits } from '../../db/schema';
import type { ProjectScopedContext } from '../../lib/context';
import { AppError } from '../../lib/errors';
import { translator } from '../../lib/i18n';
import { offsetOf, pageOf } from '../../lib/page';
import { siteScope } from '../../lib/site-scope';
import { likeOf, rowsOf } from '../../lib/sql';
import { staleWrite } from '../../lib/stale';
import { fieldError } from '../../lib/validate';
import { actorOf, recordAudit } from '../audit/audit.service';
import { SubjectsService } from '../subjects/subjects.service';
import { EcrfService } from '../ecrf/ecrf.service';
import { notifyQuery } from './query-notify';

type QueryRow = typeof queries.$inferSelect;
const Q = QUERY_STATUS;
const STATUSES = [Q.querying, Q.replied, Q.closed] as const;

/** The statuses the caller may see (doubt:<tab>:query). */
export function visibleStatuses(ctx: ProjectScopedContext): number[] {
  return STATUSES.filter((s) => ctx.pms.has(QUERY_STATUS_PERMISSION[s]));
}

/** An automatic query's question in the reader's language. */
function autoText(lang: Language, rule: string | null, params: Record<string, string | number> | null): string {
  return translator(lang)(`queries.auto.${rule ?? 'range'}`, { ...(params ?? {}), defaultValue: rule ?? '' });
}

function levelOf(q: Pick<QueryRow, 'variable' | 'instanceId' | 'formId' | 'visitId'>): QueryView['level'] {
  if (q.variable) return 'item';
  if (q.formId) return 'form';
  if (q.visitId) return 'visit';
  return 'subject';
}

export class QueriesService {
  private readonly subjects: SubjectsService;
  private readonly ecrf: EcrfService;
  constructor(private readonly db: Db) {
    this.subjects = new SubjectsService(db);
    this.ecrf = new EcrfService(db);
  }

  /** The caller's queries: project, environment, sites, live subjects, visible statuses. The query must join subjects. */
  scope(ctx: ProjectScopedContext): SQL {
    const statuses = visibleStatuses(ctx);
    return and(
      eq(queries.projectId, ctx.project.id),
      eq(queries.env, ctx.env),
      siteScope(queries.siteId, ctx),
      ne(subjects.status, 0),
      inArray(queries.status, statuses.length ? statuses : [-1]),
    )!;
  }

  /**
   * The exact number of the caller's queries with these keys (status, site, origin), summed from query_counts (queries
   * of live subjects, kept by triggers, migration 0029): a scalar sub-select over a few rows.
   */
  private countByKeys(ctx: ProjectScopedContext, k: { status?: number | undefined; siteId?: number | undefined; origin?: 'manual' | 'auto' | undefined }): SQL<number> {
    const statuses = visibleStatuses(ctx);
    const c = queryCounts;
    const where = and(
      eq(c.projectId, ctx.project.id),
      eq(c.env, ctx.env),
      siteScope(c.siteId, ctx),
      inArray(c.status, statuses.length ? statuses : [-1]),
      k.status !== undefined ? eq(c.status, k.status) : undefined,
      k.siteId !== undefined ? eq(c.siteId, k.siteId) : undefined,
      k.origin ? eq(c.origin, k.origin) : undefined,
    );
    return sql<number>`(select coalesce(sum(${c.n}), 0)::int from ${c} where ${where})`.mapWith(Number);
  }

  /**
   * The rows as the views need them; `total`, when given, rides along on every row (the list's total). The site,
   * visit, form and author are looked up per row (sub-selects on primary keys) rather than joined: with six tables
   * joined, planning the statement took longer (≈ 2 ms) than running it on a page of 50. A page leaves out the
   * form's definition (`withDefinition` false: each row would carry its form's whole JSON) and reads the few forms'
   * definitions once (fieldsOf).
   */
  private select(db: Db | Tx, total: SQL = sql`null`, withDefinition = true) {
    const last = sql<string | null>`(select ${queryMessages.text} from ${queryMessages} where ${queryMessages.queryId} = ${queries.id} and ${queryMessages.action} <> 'raise' and ${queryMessages.text} is not null order by ${queryMessages.id} desc limit 1)`;
    const of = <T>(col: { name: string }, table: typeof sites | typeof visits | typeof forms | typeof users, key: SQL) =>
      sql<T>`(select ${sql.identifier(col.name)} from ${table} where ${table.id} = ${key})`;
    return db
      .select({
        q: queries,
        ptsNo: subjects.ptsNo,
        siteName: of<string>(sites.name, sites, sql`${queries.siteId}`),
        visitName: of<string | null>(visits.name, visits, sql`${queries.visitId}`),
        visitNameEn: of<string | null>(visits.nameEn, visits, sql`${queries.visitId}`),
        formName: of<string | null>(forms.name, forms, sql`${queries.formId}`),
        formNameEn: of<string | null>(forms.nameEn, forms, sql`${queries.formId}`),
        definition: withDefinition ? of<typeof forms.$inferSelect.definition | null>(forms.definition, forms, sql`${queries.formId}`) : sql<null>`null`,
        createdBy: of<string | null>(users.name, users, sql`${queries.createdBy}`),
        last,
        total: sql<number | string | null>`(${total})`,
      })
      .from(queries)
      .innerJoin(subjects, eq(subjects.id, queries.subjectId));
  }

  /** The items of the rows' forms (item-level rows only), one read of the distinct forms' definitions. */
  private async fieldsOf(db: Db | Tx, rows: readonly { q: QueryRow }[]): Promise<Map<number, FieldComponent[]>> {
    const ids = [...new Set(rows.filter((r) => r.q.variable && r.q.formId !== null).map((r) => r.q.formId!))];
    if (ids.length === 0) return new Map();
    const defs = await db.select({ id: forms.id, definition: forms.definition }).from(forms).where(inArray(forms.id, ids));
    return new Map(defs.map((d) => [d.id, formFields((d.definition as unknown as FormDefinition).components)]));
  }

  /** `fields`: the items of the row's form (from fieldsOf); otherwise taken from the row's definition. */
  private toView(lang: Language, r: Awaited<ReturnType<ReturnType<QueriesService['select']>['where']>>[number], fields?: readonly FieldComponent[]): QueryView {
    const q = r.q;
    const en = lang === 'en_US';
    const items = fields ?? (r.definition ? formFields((r.definition as unknown as FormDefinition).components) : undefined);
    const field = q.variable ? items?.find((f) => f.variable === q.variable) : undefined;
    return {
      id: q.id,
      ptsId: q.subjectId,
      ptsNo: r.ptsNo,
      siteId: q.siteId,
      siteName: r.siteName,
      visitId: q.visitId,
      visitName: r.visitName === null ? null : en && r.visitNameEn ? r.visitNameEn : r.visitName,
      unscheduledId: q.unscheduledId,
      formId: q.formId,
      formName: r.formName === null ? null : en && r.formNameEn ? r.formNameEn : r.formName,
      repeatNo: q.repeatNo,
      instanceId: q.instanceId,
      variable: q.variable,
      itemLabel: field ? (en && field.labelEn ? field.labelEn : field.label) : null,
      level: levelOf(q),
      origin: q.origin,
      text: q.origin === 'auto' ? autoText(lang, q.rule, q.params) : (q.text ?? ''),
      status: q.status,
      version: q.version,
      createdBy: q.origin === 'auto' ? translator(lang)('queries.system') : r.createdBy,
      createTime: q.createdAt.toISOString(),
      updateTime: q.updatedAt.toISOString(),
      lastMessage: r.last,
    };
  }

  private where(ctx: ProjectScopedContext, q: Omit<z.output<typeof queryListRequest>, 'pageNumber' | 'pageSize' | 'sortOrder'>): SQL {
    return and(
      this.scope(ctx),
      q.status !== undefined ? eq(queries.status, q.status) : undefined,
      q.siteId !== undefined ? eq(queries.siteId, q.siteId) : undefined,
      q.ptsId !== undefined ? eq(queries.subjectId, q.ptsId) : undefined,
      q.ptsNo ? ilike(subjects.ptsNo, likeOf(q.ptsNo)) : undefined,
      q.visitId !== undefined ? eq(queries.visitId, q.visitId) : undefined,
      q.unscheduledId !== undefined ? eq(queries.unscheduledId, q.unscheduledId) : undefined,
      q.formId !== undefined ? eq(queries.formId, q.formId) : undefined,
      q.origin ? eq(queries.origin, q.origin) : undefined,
      q.keyword ? or(ilike(queries.text, likeOf(q.keyword)), ilike(queries.variable, likeOf(q.keyword))) : undefined,
    )!;
  }

  /**
   * One page in the list's order (read from queries_list) and the exact total. Filtered by status, site and origin
   * only (the tabs), the total rides along with the rows, summed from the counters: one statement per page.
   */
  async list(ctx: ProjectScopedContext, q: z.output<typeof queryListRequest>) {
    const where = this.where(ctx, q);
    const dir = q.sortOrder === 'asc' ? asc : desc;
    const page = (total?: SQL) => this.select(this.db, total, false).where(where).orderBy(dir(queries.updatedAt), dir(queries.id)).limit(q.pageSize).offset(offsetOf(q));
    const views = async (rows: Awaited<ReturnType<typeof page>>) => {
      const fields = await this.fieldsOf(this.db, rows);
      return rows.map((r) => this.toView(ctx.language, r, r.q.formId !== null ? (fields.get(r.q.formId) ?? []) : []));
    };
    if (q.ptsId !== undefined || q.ptsNo || q.visitId !== undefined || q.unscheduledId !== undefined || q.formId !== undefined || q.keyword) {
      // filters the counters do not hold: the rows and an exact count side by side
      const [total, rows] = await Promise.all([this.db.select({ n: count() }).from(queries).innerJoin(subjects, eq(subjects.id, queries.subjectId)).where(where), page()]);
      return pageOf(q, total[0]?.n ?? 0, await views(rows));
    }
    const counted = this.countByKeys(ctx, q);
    const rows = await page(counted);
    const totalCount = rows.length ? Number(rows[0]!.total) : Number(rowsOf<{ n: number | string }>(await this.db.execute(sql`select ${counted} as n`))[0]?.n ?? 0);
    return pageOf(q, totalCount, await views(rows));
  }

  /** Every row of the filter (the export), newest first, at most `max`. */
  async all(ctx: ProjectScopedContext, q: z.output<typeof queryListRequest>, max: number): Promise<QueryView[]> {
    const rows = await this.select(this.db, sql`null`, false).where(this.where(ctx, q)).orderBy(desc(queries.updatedAt), desc(queries.id)).limit(max);
    const fields = await this.fieldsOf(this.db, rows);
    return rows.map((r) => this.toView(ctx.language, r, r.q.formId !== null ? (fields.get(r.q.formId) ?? []) : []));
  }

  /** Per status in the caller's scope (the tabs): from the counters, one statement. */
  async counts(ctx: ProjectScopedContext) {
    const [r] = rowsOf<{ querying: number | string; replied: number | string; closed: number | string }>(
      await this.db.execute(
        sql`select ${this.countByKeys(ctx, { status: Q.querying })} as querying, ${this.countByKeys(ctx, { status: Q.replied })} as replied, ${this.countByKeys(ctx, { status: Q.closed })} as closed`,
      ),
    );
    return { querying: Number(r?.querying ?? 0), replied: Number(r?.replied ?? 0), closed: Number(r?.closed ?? 0) };
  }

  /** The open and answered queries of one form instance per item (null: on the form itself). */
  async fieldMarks(ctx: ProjectScopedContext, instanceId: number) {
    const rows = await this.db
      .select({ id: queries.id, variable: queries.variable, status: queries.status })
      .from(queries)
      .innerJoin(subjects, eq(subjects.id, queries.subjectId))
      .where(and(eq(queries.instanceId, instanceId), this.scope(ctx), inArray(queries.status, [Q.querying, Q.replied])))
      .orderBy(asc(queries.id));
    const by = new Map<string | null, { variable: string | null; open: number; replied: number; ids: number[] }>();
    for (const r of rows) {
      const m = by.get(r.variable) ?? { variable: r.variable, open: 0, replied: 0, ids: [] };
      if (r.status === Q.querying) m.open++;
      else m.replied++;
      m.ids.push(r.id);
      by.set(r.variable, m);
    }
    return [...by.values()];
  }

  private async row(db: Db | Tx, ctx: ProjectScopedContext, id: number): Promise<QueryRow> {
    const [r] = await db
      .select({ q: queries })
      .from(queries)
      .innerJoin(subjects, eq(subjects.id, queries.subjectId))
      .where(and(eq(queries.id, id), this.scope(ctx)));
    if (!r) throw new AppError('NOT_FOUND', { entity: 'query' });
    return r.q;
  }

  /** What the caller may do with a query now (the status table and its permissions). */
  private actionsFor(ctx: ProjectScopedContext, q: QueryRow): QueryAction[] {
    return (Object.keys(QUERY_ACTIONS) as QueryAction[]).filter((a) => {
      const act = QUERY_ACTIONS[a];
      return (act.from as readonly number[]).includes(q.status) && ctx.pms.has(act.permission);
    });
  }

  async detail(ctx: ProjectScopedContext, id: number, db: Db | Tx = this.db): Promise<QueryDetail> {
    const [r] = await this.select(db)
      .where(and(eq(queries.id, id), this.scope(ctx)));
    if (!r) throw new AppError('NOT_FOUND', { entity: 'query' });
    const msgs = await db.select().from(queryMessages).where(eq(queryMessages.queryId, id)).orderBy(asc(queryMessages.id));
    const [v] = r.q.instanceId && r.q.variable ? await db.select({ value: crfValues.value }).from(crfValues).where(and(eq(crfValues.instanceId, r.q.instanceId), eq(crfValues.variable, r.q.variable))) : [];
    const t = translator(ctx.language);
    return {
      ...this.toView(ctx.language, r),
      messages: msgs.map((m) => ({
        id: m.id,
        action: m.action,
        text: m.action === 'raise' && r.q.origin === 'auto' ? autoText(ctx.language, r.q.rule, r.q.params) : m.text,
        oldValue: m.oldValue?.v ?? null,
        newValue: m.newValue?.v ?? null,
        changed: m.newValue !== null,
        userName: m.userId === null ? t('queries.system') : m.userName,
        createTime: m.createdAt.toISOString(),
      })),
      value: v?.value?.v ?? null,
      field: r.q.variable && r.definition ? (formFields((r.definition as unknown as FormDefinition).components).find((f) => f.variable === r.q.variable) ?? null) : null,
      actions: this.actionsFor(ctx, r.q),
    };
  }

  // ── raise ──
  async add(ctx: ProjectScopedContext, input: z.output<typeof queryAddRequest>): Promise<QueryDetail> {
    const lang = ctx.language;
    if (input.formId !== undefined && input.visitId === undefined) throw fieldError(lang, 'visitId', 'validation.required');
    if (input.variable !== undefined && input.formId === undefined) throw fieldError(lang, 'formId', 'validation.required');
    return this.db.transaction(async (tx) => {
      const [s] = await tx.select().from(subjects).where(and(eq(subjects.id, input.ptsId), this.subjects.scope(ctx), ne(subjects.status, 0)));
      if (!s) throw new AppError('NOT_FOUND', { entity: 'subject' });
      let instanceId: number | null = null;
      if (input.visitId !== undefined) {
        const [v] = await tx.select({ id: visits.id }).from(visits).where(and(eq(visits.id, input.visitId), eq(visits.versionId, s.designVersionId ?? -1)));
        if (!v) throw new AppError('NOT_FOUND', { entity: 'visit' });
      }
      if (input.formId !== undefined) {
        const [i] = await tx
          .select({ i: crfInstances, f: forms })
          .from(crfInstances)
          .innerJoin(forms, eq(forms.id, crfInstances.formId))
          .where(
            and(
              eq(crfInstances.subjectId, s.id),
              eq(crfInstances.visitId, input.visitId!),
              eq(crfInstances.unscheduledId, input.unscheduledId),
              eq(crfInstances.formId, input.formId),
              eq(crfInstances.repeatNo, input.repeatNo),
              isNull(crfInstances.deletedAt),
            ),
          );
        if (!i) {
          const [f] = await tx.select({ name: forms.name, nameEn: forms.nameEn }).from(forms).where(eq(forms.id, input.formId));
          if (!f) throw new AppError('NOT_FOUND', { entity: 'form' });
          throw new AppError('QUERY_NO_DATA', { form: lang === 'en_US' && f.nameEn ? f.nameEn : f.name });
        }
        instanceId = i.i.id;
        if (input.variable !== undefined && !formFields((i.f.definition as unknown as FormDefinition).components).some((f) => f.variable === input.variable)) {
          throw fieldError(lang, 'variable', 'validation.unknownItem');
        }
      }
      const [q] = await tx
        .insert(queries)
        .values({
          env: ctx.env,
          projectId: ctx.project.id,
          siteId: s.siteId,
          subjectId: s.id,
          visitId: input.visitId ?? null,
          unscheduledId: input.unscheduledId,
          formId: input.formId ?? null,
          repeatNo: input.repeatNo,
          instanceId,
          variable: input.variable ?? null,
          origin: 'manual',
          text: input.text,
          status: Q.querying,
          createdBy: ctx.user.id,
          updatedBy: ctx.user.id,
        })
        .returning();
      await tx.insert(queryMessages).values({ queryId: q!.id, action: 'raise', text: input.text, userId: ctx.user.id, userName: ctx.user.name });
      await recordAudit(tx, actorOf(ctx), [
        { action: 'query.add', entity: 'query', entityId: q!.id, projectId: ctx.project.id, siteId: s.siteId, subjectId: s.id, field: input.variable ?? null, newValue: input.text },
      ]);
      const d = await this.detail(ctx, q!.id, tx);
      await notifyQuery(tx, { queryId: q!.id, event: 'raise', env: ctx.env, projectId: ctx.project.id, siteId: s.siteId, ptsNo: s.ptsNo, item: d.itemLabel ?? d.formName ?? d.visitName, text: input.text, raiserId: ctx.user.id, actorId: ctx.user.id });
      return d;
    });
  }

  // ── reply, close, reopen ──
  async update(ctx: ProjectScopedContext, input: z.output<typeof queryUpdateRequest>): Promise<QueryDetail> {
    const t = translator(ctx.language);
    const act = QUERY_ACTIONS[input.action];
    if (!ctx.pms.has(act.permission)) throw new AppError('FORBIDDEN');
    if ((input.action === 'reply' || input.action === 'reopen') && !input.text) throw fieldError(ctx.language, 'text', 'validation.required');
    return this.db.transaction(async (tx) => {
      const q = await this.row(tx, ctx, input.id);
      if (q.version !== input.version) throw await staleWrite(tx, q.updatedBy, q.updatedAt);
      if (!(act.from as readonly number[]).includes(q.status)) throw new AppError('QUERY_TRANSITION', { from: t(`queries.status.${q.status}`), to: t(`queries.status.${act.to}`) });
      let change: { old: unknown; new: unknown } | null = null;
      if (input.value !== undefined) {
        if (input.action !== 'reply' || !q.instanceId || !q.variable) throw fieldError(ctx.language, 'value', 'queries.valueOnlyOnItem');
        const [inst] = await tx.select().from(crfInstances).where(and(eq(crfInstances.id, q.instanceId), isNull(crfInstances.deletedAt)));
        if (!inst) throw new AppError('NOT_FOUND', { entity: 'form' });
        const [old] = await tx.select({ value: crfValues.value }).from(crfValues).where(and(eq(crfValues.instanceId, inst.id), eq(crfValues.variable, q.variable)));
        // the eCRF's own save: its checks, its reason rule, its history and audit, in this transaction
        await this.ecrf.saveBatch(
          ctx,
          {
            ptsId: inst.subjectId,
            visitId: inst.visitId,
            formId: inst.formId,
            unscheduledId: inst.unscheduledId,
            repeatNo: inst.repeatNo,
            version: inst.version,
            entryMode: inst.status === CRF_STATUS.draft ? ENTRY_MODE.stash : ENTRY_MODE.manual,
            items: [{ variable: q.variable, value: input.value, reason: input.reason }],
          },
          { tx },
        );
        change = { old: old?.value?.v ?? null, new: input.value };
      }
      const now = new Date();
      const [after] = await tx
        .update(queries)
        .set({
          status: act.to,
          version: q.version + 1,
          updatedBy: ctx.user.id,
          updatedAt: now,
          ...(act.to === Q.closed ? { closedBy: ctx.user.id, closedAt: now } : input.action === 'reopen' ? { closedBy: null, closedAt: null } : {}),
        })
        .where(and(eq(queries.id, q.id), eq(queries.version, q.version)))
        .returning({ id: queries.id });
      if (!after) throw await staleWrite(tx, q.updatedBy, q.updatedAt);
      await tx.insert(queryMessages).values({
        queryId: q.id,
        action: input.action,
        text: input.text ?? null,
        oldValue: change ? { v: change.old } : null,
        newValue: change ? { v: change.new } : null,
        userId: ctx.user.id,
        userName: ctx.user.name,
      });
      await recordAudit(tx, actorOf(ctx), [
        { action: `query.${input.action}`, entity: 'query', entityId: q.id, projectId: q.projectId, siteId: q.siteId, subjectId: q.subjectId, field: 'status', oldValue: q.status, newValue: act.to, reason: input.text ?? null },
      ]);
      const d = await this.detail(ctx, q.id, tx);
      if (input.action !== 'close') {
        await notifyQuery(tx, { queryId: q.id, event: input.action, env: q.env, projectId: q.projectId, siteId: q.siteId, ptsNo: d.ptsNo, item: d.itemLabel ?? d.formName ?? d.visitName, text: input.text ?? null, raiserId: q.origin === 'manual' ? q.createdBy : null, actorId: ctx.user.id });
      }
      return d;
    });
  }
}
