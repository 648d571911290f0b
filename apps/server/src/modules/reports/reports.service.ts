/**
 * The study reports (issue 14 item 5): the filter options (/visual/report/pts/options) and eCRF completion by site,
 * visit or form (/visual/report/crfReport). Scope: the caller's project, environment and sites, live subjects only.
 *
 * Completion counts what refresh_subject_progress (migration 0007) counts into subjects.forms_total / forms_done:
 * a subject expects each planned visit × form pair of its design version plus the forms of each unscheduled visit it
 * had; a pair's state is the lowest status of its instances (all repeats of a cycle form), no instance = not started.
 * Everything is aggregated in SQL: the expected pairs from the subjects counted per design version and site (never
 * one row per subject × pair), the started ones from crf_instances grouped per pair.
 */
import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import {
  formFields,
  visitLabel,
  type CrfReport,
  type CrfReportGroup,
  type CrfReportRow,
  type FieldComponent,
  type FormDefinition,
  type ReportOptions,
  type crfReportRequest,
} from '@esource/shared';
import type { Db } from '../../db/client';
import { designVersions, forms, sites, subjects, visits } from '../../db/schema';
import type { ProjectScopedContext } from '../../lib/context';
import { AppError } from '../../lib/errors';
import { reachesSite, siteScope } from '../../lib/site-scope';
import { rowsOf } from '../../lib/sql';

/** The filters every report shares (shared reports.schema filterShape). */
export interface ReportFilters {
  siteId?: number | undefined;
  versionId?: number | undefined;
  visitCode?: string | undefined;
  formCode?: string | undefined;
  subjectStatus?: number | undefined;
}
type CrfQuery = z.output<typeof crfReportRequest>;

/**
 * Live subjects of the caller's scope under the filters, as a condition on the (unaliased) `subjects` table. A site
 * the caller does not reach is refused rather than shown empty.
 */
export function subjectWhere(ctx: ProjectScopedContext, f: ReportFilters): SQL {
  if (f.siteId !== undefined && !reachesSite(f.siteId, ctx)) throw new AppError('SITE_FORBIDDEN');
  return and(
    eq(subjects.projectId, ctx.project.id),
    eq(subjects.env, ctx.env),
    siteScope(subjects.siteId, ctx),
    sql`${subjects.status} <> 0`,
    f.siteId !== undefined ? eq(subjects.siteId, f.siteId) : undefined,
    f.subjectStatus !== undefined ? eq(subjects.status, f.subjectStatus) : undefined,
    f.versionId !== undefined ? eq(subjects.designVersionId, f.versionId) : undefined,
  )!;
}

/** A visit or form code filter on the unaliased `visits` / `forms` table (none: true). */
export function codeWhere(f: Pick<ReportFilters, 'visitCode' | 'formCode'>): SQL {
  return and(
    sql`true`,
    f.visitCode !== undefined ? eq(visits.code, f.visitCode) : undefined,
    f.formCode !== undefined ? eq(forms.code, f.formCode) : undefined,
  )!;
}

/** A form's field by variable, its label in the reader's language. */
export function fieldLabel(
  field: Pick<FieldComponent, 'label' | 'labelEn'> | undefined,
  variable: string,
  language: string,
): string {
  if (!field) return variable;
  return language === 'en_US' && field.labelEn ? field.labelEn : field.label;
}

export const nameIn = (r: { name: string; nameEn: string | null }, language: string) =>
  visitLabel(r, language);

const num = (v: unknown) => Number(v ?? 0);

export class ReportsService {
  constructor(private readonly db: Db) {}

  /**
   * Design versions a report covers: the one the filter names (it must be the project's), else those published to
   * the environment or holding subjects there.
   */
  async versions(ctx: ProjectScopedContext, versionId?: number) {
    const rows = await this.db
      .select({ id: designVersions.id, versionNo: designVersions.versionNo, name: designVersions.name })
      .from(designVersions)
      .where(
        and(
          eq(designVersions.projectId, ctx.project.id),
          sql`(${ctx.env} = any(${designVersions.publishedEnvs}) or exists (
                select 1 from ${subjects} where ${subjects.designVersionId} = ${designVersions.id} and ${subjects.projectId} = ${ctx.project.id} and ${subjects.env} = ${ctx.env}))`,
        ),
      )
      .orderBy(desc(designVersions.versionNo));
    if (versionId === undefined) return rows;
    const one = rows.find((r) => r.id === versionId);
    if (!one) throw new AppError('NOT_FOUND', { entity: 'version' });
    return [one];
  }

  /** Visits of the versions by code: the newest version's name and place in the plan, in plan order. */
  async visitsByCode(ctx: ProjectScopedContext, versionIds: number[]) {
    if (versionIds.length === 0) return [];
    const rows = await this.db
      .select({
        code: visits.code,
        name: visits.name,
        nameEn: visits.nameEn,
        unscheduled: visits.unscheduled,
        sortOrder: visits.sortOrder,
        dayOffset: visits.dayOffset,
      })
      .from(visits)
      .innerJoin(designVersions, eq(designVersions.id, visits.versionId))
      .where(inArray(visits.versionId, versionIds))
      .orderBy(desc(designVersions.versionNo));
    const byCode = new Map<string, (typeof rows)[number]>();
    for (const r of rows) if (!byCode.has(r.code)) byCode.set(r.code, r);
    return [...byCode.values()]
      .sort(
        (a, b) =>
          Number(a.unscheduled) - Number(b.unscheduled) ||
          a.sortOrder - b.sortOrder ||
          a.dayOffset - b.dayOffset ||
          a.code.localeCompare(b.code),
      )
      .map((r) => ({ code: r.code, name: nameIn(r, ctx.language), unscheduled: r.unscheduled }));
  }

  /** Forms of the versions by code: the newest version's name, items and order. */
  async formsByCode(ctx: ProjectScopedContext, versionIds: number[]) {
    if (versionIds.length === 0) return [];
    const rows = await this.db
      .select({
        code: forms.code,
        name: forms.name,
        nameEn: forms.nameEn,
        sortOrder: forms.sortOrder,
        definition: forms.definition,
      })
      .from(forms)
      .innerJoin(designVersions, eq(designVersions.id, forms.versionId))
      .where(inArray(forms.versionId, versionIds))
      .orderBy(desc(designVersions.versionNo));
    const byCode = new Map<string, (typeof rows)[number]>();
    for (const r of rows) if (!byCode.has(r.code)) byCode.set(r.code, r);
    return [...byCode.values()]
      .sort((a, b) => a.sortOrder - b.sortOrder || a.code.localeCompare(b.code))
      .map((r) => ({
        code: r.code,
        name: nameIn(r, ctx.language),
        items: formFields((r.definition as unknown as FormDefinition).components ?? []).map((f) => ({
          variable: f.variable,
          label: fieldLabel(f, f.variable, ctx.language),
          required: Boolean(f.required) && !f.hidden,
        })),
      }));
  }

  /** POST /visual/report/pts/options */
  async options(ctx: ProjectScopedContext, versionId?: number): Promise<ReportOptions> {
    const siteRows = await this.db
      .select({ id: sites.id, siteNo: sites.siteNo, name: sites.name })
      .from(sites)
      .where(and(eq(sites.projectId, ctx.project.id), eq(sites.env, ctx.env), siteScope(sites.id, ctx)))
      .orderBy(asc(sites.siteNo));
    const all = await this.versions(ctx);
    const chosen = versionId === undefined ? all : await this.versions(ctx, versionId);
    const ids = chosen.map((v) => v.id);
    return {
      sites: siteRows,
      versions: all,
      visits: await this.visitsByCode(ctx, ids),
      forms: await this.formsByCode(ctx, ids),
    };
  }

  /** The versions a report reads (the filter's, or every one in scope). */
  async versionIds(ctx: ProjectScopedContext, f: ReportFilters): Promise<number[]> {
    return (await this.versions(ctx, f.versionId)).map((v) => v.id);
  }

  /** POST /visual/report/crfReport */
  async completion(ctx: ProjectScopedContext, f: CrfQuery): Promise<CrfReport> {
    return this.completionBy(ctx, f, f.groupBy);
  }

  async completionBy(
    ctx: ProjectScopedContext,
    f: ReportFilters,
    groupBy: CrfReportGroup,
  ): Promise<CrfReport> {
    const who = subjectWhere(ctx, f);
    const codes = codeWhere(f);
    const versionIds = await this.versionIds(ctx, f);
    const keyOf = (site: SQL): SQL =>
      groupBy === 'site'
        ? sql`(${site})::text`
        : groupBy === 'visit'
          ? sql`${visits.code}`
          : sql`${forms.code}`;

    // A pair (subject × visit occurrence × form) is in the state of its least advanced instance (all repeats of a
    // cycle form). Draft and certified pairs come from the few instances in those states (the status index); a
    // pair is started when it has any instance; done = started − draft, completed = done − certified.
    const planned = sql`join ${visits} on ${visits.id} = x.visit_id and ${visits.versionId} = x.vid and ${visits.unscheduled} = (x.unscheduled_id > 0)
          join visit_forms vf on vf.visit_id = x.visit_id and vf.form_id = x.form_id
          join ${forms} on ${forms.id} = x.form_id`;
    const occurred = sql`(x.unscheduled_id = 0 or exists (select 1 from subject_unscheduled_visits u where u.id = x.unscheduled_id and u.visit_id = x.visit_id))`;
    const states = rowsOf<{ key: string; draft: number | string; certified: number | string }>(
      await this.db.execute(sql`
        with x as (
          select i.subject_id, ${subjects.siteId} as site_id, ${subjects.designVersionId} as vid, i.visit_id, i.unscheduled_id, i.form_id, min(i.status) as st
            from crf_instances i
            join ${subjects} on ${subjects.id} = i.subject_id
           where i.project_id = ${ctx.project.id} and i.env = ${ctx.env} and i.status in (1, 3) and i.deleted_at is null and ${who}
           group by 1, 2, 3, 4, 5, 6
        )
        select ${keyOf(sql`x.site_id`)} as key,
               count(*) filter (where x.st = 1) as draft,
               count(*) filter (where x.st = 3 and not exists (
                 select 1 from crf_instances j
                  where j.subject_id = x.subject_id and j.visit_id = x.visit_id and j.unscheduled_id = x.unscheduled_id
                    and j.form_id = x.form_id and j.deleted_at is null and j.status < 3)) as certified
          from x ${planned}
         where ${codes} and ${occurred}
         group by 1`),
    );
    // expected and done: the subjects' own counters (kept by refresh_subject_progress) when no visit or form narrows
    // the count and sites group it; else the plan × the subjects per version and site, and the started pairs
    const fromCounters = groupBy === 'site' && f.visitCode === undefined && f.formCode === undefined;
    const totals = fromCounters
      ? rowsOf<{ key: string; expected: number | string; done: number | string; n: number | string }>(
          await this.db.execute(sql`
            select (${subjects.siteId})::text as key, sum(${subjects.formsTotal}) as expected, sum(${subjects.formsDone}) as done, count(*) as n
              from ${subjects} where ${who} group by 1`),
        )
      : [];
    const expected = fromCounters
      ? []
      : rowsOf<{ key: string; n: string | number }>(
          await this.db.execute(sql`
            with sc as (
              select ${subjects.designVersionId} as vid, ${subjects.siteId} as site_id, count(*) as n
                from ${subjects} where ${who} group by 1, 2
            ), e as (
              select ${keyOf(sql`sc.site_id`)} as key, sc.n
                from sc
                join ${visits} on ${visits.versionId} = sc.vid and not ${visits.unscheduled}
                join visit_forms vf on vf.visit_id = ${visits.id}
                join ${forms} on ${forms.id} = vf.form_id
               where ${codes}
              union all
              select ${keyOf(sql`${subjects.siteId}`)}, 1
                from subject_unscheduled_visits u
                join ${subjects} on ${subjects.id} = u.subject_id
                join ${visits} on ${visits.id} = u.visit_id
                join visit_forms vf on vf.visit_id = u.visit_id
                join ${forms} on ${forms.id} = vf.form_id
               where ${who} and ${codes}
            )
            select key, sum(n) as n from e group by key`),
        );
    // started pairs: every instance of a form that is not a cycle form is its pair's only one; a cycle form's pair
    // is counted by its first live repeat
    const started = fromCounters
      ? []
      : rowsOf<{ key: string; n: string | number }>(
          await this.db.execute(sql`
            with fc as (
              select ${forms.id} as id, coalesce((${forms.definition} ->> 'cycle')::boolean, false) as cycle
                from ${forms} where ${forms.versionId} = any(${sql.param(versionIds)}::int[])
            ), x as (
              select i.subject_id, ${subjects.siteId} as site_id, ${subjects.designVersionId} as vid, i.visit_id, i.unscheduled_id, i.form_id, i.repeat_no, fc.cycle
                from crf_instances i
                join fc on fc.id = i.form_id
                join ${subjects} on ${subjects.id} = i.subject_id
               where i.project_id = ${ctx.project.id} and i.env = ${ctx.env} and i.deleted_at is null and ${who}
            )
            select ${keyOf(sql`x.site_id`)} as key, count(*) as n
              from x ${planned}
             where ${codes} and ${occurred}
               -- a cycle form's pair once: by its first live repeat
               and (not x.cycle or not exists (
                 select 1 from crf_instances j
                  where j.subject_id = x.subject_id and j.visit_id = x.visit_id and j.unscheduled_id = x.unscheduled_id
                    and j.form_id = x.form_id and j.deleted_at is null and j.repeat_no < x.repeat_no))
             group by 1`),
        );
    const [subjectCount] = fromCounters
      ? [{ n: totals.reduce((a, r) => a + num(r.n), 0) }]
      : rowsOf<{ n: number | string }>(
          await this.db.execute(sql`select count(*) as n from ${subjects} where ${who}`),
        );

    const byKey = new Map<
      string,
      { expected: number; draft: number; completed: number; certified: number }
    >();
    const slot = (k: string) => {
      let s = byKey.get(k);
      if (!s) byKey.set(k, (s = { expected: 0, draft: 0, completed: 0, certified: 0 }));
      return s;
    };
    const done = new Map<string, number>();
    for (const r of totals) {
      slot(r.key).expected += num(r.expected);
      done.set(r.key, num(r.done));
    }
    for (const r of expected) slot(r.key).expected += num(r.n);
    const draft = new Map(states.map((r) => [r.key, num(r.draft)]));
    for (const r of started) done.set(r.key, num(r.n) - (draft.get(r.key) ?? 0));
    for (const r of states) Object.assign(slot(r.key), { draft: num(r.draft), certified: num(r.certified) });
    for (const [k, n] of done) slot(k).completed = n - slot(k).certified;

    const named = await this.groupNames(ctx, groupBy, versionIds, [...byKey.keys()]);
    const rows: CrfReportRow[] = named.map(({ key, code, name }) => ({
      key,
      code,
      name,
      ...countsOf(byKey.get(key) ?? { expected: 0, draft: 0, completed: 0, certified: 0 }),
    }));
    const sum = (k: 'expected' | 'draft' | 'completed' | 'certified') => rows.reduce((a, r) => a + r[k], 0);
    return {
      groupBy,
      rows,
      totals: {
        subjects: num(subjectCount?.n),
        ...countsOf({
          expected: sum('expected'),
          draft: sum('draft'),
          completed: sum('completed'),
          certified: sum('certified'),
        }),
      },
    };
  }

  /** The groups' codes and names, in the report's order (sites by number, visits in plan order, forms in design order). */
  private async groupNames(
    ctx: ProjectScopedContext,
    groupBy: CrfReportGroup,
    versionIds: number[],
    keys: string[],
  ) {
    const present = new Set(keys);
    switch (groupBy) {
      case 'site': {
        const ids = keys.map(Number).filter((x) => Number.isInteger(x));
        if (ids.length === 0) return [];
        const rows = await this.db
          .select({ id: sites.id, siteNo: sites.siteNo, name: sites.name })
          .from(sites)
          .where(inArray(sites.id, ids))
          .orderBy(asc(sites.siteNo));
        return rows.map((r) => ({ key: String(r.id), code: r.siteNo, name: r.name }));
      }
      case 'visit': {
        const list = (await this.visitsByCode(ctx, versionIds)).filter((v) => present.has(v.code));
        const known = new Set(list.map((v) => v.code));
        return [
          ...list.map((v) => ({ key: v.code, code: v.code, name: v.name })),
          ...keys.filter((k) => !known.has(k)).map((k) => ({ key: k, code: k, name: k })),
        ];
      }
      case 'form': {
        const list = (await this.formsByCode(ctx, versionIds)).filter((v) => present.has(v.code));
        const known = new Set(list.map((v) => v.code));
        return [
          ...list.map((v) => ({ key: v.code, code: v.code, name: v.name })),
          ...keys.filter((k) => !known.has(k)).map((k) => ({ key: k, code: k, name: k })),
        ];
      }
    }
  }
}

/** The counts of a row: not started = expected − started (never below 0), done, and the completion rate. */
export function countsOf(c: { expected: number; draft: number; completed: number; certified: number }) {
  const done = c.completed + c.certified;
  return {
    expected: c.expected,
    notStarted: Math.max(0, c.expected - c.draft - done),
    draft: c.draft,
    completed: c.completed,
    certified: c.certified,
    done,
    rate: c.expected > 0 ? done / c.expected : 0,
  };
}
