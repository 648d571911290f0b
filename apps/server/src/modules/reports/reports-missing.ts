/**
 * Missing data down to the item (/visual/report/crfReportMissing): in saved forms (draft or completed) of the
 * caller's scope, the required items that are empty while their display condition shows them.
 *
 * Whether an item shows is decided by the eCRF's own rule (missingRequired → settleConditions → the condition
 * evaluator of packages/shared/conditions.ts), never by a re-implementation in SQL. It is not run per form either:
 * what it answers depends only on a form's *signature* — the values of the items its conditions read, and which of
 * its required items hold a value — so SQL groups the saved forms by signature (only forms that lack a required
 * item), the rule runs once per distinct signature (a handful: "SEX = 2, PREG empty" …), and its answer goes back
 * into SQL as a table (form, signature → missing items) that the page, its total and its summary are read through.
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
import { forms, sites, subjects, visits } from '../../db/schema';
import type { ProjectScopedContext } from '../../lib/context';
import { offsetOf, pageOf } from '../../lib/page';
import { likeOf, rowsOf } from '../../lib/sql';
import { codeWhere, fieldLabel, nameIn, subjectWhere, type ReportsService } from './reports.service';

type MissingQuery = z.output<typeof crfMissingRequest>;
type MissingFilters = z.output<typeof crfMissingExportRequest>;
type Sort = Pick<MissingQuery, 'sortField' | 'sortOrder'>;

/** A form with required items: what the signature reads and what the rule needs. */
interface FormPlan {
  id: number;
  code: string;
  name: string;
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
        inst as materialized (
          select i.id, i.form_id from crf_instances i
            join ${subjects} on ${subjects.id} = i.subject_id
            ${f.visitCode !== undefined ? sql`join ${visits} on ${visits.id} = i.visit_id` : sql``}
           where ${this.instanceWhere(ctx, f)} and i.form_id = any(${sql.param([...plan.keys()])}::int[])
        ), filled as (
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
    const byForm = new Map<string, CrfMissingSummary['byForm'][number]>();
    const byItem = new Map<string, CrfMissingSummary['byItem'][number]>();
    let checked = 0;
    let missing = 0;
    let formsWithMissing = 0;
    for (const g of rows) {
      if (g.form_id === null) {
        checked = Number(g.n);
        continue;
      }
      const p = plan.get(g.form_id);
      if (!p) continue;
      const k = (typeof g.k === 'string' ? JSON.parse(g.k) : (g.k ?? {})) as ItemValues;
      const vars = new Set(missingRequired(p.def, k));
      // in form order, the filter's item only
      const items = p.required.filter((v) => vars.has(v));
      if (items.length === 0) continue;
      const n = Number(g.n);
      groups.push({ items, ids: g.ids ?? [] });
      missing += n * items.length;
      formsWithMissing += n;
      const form = byForm.get(p.code) ?? { formCode: p.code, formName: p.name, forms: 0, missing: 0 };
      form.forms += n;
      form.missing += n * items.length;
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
        item.missing += n;
        byItem.set(key, item);
      }
    }
    const formOrder = [...new Set([...plan.values()].map((p) => p.code))];
    const summary: CrfMissingSummary = {
      formsChecked: checked,
      formsWithMissing,
      missing,
      byForm: [...byForm.values()].sort(
        (a, b) => formOrder.indexOf(a.formCode) - formOrder.indexOf(b.formCode),
      ),
      byItem: [...byItem.values()]
        .sort(
          (a, b) => b.missing - a.missing || formOrder.indexOf(a.formCode) - formOrder.indexOf(b.formCode),
        )
        .slice(0, CRF_MISSING_TOP_ITEMS),
    };
    return { groups, summary };
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
    const res = rowsOf<{
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
    }>(
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
    return res.map((r) => {
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
    });
  }

  /** POST /visual/report/crfReportMissing */
  async page(ctx: ProjectScopedContext, q: MissingQuery): Promise<CrfMissingPage> {
    const plan = await this.plan(ctx, q);
    if (plan.size === 0) {
      // still checks the filters' site and version (refused when out of reach)
      subjectWhere(ctx, q);
      return { ...pageOf(q, 0, []), summary: EMPTY_SUMMARY };
    }
    const { groups, summary } = await this.evaluate(ctx, q, plan);
    const content = await this.rows(ctx, plan, groups, q, { limit: q.pageSize, offset: offsetOf(q) });
    return { ...pageOf(q, summary.missing, content), summary };
  }

  /**
   * Every missing item of the filters in subject-number order, a few thousand forms at a time (the export: memory
   * stays flat whatever the study's size). The summary comes first.
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
        rows: await this.rows(
          ctx,
          plan,
          groups,
          { sortField: 'ptsNo', sortOrder: 'asc' },
          { ids: new Set(ordered.slice(i, i + chunk)) },
        ),
      };
    }
  }
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
