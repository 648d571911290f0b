/**
 * The study reports (issue 14 item 5): the filter options (/visual/report/pts/options) and eCRF completion by site,
 * visit or form (/visual/report/crfReport). Scope: the caller's project, environment and sites, live subjects only.
 *
 * Completion counts what refresh_subject_progress (migrations 0007, 0040) counts into subjects.forms_total / forms_done:
 * a subject expects each planned visit × form pair of its design version plus the forms of each unscheduled visit it
 * had; a pair's state is the lowest status of its instances (all repeats of a cycle form), no instance = not started.
 * The same function keeps each subject's pairs by state (subjects.report_counts), which a trigger sums into
 * crf_report_counts per site, subject status, design version, visit and form: a page adds up a few hundred rows
 * whatever the number of subjects (docs/decisions.md, "Reports read maintained counters").
 */
import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
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
import { crfReportCounts, designVersions, forms, sites, subjects, visits } from '../../db/schema';
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
 * The caller's scope (project, environment, sites it reaches, live subjects) and the filters (site, subject status,
 * design version) on a table that has those columns. A site the caller does not reach is refused rather than shown
 * empty.
 */
function scopeWhere(
  t: { projectId: PgColumn; env: PgColumn; siteId: PgColumn; status: PgColumn; versionId: PgColumn },
  ctx: ProjectScopedContext,
  f: ReportFilters,
): SQL {
  if (f.siteId !== undefined && !reachesSite(f.siteId, ctx)) throw new AppError('SITE_FORBIDDEN');
  return and(
    eq(t.projectId, ctx.project.id),
    eq(t.env, ctx.env),
    siteScope(t.siteId, ctx),
    sql`${t.status} <> 0`,
    f.siteId !== undefined ? eq(t.siteId, f.siteId) : undefined,
    f.subjectStatus !== undefined ? eq(t.status, f.subjectStatus) : undefined,
    f.versionId !== undefined ? eq(t.versionId, f.versionId) : undefined,
  )!;
}

/** Live subjects of the caller's scope under the filters, as a condition on the (unaliased) `subjects` table. */
export const subjectWhere = (ctx: ProjectScopedContext, f: ReportFilters): SQL =>
  scopeWhere(
    { projectId: subjects.projectId, env: subjects.env, siteId: subjects.siteId, status: subjects.status, versionId: subjects.designVersionId },
    ctx,
    f,
  );

/** The same scope and filters on the report counters (crf_report_counts: live subjects by site, status, version). */
export const countsWhere = (ctx: ProjectScopedContext, f: ReportFilters): SQL => scopeWhere(crfReportCounts, ctx, f);

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
    const who = countsWhere(ctx, f);
    const versionIds = await this.versionIds(ctx, f);
    const c = crfReportCounts;
    const key =
      groupBy === 'site'
        ? sql`(${c.siteId})::text`
        : groupBy === 'visit'
          ? sql`${visits.code}`
          : sql`${forms.code}`;
    // the pairs of the subjects in scope by state, and the subjects themselves (visit 0, form 0): a few hundred rows
    const pairs = rowsOf<{
      key: string;
      expected: number | string;
      draft: number | string;
      completed: number | string;
      certified: number | string;
    }>(
      await this.db.execute(sql`
        select ${key} as key, sum(${c.expected}) as expected, sum(${c.pairsDraft}) as draft,
               sum(${c.pairsCompleted}) as completed, sum(${c.pairsCertified}) as certified
          from ${c}
          join ${visits} on ${visits.id} = ${c.visitId}
          join ${forms} on ${forms.id} = ${c.formId}
         where ${who} and ${c.variable} = '' and ${codeWhere(f)}
         group by 1`),
    );
    const people = rowsOf<{ key: string; n: number | string }>(
      await this.db.execute(sql`
        select (${c.siteId})::text as key, sum(${c.subjects}) as n
          from ${c}
         where ${who} and ${c.visitId} = 0 and ${c.formId} = 0 and ${c.variable} = ''
         group by 1`),
    );

    const byKey = new Map<
      string,
      { expected: number; draft: number; completed: number; certified: number }
    >();
    for (const r of pairs) {
      const counts = {
        expected: num(r.expected),
        draft: num(r.draft),
        completed: num(r.completed),
        certified: num(r.certified),
      };
      // a group appears when it expects or holds a form (counter rows stay when their counts fall back to 0)
      if (counts.expected || counts.draft || counts.completed || counts.certified) byKey.set(r.key, counts);
    }
    // by site without a visit or form filter: every site with subjects in scope, even one expecting nothing
    if (groupBy === 'site' && f.visitCode === undefined && f.formCode === undefined) {
      for (const r of people)
        if (num(r.n) > 0 && !byKey.has(r.key))
          byKey.set(r.key, { expected: 0, draft: 0, completed: 0, certified: 0 });
    }
    const subjectCount = people.reduce((a, r) => a + num(r.n), 0);

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
        subjects: subjectCount,
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
