/**
 * Missing data down to the item (/visual/report/crfReportMissing): in saved forms (draft or completed) of the
 * caller's scope, the required items that are empty while their display condition shows them.
 *
 * Whether an item shows is decided by the eCRF's own rule (missingRequired → settleConditions → the condition
 * evaluator of packages/shared/conditions.ts), never by a re-implementation in SQL. Every save runs it and keeps the
 * answer on the instance (crf_instances.missing_items, migration 0040), and refresh_subject_progress counts those
 * into crf_report_counts in the same transaction: the summary adds up a few hundred counter rows (or, filtered by a
 * subject number, the lists of the matching subjects' forms), and a page reads the lists of the forms that miss an
 * item (an index of them by subject).
 *
 * Until every saved instance of the forms has its list computed against the form's current definition (instances
 * from before 0040 until the workers have computed them, ecrf/missing-items.ts; a draft version's form edited in
 * DEV), the report evaluates the forms itself as it did before 0040: the rule is not run per form but per distinct
 * *signature* — the values of the items a form's conditions read, and which of its required items hold a value — so
 * SQL groups the saved forms by signature (only forms that lack a required item), the rule runs once per signature,
 * and its answer goes back into SQL as a table (form, signature → missing items). Slower, never wrong.
 */
import { and, inArray, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import {
  CRF_MISSING_TOP_ITEMS,
  formFields,
  missingRequired,
  referencedVariables,
  visitLabel,
  type CrfMissingPage,
  type CrfMissingRow,
  type CrfMissingSummary,
  type FormDefinition,
  type ItemValues,
  type crfMissingExportRequest,
  type crfMissingRequest,
} from '@esource/shared';
import type { Db } from '../../db/client';
import { crfReportCounts, forms, sites, subjects, visits } from '../../db/schema';
import type { ProjectScopedContext } from '../../lib/context';
import { offsetOf, pageOf } from '../../lib/page';
import { likeOf, rowsOf } from '../../lib/sql';
import { codeWhere, countsWhere, fieldLabel, nameIn, subjectWhere, type ReportsService } from './reports.service';

type MissingQuery = z.output<typeof crfMissingRequest>;
type MissingFilters = z.output<typeof crfMissingExportRequest>;
type Sort = Pick<MissingQuery, 'sortField' | 'sortOrder'>;

/** A form with required items: what the signature reads and what the rule needs. */
interface FormPlan {
  id: number;
  code: string;
  name: string;
  /** forms.lock_version: the definition a stored list must have been computed against */
  rev: number;
  def: FormDefinition;
  /** required, not hidden items (narrowed to the filter's item), in form order */
  required: string[];
  /** items any display condition of the form reads */
  read: string[];
  labels: Map<string, string>;
}

/** Forms of one signature that miss items: the items (in form order) and the forms. */
interface MissingGroup {
  items: string[];
  ids: number[];
}

const EMPTY_SUMMARY: CrfMissingSummary = {
  formsChecked: 0,
  formsWithMissing: 0,
  missing: 0,
  byForm: [],
  byItem: [],
};

/** A value that counts as an answer (as `blank` in ecrf.schema.ts: not null, '' or an empty list). */
const ANSWERED = sql`(v.value -> 'v') not in ('null'::jsonb, '""'::jsonb, '[]'::jsonb)`;

/**
 * The form's signature (`k`): the answers of the items conditions read, and `true` for each other required item that
 * is answered. Needs `inst` (the instance) and `r` (its plan row).
 */
const SIGNATURE = sql`cross join lateral (
    select coalesce(jsonb_object_agg(v.variable, case when v.variable = any(r.c) then v.value -> 'v' else 'true'::jsonb end), '{}'::jsonb) as k
      from crf_values v
     where v.instance_id = inst.id and (v.variable = any(r.r) or v.variable = any(r.c)) and ${ANSWERED}
  ) sig`;

/** The columns of each sort (the chosen direction applies to each). */
const SORT_COLUMNS: Record<MissingQuery['sortField'], SQL[]> = {
  ptsNo: [sql`${subjects.ptsNo}`],
  site: [sql`${sites.siteNo}`],
  visit: [sql`${visits.unscheduled}`, sql`${visits.sortOrder}`, sql`${visits.code}`],
  form: [sql`${forms.sortOrder}`, sql`${forms.code}`],
  item: [sql`x.var`],
  formStatus: [sql`i.status`],
  updateTime: [sql`i.updated_at`],
};

/** The order within one value of a sort's leading column: the stable order that follows it. */
const BY_SUBJECT: Sort = { sortField: 'ptsNo', sortOrder: 'asc' };

/**
 * Items few enough to read all and sort, rather than walk an index in the page's order (`whole`; a module object so
 * that the tests can make a small set take the walk, and compare both ways).
 */
export const missingTuning = { whole: 2000 };

/** The chosen column(s) in the chosen direction, then a stable order: subject, visit, form, repeat, item. */
function orderBy(s: Sort): SQL {
  const dir = sql.raw(s.sortOrder === 'desc' ? 'desc' : 'asc');
  const chosen = sql.join(
    SORT_COLUMNS[s.sortField].map((c) => sql`${c} ${dir}`),
    sql`, `,
  );
  return sql`${chosen}, ${subjects.ptsNo}, ${visits.sortOrder}, i.unscheduled_id, ${forms.sortOrder}, i.repeat_no, i.id, x.ord`;
}

export class MissingReport {
  constructor(
    private readonly db: Db,
    private readonly reports: ReportsService,
  ) {}

  /** The forms of the versions in scope that have required items (the filter's form and item only). */
  private async plan(ctx: ProjectScopedContext, f: MissingFilters): Promise<Map<number, FormPlan>> {
    const versionIds = await this.reports.versionIds(ctx, f);
    const out = new Map<number, FormPlan>();
    if (versionIds.length === 0) return out;
    const rows = await this.db
      .select({
        id: forms.id,
        code: forms.code,
        name: forms.name,
        nameEn: forms.nameEn,
        definition: forms.definition,
        lockVersion: forms.lockVersion,
      })
      .from(forms)
      .where(and(inArray(forms.versionId, versionIds), codeWhere({ formCode: f.formCode })))
      .orderBy(forms.sortOrder, forms.code, forms.id);
    for (const r of rows) {
      const def = r.definition as unknown as FormDefinition;
      const fields = formFields(def.components ?? []);
      const required = fields
        .filter((x) => x.required && !x.hidden && (f.variable === undefined || x.variable === f.variable))
        .map((x) => x.variable);
      if (required.length === 0) continue;
      const read = new Set<string>();
      for (const c of def.components ?? []) {
        for (const v of c.displayCondition ? referencedVariables(c.displayCondition) : []) read.add(v);
        if (c.type === 'table')
          for (const cell of c.cells)
            for (const v of cell.component?.displayCondition
              ? referencedVariables(cell.component.displayCondition)
              : [])
              read.add(v);
      }
      out.set(r.id, {
        id: r.id,
        code: r.code,
        name: nameIn(r, ctx.language),
        rev: r.lockVersion,
        def,
        required,
        read: [...read],
        labels: new Map(fields.map((x) => [x.variable, fieldLabel(x, x.variable, ctx.language)])),
      });
    }
    return out;
  }

  /** Saved instances of the scope and filters (needs `i`, `subjects`, `visits` in the query). */
  private instanceWhere(ctx: ProjectScopedContext, f: MissingFilters): SQL {
    return sql`i.project_id = ${ctx.project.id} and i.env = ${ctx.env} and i.deleted_at is null
      and ${f.formStatus !== undefined ? sql`i.status = ${f.formStatus}` : sql`i.status in (1, 2)`}
      and ${subjectWhere(ctx, f)} and ${codeWhere({ visitCode: f.visitCode })}
      ${f.ptsNo ? sql`and ${subjects.ptsNo} ilike ${likeOf(f.ptsNo)}` : sql``}`;
  }

  /** `from crf_instances i …`: the saved instances of the plan's forms in the scope and filters. */
  private instancesIn(ctx: ProjectScopedContext, f: MissingFilters, plan: Map<number, FormPlan>): SQL {
    return sql`from crf_instances i
            join ${subjects} on ${subjects.id} = i.subject_id
            ${f.visitCode !== undefined ? sql`join ${visits} on ${visits.id} = i.visit_id` : sql``}
           where ${this.instanceWhere(ctx, f)} and i.form_id = any(${sql.param([...plan.keys()])}::int[])`;
  }

  private static planJson(plan: Map<number, FormPlan>): string {
    return JSON.stringify([...plan.values()].map((p) => ({ f: p.id, r: p.required, c: p.read })));
  }

  /**
   * The scope's incomplete saved forms grouped by signature, each group run once through the eCRF's rule: the groups
   * that miss items (their items and forms) and the summary. One statement: the saved forms in scope (materialised),
   * how many required items each holds (one hash join over the values, no per-form lookups), and the signature of
   * those that lack one; the first row counts the forms checked.
   */
  private async evaluate(ctx: ProjectScopedContext, f: MissingFilters, plan: Map<number, FormPlan>) {
    const required = [...new Set([...plan.values()].flatMap((p) => p.required))];
    const rows = rowsOf<{
      form_id: number | null;
      k: ItemValues | string | null;
      n: number | string;
      ids: number[] | null;
    }>(
      await this.db.execute(sql`
        with r as (select * from jsonb_to_recordset(${MissingReport.planJson(plan)}::jsonb) as r(f int, r text[], c text[])),
        inst as materialized (select i.id, i.form_id ${this.instancesIn(ctx, f, plan)}), filled as (
          select v.instance_id, count(*) as n
            from crf_values v join inst on inst.id = v.instance_id join r on r.f = inst.form_id
           where v.variable = any(${sql.param(required)}::varchar[]) and v.variable = any(r.r) and ${ANSWERED}
           group by 1
        ), inc as materialized (
          -- only forms that lack a required item need their signature (most saved forms hold every one)
          select inst.id, inst.form_id from inst join r on r.f = inst.form_id left join filled on filled.instance_id = inst.id
           where coalesce(filled.n, 0) < cardinality(r.r)
        )
        select null::int as form_id, null::jsonb as k, count(*) as n, null::int[] as ids from inst
        union all
        select inst.form_id, sig.k, count(*), array_agg(inst.id)
          from inc inst
          join r on r.f = inst.form_id
          ${SIGNATURE}
         group by 1, 2`),
    );
    const groups: MissingGroup[] = [];
    const counts = new Map<number, FormCounts>();
    for (const g of rows) {
      if (g.form_id === null) continue;
      const p = plan.get(g.form_id);
      if (!p) continue;
      const k = (typeof g.k === 'string' ? JSON.parse(g.k) : (g.k ?? {})) as ItemValues;
      const vars = new Set(missingRequired(p.def, k));
      // in form order, the filter's item only
      const items = p.required.filter((v) => vars.has(v));
      if (items.length === 0) continue;
      const n = Number(g.n);
      groups.push({ items, ids: g.ids ?? [] });
      const c = countsOf(counts, p.id);
      c.withMissing += n;
      for (const v of items) c.items.set(v, (c.items.get(v) ?? 0) + n);
    }
    const checked = Number(rows.find((g) => g.form_id === null)?.n ?? 0);
    return { groups, summary: summaryOf(plan, checked, counts) };
  }

  /**
   * Whether every instance of the plan's forms (not deleted) has its missing items computed against the form's
   * current definition: two empty ranges of crf_instances_missing_rev per form once they are.
   */
  private async computed(plan: Map<number, FormPlan>): Promise<boolean> {
    const forms = JSON.stringify([...plan.values()].map((p) => ({ f: p.id, rev: p.rev })));
    const [r] = rowsOf<{ pending: boolean }>(
      await this.db.execute(sql`
        select exists (
          select 1 from jsonb_to_recordset(${forms}::jsonb) as r(f int, rev int)
           -- (in index order, not "exists": a range of crf_instances_missing_rev, whatever the statistics say of the nulls)
           where (select 1 from crf_instances i where i.form_id = r.f and i.deleted_at is null and i.missing_rev is null
                   order by i.form_id, i.missing_rev limit 1) is not null
              -- the lowest revision (the first of the form's range: "< rev" alone reads the whole table)
              or (select min(i.missing_rev) from crf_instances i where i.form_id = r.f and i.deleted_at is null) < r.rev
        ) as pending`),
    );
    return !r?.pending;
  }

  /**
   * The summary from the stored lists: the counters of the subjects in scope (crf_report_counts), or with a
   * subject-number search the lists of the matching subjects' forms.
   */
  private async stored(ctx: ProjectScopedContext, f: MissingFilters, plan: Map<number, FormPlan>) {
    let rows: { form_id: number; variable: string; fd: number | string; fc: number | string; md: number | string; mc: number | string }[];
    if (f.ptsNo) {
      rows = rowsOf(
        await this.db.execute(sql`
          with inst as materialized (
            select i.form_id, i.status, i.missing_count, i.missing_items ${this.instancesIn(ctx, f, plan)}
          )
          select form_id, '' as variable, count(*) filter (where status = 1) as fd, count(*) filter (where status = 2) as fc,
                 count(*) filter (where status = 1 and missing_count > 0) as md, count(*) filter (where status = 2 and missing_count > 0) as mc
            from inst group by 1
          union all
          select form_id, x.var, 0, 0, count(*) filter (where status = 1), count(*) filter (where status = 2)
            from inst cross join lateral unnest(missing_items) as x(var)
           where missing_count > 0
           group by 1, 2`),
      );
    } else {
      const c = crfReportCounts;
      rows = rowsOf(
        await this.db.execute(sql`
          select ${c.formId} as form_id, ${c.variable} as variable, sum(${c.formsDraft}) as fd, sum(${c.formsCompleted}) as fc,
                 sum(${c.missingDraft}) as md, sum(${c.missingCompleted}) as mc
            from ${c}
            ${f.visitCode !== undefined ? sql`join ${visits} on ${visits.id} = ${c.visitId}` : sql``}
           where ${countsWhere(ctx, f)} and ${codeWhere({ visitCode: f.visitCode })} and ${c.formId} = any(${sql.param([...plan.keys()])}::int[])
           group by 1, 2`),
      );
    }
    // the figure of the forms in the filter's state (draft, completed or both)
    const pick = (d: number | string, c: number | string) =>
      f.formStatus === 1 ? Number(d) : f.formStatus === 2 ? Number(c) : Number(d) + Number(c);
    const counts = new Map<number, FormCounts>();
    let checked = 0;
    for (const r of rows) {
      const p = plan.get(r.form_id);
      if (!p) continue;
      if (r.variable === '') {
        checked += pick(r.fd, r.fc);
        // the forms missing an item; with an item filter, those missing that item (below)
        if (f.variable === undefined) countsOf(counts, p.id).withMissing += pick(r.md, r.mc);
      } else if (p.required.includes(r.variable)) {
        const n = pick(r.md, r.mc);
        const c = countsOf(counts, p.id);
        c.items.set(r.variable, (c.items.get(r.variable) ?? 0) + n);
        if (f.variable !== undefined) c.withMissing += n;
      }
    }
    return summaryOf(plan, checked, counts);
  }

  /**
   * A page of the stored missing items. Sorted by subject number, the page is read walking the subjects in number
   * order through the index of their forms that miss an item (crf_instances_missing), and stops when full; by update
   * time, walking crf_instances_missing_updated. The other sorts lead with a column of few values (site, visit, form,
   * item, form state): the counters say how many items each value holds, so the page is read value by value, each
   * in subject order (the order that follows the chosen column). A group of few items, or a search by subject number,
   * is read whole and sorted instead (a walk would visit every subject to find them).
   */
  private async storedPage(
    ctx: ProjectScopedContext,
    f: MissingQuery,
    plan: Map<number, FormPlan>,
    total: number,
  ): Promise<CrfMissingRow[]> {
    const limit = f.pageSize;
    let offset = offsetOf(f);
    if (f.ptsNo || total <= missingTuning.whole) return this.storedRows(ctx, f, plan, f, { limit, offset, whole: true });
    if (f.sortField === 'ptsNo' || f.sortField === 'updateTime')
      return this.storedRows(ctx, f, plan, f, { limit, offset });
    const out: CrfMissingRow[] = [];
    for (const g of await this.groups(ctx, f, plan, f)) {
      if (offset >= g.n) {
        offset -= g.n;
        continue;
      }
      const rows = await this.storedRows(ctx, f, plan, BY_SUBJECT, {
        limit: limit - out.length,
        offset,
        where: g.where,
        whole: g.n <= missingTuning.whole,
      });
      out.push(...rows);
      offset = 0;
      if (out.length >= limit) break;
    }
    return out;
  }

  /**
   * The values of the sort's leading column that hold missing items in scope, in the sort's order (PostgreSQL's, as
   * the rows'), with how many each holds and the condition that selects its rows: from the counters.
   */
  private async groups(
    ctx: ProjectScopedContext,
    f: MissingFilters,
    plan: Map<number, FormPlan>,
    sort: Sort,
  ): Promise<{ n: number; where: SQL }[]> {
    const c = crfReportCounts;
    const dir = sql.raw(sort.sortOrder === 'desc' ? 'desc' : 'asc');
    const items = JSON.stringify([...plan.values()].flatMap((p) => p.required.map((v) => ({ f: p.id, v }))));
    const by: Record<Exclude<MissingQuery['sortField'], 'ptsNo' | 'updateTime'>, { key: SQL[]; ids: SQL }> = {
      site: { key: [sql`${sites.siteNo}`], ids: sql`array_agg(distinct ${c.siteId})` },
      visit: {
        key: [sql`${visits.unscheduled}`, sql`${visits.sortOrder}`, sql`${visits.code}`],
        ids: sql`array_agg(distinct ${c.visitId})`,
      },
      form: { key: [sql`${forms.sortOrder}`, sql`${forms.code}`], ids: sql`array_agg(distinct ${c.formId})` },
      item: { key: [sql`${c.variable}`], ids: sql`null::int[]` },
      formStatus: { key: [sql`st.status`], ids: sql`null::int[]` },
    };
    const field = sort.sortField as keyof typeof by;
    const { key, ids } = by[field];
    const rows = rowsOf<{ k0: unknown; n: number | string; ids: number[] | null }>(
      await this.db.execute(sql`
        select ${key[0]} as k0, sum(st.n) as n, ${ids} as ids
          from ${c}
          join jsonb_to_recordset(${items}::jsonb) as pi(f int, v text) on pi.f = ${c.formId} and pi.v = ${c.variable}
          join ${visits} on ${visits.id} = ${c.visitId}
          join ${forms} on ${forms.id} = ${c.formId}
          join ${sites} on ${sites.id} = ${c.siteId}
          cross join lateral (values (1, ${c.missingDraft}), (2, ${c.missingCompleted})) as st(status, n)
         where ${countsWhere(ctx, f)} and ${codeWhere({ visitCode: f.visitCode })}
           ${f.formStatus !== undefined ? sql`and st.status = ${f.formStatus}` : sql``}
         group by ${sql.join(key, sql`, `)}
        having sum(st.n) > 0
         order by ${sql.join(
           key.map((k) => sql`${k} ${dir}`),
           sql`, `,
         )}`),
    );
    return rows.map((r) => ({
      n: Number(r.n),
      where:
        field === 'item'
          ? sql`x.var = ${String(r.k0)}`
          : field === 'formStatus'
            ? sql`i.status = ${Number(r.k0)}`
            : field === 'site'
              ? sql`${subjects.siteId} = any(${sql.param(r.ids ?? [])}::int[])`
              : field === 'visit'
                ? sql`i.visit_id = any(${sql.param(r.ids ?? [])}::int[])`
                : sql`i.form_id = any(${sql.param(r.ids ?? [])}::int[])`,
    }));
  }

  /**
   * The stored missing items of the scope's forms (and `where`), sorted: a page, or all of some subjects (the
   * export). `whole`: the matching items are read first and then sorted (few of them); else the query is left to
   * walk the sort's index and stop at the page's end.
   */
  private async storedRows(
    ctx: ProjectScopedContext,
    f: MissingFilters,
    plan: Map<number, FormPlan>,
    sort: Sort,
    o: { limit?: number; offset?: number; subjectIds?: number[]; where?: SQL; whole?: boolean },
  ): Promise<CrfMissingRow[]> {
    const matching = sql`
          from ${subjects}
          join crf_instances i on i.subject_id = ${subjects.id} and i.missing_count > 0 and i.deleted_at is null
          cross join lateral unnest(i.missing_items) with ordinality as x(var, ord)
          join ${visits} on ${visits.id} = i.visit_id
          join ${forms} on ${forms.id} = i.form_id
          ${sort.sortField === 'site' ? sql`join ${sites} on ${sites.id} = ${subjects.siteId}` : sql``}
         where ${this.instanceWhere(ctx, f)} and i.form_id = any(${sql.param([...plan.keys()])}::int[])
           ${f.variable !== undefined ? sql`and x.var = ${f.variable}` : sql``}
           ${o.where ? sql`and ${o.where}` : sql``}
           ${o.subjectIds ? sql`and ${subjects.id} = any(${sql.param(o.subjectIds)}::int[])` : sql``}`;
    // the names of the page's rows only (sub-selects: fewer relations to plan, evaluated after the limit)
    const columns = sql`i.id as instance_id, ${subjects.id} as pts_id, ${subjects.ptsNo} as pts_no, ${subjects.siteId} as site_id,
               (select s2.name from sites s2 where s2.id = ${subjects.siteId}) as site_name,
               i.visit_id, ${visits.code} as visit_code, ${visits.name} as visit_name, ${visits.nameEn} as visit_name_en,
               (select u.label from subject_unscheduled_visits u where u.id = i.unscheduled_id) as label,
               i.unscheduled_id, i.form_id, i.repeat_no, i.status, x.var,
               (select us.name from users us where us.id = i.updated_by) as user_name, i.updated_at`;
    const page = o.limit !== undefined ? sql`limit ${o.limit} offset ${o.offset ?? 0}` : sql``;
    // The matching items' keys materialised first, then named (the joins and name sub-selects) for the rows shown
    // only. Whole: every key, sorted and paged after naming (few of them). Walked: the page's keys found by walking
    // the sort's index, so a far page (offset 24,950) does not name every row it skips.
    const named = (inner: SQL, outer: SQL) => sql`
        with m as materialized (select i.id, x.var, x.ord ${matching} ${inner})
        select ${columns}
          from m
          join crf_instances i on i.id = m.id
          join ${subjects} on ${subjects.id} = i.subject_id
          join ${visits} on ${visits.id} = i.visit_id
          join ${forms} on ${forms.id} = i.form_id
          ${sort.sortField === 'site' ? sql`join ${sites} on ${sites.id} = ${subjects.siteId}` : sql``}
          cross join lateral (select m.var, m.ord) x
         order by ${orderBy(sort)}
         ${outer}`;
    const res = rowsOf<RowOf>(
      await this.db.execute(
        o.whole
          ? named(sql``, page)
          : o.limit !== undefined
            ? named(sql`order by ${orderBy(sort)} ${page}`, sql``)
            : sql`select ${columns} ${matching} order by ${orderBy(sort)}`,
      ),
    );
    return res.map((r) => rowOf(ctx, plan, r));
  }

  /** The missing items of the groups' forms (or of some of them: `ids`), sorted, one page or all. */
  private async rows(
    ctx: ProjectScopedContext,
    plan: Map<number, FormPlan>,
    groups: MissingGroup[],
    sort: Sort,
    o: { limit?: number; offset?: number; ids?: ReadonlySet<number> },
  ): Promise<CrfMissingRow[]> {
    const ids: number[] = [];
    const groupOf: number[] = [];
    groups.forEach((g, i) => {
      for (const id of g.ids) {
        if (o.ids && !o.ids.has(id)) continue;
        ids.push(id);
        groupOf.push(i);
      }
    });
    if (ids.length === 0) return [];
    const res = rowsOf<RowOf>(
      await this.db.execute(sql`
        with m as (select * from unnest(${sql.param(ids)}::int[], ${sql.param(groupOf)}::int[]) as m(id, g)),
             gv as (select * from jsonb_to_recordset(${JSON.stringify(groups.map((g, i) => ({ g: i, v: g.items })))}::jsonb) as gv(g int, v text[]))
        select i.id as instance_id, ${subjects.id} as pts_id, ${subjects.ptsNo} as pts_no, ${subjects.siteId} as site_id, ${sites.name} as site_name,
               i.visit_id, ${visits.code} as visit_code, ${visits.name} as visit_name, ${visits.nameEn} as visit_name_en, u.label,
               i.unscheduled_id, i.form_id, i.repeat_no, i.status, x.var, us.name as user_name, i.updated_at
          from m
          join gv on gv.g = m.g
          cross join lateral unnest(gv.v) with ordinality as x(var, ord)
          join crf_instances i on i.id = m.id
          join ${subjects} on ${subjects.id} = i.subject_id
          join ${visits} on ${visits.id} = i.visit_id
          join ${forms} on ${forms.id} = i.form_id
          join ${sites} on ${sites.id} = ${subjects.siteId}
          left join subject_unscheduled_visits u on u.id = i.unscheduled_id
          left join users us on us.id = i.updated_by
         order by ${orderBy(sort)}
         ${o.limit !== undefined ? sql`limit ${o.limit} offset ${o.offset ?? 0}` : sql``}`),
    );
    return res.map((r) => rowOf(ctx, plan, r));
  }

  /** POST /visual/report/crfReportMissing */
  async page(ctx: ProjectScopedContext, q: MissingQuery): Promise<CrfMissingPage> {
    const plan = await this.plan(ctx, q);
    if (plan.size === 0) {
      // still checks the filters' site and version (refused when out of reach)
      subjectWhere(ctx, q);
      return { ...pageOf(q, 0, []), summary: EMPTY_SUMMARY };
    }
    const page = { limit: q.pageSize, offset: offsetOf(q) };
    if (await this.computed(plan)) {
      const summary = await this.stored(ctx, q, plan);
      // past the last item: nothing to read
      const content = page.offset < summary.missing ? await this.storedPage(ctx, q, plan, summary.missing) : [];
      return { ...pageOf(q, summary.missing, content), summary };
    }
    const { groups, summary } = await this.evaluate(ctx, q, plan);
    const content = await this.rows(ctx, plan, groups, q, page);
    return { ...pageOf(q, summary.missing, content), summary };
  }

  /**
   * Every missing item of the filters in subject-number order, a few thousand forms (or subjects) at a time (the
   * export: memory stays flat whatever the study's size). The summary comes first.
   */
  async *exportChunks(
    ctx: ProjectScopedContext,
    f: MissingFilters,
    chunk = 2000,
  ): AsyncGenerator<{ summary?: CrfMissingSummary; rows: CrfMissingRow[] }> {
    const plan = await this.plan(ctx, f);
    if (plan.size === 0) {
      subjectWhere(ctx, f);
      yield { summary: EMPTY_SUMMARY, rows: [] };
      return;
    }
    const bySubjectNo: Sort = { sortField: 'ptsNo', sortOrder: 'asc' };
    if (await this.computed(plan)) {
      const summary = await this.stored(ctx, f, plan);
      yield { summary, rows: [] };
      if (summary.missing === 0) return;
      for await (const ids of subjectChunks(this.db, ctx, f, chunk)) {
        const rows = await this.storedRows(ctx, f, plan, bySubjectNo, { subjectIds: ids, whole: true });
        if (rows.length) yield { rows };
      }
      return;
    }
    const { groups, summary } = await this.evaluate(ctx, f, plan);
    yield { summary, rows: [] };
    const all = groups.flatMap((g) => g.ids);
    if (all.length === 0) return;
    // the forms in subject order, then each slice of them with its rows
    const ordered = rowsOf<{ id: number }>(
      await this.db.execute(sql`
        select i.id from crf_instances i join ${subjects} on ${subjects.id} = i.subject_id
         where i.id = any(${sql.param(all)}::int[]) order by ${subjects.ptsNo}, i.id`),
    ).map((r) => r.id);
    for (let i = 0; i < ordered.length; i += chunk) {
      yield {
        rows: await this.rows(ctx, plan, groups, bySubjectNo, { ids: new Set(ordered.slice(i, i + chunk)) }),
      };
    }
  }
}

/** A missing item's row as both readers select it. */
interface RowOf {
  instance_id: number;
  pts_id: number;
  pts_no: string;
  site_id: number;
  site_name: string;
  visit_id: number;
  visit_code: string;
  visit_name: string;
  visit_name_en: string | null;
  label: string | null;
  unscheduled_id: number;
  form_id: number;
  repeat_no: number;
  status: number;
  var: string;
  user_name: string | null;
  updated_at: string | Date;
}

function rowOf(ctx: ProjectScopedContext, plan: Map<number, FormPlan>, r: RowOf): CrfMissingRow {
  const p = plan.get(r.form_id)!;
  const visit = visitLabel({ name: r.visit_name, nameEn: r.visit_name_en }, ctx.language);
  return {
    instanceId: r.instance_id,
    ptsId: r.pts_id,
    ptsNo: r.pts_no,
    siteId: r.site_id,
    siteName: r.site_name,
    visitId: r.visit_id,
    visitCode: r.visit_code,
    visitName: r.label ? `${visit} · ${r.label}` : visit,
    unscheduledId: r.unscheduled_id,
    formId: r.form_id,
    formCode: p.code,
    formName: p.name,
    repeatNo: r.repeat_no,
    formStatus: r.status,
    variable: r.var,
    itemLabel: p.labels.get(r.var) ?? r.var,
    updatedBy: r.user_name,
    updateTime: new Date(r.updated_at).toISOString(),
  };
}

/** A plan form's figures: forms missing an item (of the filter's), and per item the forms missing it. */
interface FormCounts {
  withMissing: number;
  items: Map<string, number>;
}

function countsOf(m: Map<number, FormCounts>, formId: number): FormCounts {
  let c = m.get(formId);
  if (!c) m.set(formId, (c = { withMissing: 0, items: new Map() }));
  return c;
}

/** The summary of the forms checked and each plan form's figures: by form and by item (forms of one code merged). */
function summaryOf(plan: Map<number, FormPlan>, checked: number, counts: Map<number, FormCounts>): CrfMissingSummary {
  const byForm = new Map<string, CrfMissingSummary['byForm'][number]>();
  const byItem = new Map<string, CrfMissingSummary['byItem'][number]>();
  let missing = 0;
  let formsWithMissing = 0;
  for (const p of plan.values()) {
    const c = counts.get(p.id);
    if (!c) continue;
    // in form order
    const items = p.required.filter((v) => (c.items.get(v) ?? 0) > 0);
    if (items.length === 0) continue;
    const n = items.reduce((a, v) => a + c.items.get(v)!, 0);
    missing += n;
    formsWithMissing += c.withMissing;
    const form = byForm.get(p.code) ?? { formCode: p.code, formName: p.name, forms: 0, missing: 0 };
    form.forms += c.withMissing;
    form.missing += n;
    byForm.set(p.code, form);
    for (const v of items) {
      const key = `${p.code}\u0000${v}`;
      const item = byItem.get(key) ?? {
        formCode: p.code,
        formName: p.name,
        variable: v,
        itemLabel: p.labels.get(v) ?? v,
        missing: 0,
      };
      item.missing += c.items.get(v)!;
      byItem.set(key, item);
    }
  }
  const formOrder = [...new Set([...plan.values()].map((p) => p.code))];
  return {
    formsChecked: checked,
    formsWithMissing,
    missing,
    byForm: [...byForm.values()].sort(
      (a, b) => formOrder.indexOf(a.formCode) - formOrder.indexOf(b.formCode),
    ),
    byItem: [...byItem.values()]
      .sort((a, b) => b.missing - a.missing || formOrder.indexOf(a.formCode) - formOrder.indexOf(b.formCode))
      .slice(0, CRF_MISSING_TOP_ITEMS),
  };
}

/** The ids of the scope's subjects (filters and subject-number search applied), `size` at a time in number order. */
export async function* subjectChunks(
  db: Db,
  ctx: ProjectScopedContext,
  f: MissingFilters | (Omit<MissingFilters, 'variable' | 'formStatus'> & { ptsNo?: string | undefined }),
  size: number,
): AsyncGenerator<number[]> {
  let after: string | null = null;
  for (;;) {
    const rows: { id: number; pts_no: string }[] = rowsOf<{ id: number; pts_no: string }>(
      await db.execute(sql`
        select ${subjects.id} as id, ${subjects.ptsNo} as pts_no from ${subjects}
         where ${subjectWhere(ctx, f)} ${f.ptsNo ? sql`and ${subjects.ptsNo} ilike ${likeOf(f.ptsNo)}` : sql``}
           ${after !== null ? sql`and ${subjects.ptsNo} > ${after}` : sql``}
         order by ${subjects.ptsNo} limit ${size}`),
    );
    if (rows.length === 0) return;
    yield rows.map((r) => r.id);
    if (rows.length < size) return;
    after = rows[rows.length - 1]!.pts_no;
  }
}
