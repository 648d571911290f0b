/**
 * The data consistency report (/dataConsistencyReport/list and /export): eCRF values that no longer agree with the
 * source record they were pre-filled from.
 *
 * A pre-fill writes `source:<record>:v<version>` into crf_values.source_ref and into the history row of the change
 * (EcrfService.saveBatch); a later change by hand clears crf_values.source_ref but the history keeps it. So a value's
 * pre-fill is its own source_ref while it is unchanged, else the newest history row that carries one — which the save
 * also keeps on the value (crf_values.filled_ref / filled_value, migration 0040), so the history is not read. The
 * value is listed when
 *   - it was edited after the pre-fill (the eCRF no longer holds the value the pre-fill wrote), or
 *   - the source record changed at the hospital since the version it was filled from (its value or unit: the
 *     version kept in source_record_versions is compared with the record now), or
 *   - the source record was deleted at the hospital.
 * The pre-fill may have converted the unit or mapped a code to an option, so the eCRF value is compared with what
 * the pre-fill wrote and the source with itself, never the eCRF value with the raw source value. All in SQL.
 *
 * Every write keeps the answer (docs/decisions.md, "Reports read maintained counters"; migration 0047): each value's
 * reasons (crf_values.differs, set by a trigger on the value and again by one on source_records when its record
 * changes or goes), each subject's listed values per visit × form and reason (subjects.consistency_counts), and their
 * sums per site, subject status, design version, visit and form (crf_report_counts). A page sorted by subject number
 * takes its total from the counters and walks the subjects that have listed values in number order (a partial index
 * of them), reading the values of the page's subjects only; the other sorts, and a subject-number search, read the
 * scope's listed values (a partial index of them) and sort them. The rows themselves are computed from the values
 * and records as before (the same reasons, the same rows): the kept reasons only choose which values to read.
 */
import { inArray, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import {
  formFields,
  visitLabel,
  type ConsistencyPage,
  type ConsistencyReason,
  type ConsistencyRow,
  type FormDefinition,
  type consistencyExportRequest,
  type consistencyRequest,
} from '@esource/shared';
import type { Db } from '../../db/client';
import { crfReportCounts, forms, sites, subjects, visits } from '../../db/schema';
import type { ProjectScopedContext } from '../../lib/context';
import { offsetOf, pageOf } from '../../lib/page';
import { likeOf, rowsOf } from '../../lib/sql';
import { codeWhere, countsWhere, fieldLabel, nameIn, subjectWhere } from './reports.service';

type ListQuery = z.output<typeof consistencyRequest>;
type Filters = z.output<typeof consistencyExportRequest>;
type Sort = Pick<ListQuery, 'sortField' | 'sortOrder'>;

const SORT_COLUMNS: Record<ListQuery['sortField'], string[]> = {
  ptsNo: ['pts_no'],
  site: ['site_no'],
  visit: ['visit_unscheduled', 'visit_sort', 'visit_code'],
  form: ['form_sort', 'form_code'],
  item: ['variable'],
  sourceDate: ['source_date'],
  updateTime: ['updated_at'],
};

function orderBy(s: Sort): SQL {
  const dir = s.sortOrder === 'desc' ? 'desc' : 'asc';
  const chosen = SORT_COLUMNS[s.sortField]
    .map((c) => `${c} ${dir}${dir === 'desc' ? ' nulls last' : ''}`)
    .join(', ');
  return sql.raw(
    `${chosen}, pts_no, visit_sort, unscheduled_id, form_sort, repeat_no, instance_id, variable`,
  );
}

interface Row {
  instance_id: number;
  pts_id: number;
  pts_no: string;
  site_name: string;
  visit_id: number;
  visit_name: string;
  visit_name_en: string | null;
  label: string | null;
  unscheduled_id: number;
  form_id: number;
  form_name: string;
  form_name_en: string | null;
  repeat_no: number;
  variable: string;
  crf_value: unknown;
  filled_value: unknown;
  edited: boolean;
  source_changed: boolean;
  source_deleted: boolean;
  rec_id: number | string;
  filled_version: number;
  current_version: number;
  source_code: string | null;
  source_display: string | null;
  source_value: string | null;
  source_unit: string | null;
  filled_source_value: string | null;
  filled_source_unit: string | null;
  source_date: string | Date | null;
  user_name: string | null;
  updated_at: string | Date;
  entry_mode: number;
  total?: number | string;
}

const dateText = (d: string | Date | null) =>
  d === null ? null : typeof d === 'string' ? d.slice(0, 10) : d.toISOString().slice(0, 10);

export class ConsistencyReport {
  constructor(private readonly db: Db) {}

  /** The bit of crf_values.differs, and the counters' column, of a reason (none: any reason). */
  private static reasonOf(f: Filters): { bit: number; column: string; index: number } {
    switch (f.reason) {
      case 'edited':
        return { bit: 1, column: 'differing_edited', index: 1 };
      case 'sourceChanged':
        return { bit: 2, column: 'differing_changed', index: 2 };
      case 'sourceDeleted':
        return { bit: 4, column: 'differing_deleted', index: 3 };
      case undefined:
      default:
        return { bit: 7, column: 'differing', index: 0 };
    }
  }

  /**
   * The candidates: ids of the values of the caller's project and environment listed for the reason (of some
   * subjects: `subjectIds`), through the partial index of listed values. Read first and passed to the listing as an
   * array, whose length the planner then knows.
   */
  private async candidates(ctx: ProjectScopedContext, f: Filters, subjectIds?: number[]): Promise<number[]> {
    const { bit } = ConsistencyReport.reasonOf(f);
    return rowsOf<{ id: number }>(
      await this.db.execute(
        subjectIds
          ? sql`
        select v.id from crf_instances i join crf_values v on v.instance_id = i.id and v.differs <> 0 and v.differs & ${bit} <> 0
         where i.subject_id = any(${sql.param(subjectIds)}::int[]) and i.deleted_at is null
           and i.project_id = ${ctx.project.id} and i.env = ${ctx.env}`
          : sql`
        select v.id from crf_values v join crf_instances i on i.id = v.instance_id
         where v.differs <> 0 and v.differs & ${bit} <> 0
           and i.project_id = ${ctx.project.id} and i.env = ${ctx.env} and i.deleted_at is null`,
      ),
    ).map((r) => r.id);
  }

  /** The listed values of the scope and filters: the counters of the subjects in scope (crf_report_counts). */
  private async counted(ctx: ProjectScopedContext, f: Filters): Promise<number> {
    const c = crfReportCounts;
    const codes = f.visitCode !== undefined || f.formCode !== undefined;
    const [r] = rowsOf<{ n: number | string | null }>(
      await this.db.execute(sql`
        select sum(${sql.raw(`crf_report_counts.${ConsistencyReport.reasonOf(f).column}`)}) as n
          from ${c}
          ${codes ? sql`join ${visits} on ${visits.id} = ${c.visitId} join ${forms} on ${forms.id} = ${c.formId}` : sql``}
         where ${countsWhere(ctx, f)} and ${codeWhere(f)} and ${c.variable} = ''`),
    );
    return Number(r?.n ?? 0);
  }

  /**
   * The subjects in scope that have listed values of the filters, in the sort's subject-number order, each with how
   * many: at most `limit` (each has one at least), walking the partial index of the subjects that have any.
   */
  private async walk(
    ctx: ProjectScopedContext,
    f: Filters,
    dir: 'asc' | 'desc',
    limit: number,
  ): Promise<{ id: number; n: number }[]> {
    const { index } = ConsistencyReport.reasonOf(f);
    const codes = f.visitCode !== undefined || f.formCode !== undefined;
    const d = sql.raw(dir);
    return rowsOf<{ id: number; n: number | string }>(
      await this.db.execute(sql`
        select ${subjects.id} as id, k.n
          from ${subjects}
          cross join lateral (
            select sum((e.value ->> ${sql.raw(String(index))})::int) as n
              from jsonb_each(${subjects}.consistency_counts) e
              ${
                codes
                  ? sql`join ${visits} on ${visits.id} = split_part(e.key, ':', 1)::int
              join ${forms} on ${forms.id} = split_part(e.key, ':', 2)::int`
                  : sql``
              }
             where ${codeWhere(f)}
          ) k
         where ${subjectWhere(ctx, f)} and ${subjects}.consistency_counts <> '{}'::jsonb and k.n > 0
         order by ${subjects.ptsNo} ${d}
         limit ${limit}`),
    ).map((r) => ({ id: r.id, n: Number(r.n) }));
  }

  /**
   * The listed values of the scope and filters, sorted: one page (with the total), the total alone, or the values of
   * some subjects (an export chunk). The candidates are sorted and counted on narrow rows (their reasons and sort
   * keys); what a row shows besides is read for the page's rows only.
   */
  private async query(
    ctx: ProjectScopedContext,
    f: Filters,
    sort: Sort,
    o: { limit?: number; offset?: number; subjectIds?: number[]; count?: boolean; candidates?: number[] },
  ): Promise<Row[]> {
    const reason: Record<ConsistencyReason, string> = {
      edited: 'edited',
      sourceChanged: 'source_changed',
      sourceDeleted: 'source_deleted',
    };
    const flagged = f.reason ? sql.raw(reason[f.reason]) : sql`(edited or source_changed or source_deleted)`;
    const ids = o.candidates ?? (await this.candidates(ctx, f));
    if (ids.length === 0) return [];
    const listed = this.listed(ctx, f, ids, sort, o.subjectIds);
    if (o.count) {
      return rowsOf<Row>(await this.db.execute(sql`${listed} select count(*) as total from z where ${flagged}`));
    }
    const paged = o.limit !== undefined;
    return rowsOf<Row>(
      await this.db.execute(sql`${listed}
        select z.*, d.*
          from (
            select z.*${paged ? sql`, count(*) over () as total` : sql``} from z where ${flagged}
             order by ${orderBy(sort)}
             ${paged ? sql`limit ${o.limit} offset ${o.offset ?? 0}` : sql``}
          ) z
          -- what the rows show: read for these rows only
          cross join lateral (
            select ${sites.name} as site_name, ${visits.name} as visit_name, ${visits.nameEn} as visit_name_en,
                   ${forms.name} as form_name, ${forms.nameEn} as form_name_en, u.label,
                   r.code as source_code, r.display as source_display, coalesce(r.value_num::text, r.value_text) as source_value,
                   r.unit as source_unit, coalesce(rv.value_num::text, rv.value_text) as filled_source_value, rv.unit as filled_source_unit,
                   us.name as user_name
              from source_records r
              join ${sites} on ${sites.id} = z.site_id
              join ${visits} on ${visits.id} = z.visit_id
              join ${forms} on ${forms.id} = z.form_id
              left join source_record_versions rv on rv.record_id = z.rec_id and rv.version = z.filled_version
              left join subject_unscheduled_visits u on u.id = z.unscheduled_id
              left join users us on us.id = z.updated_by
             where r.id = z.rec_id
          ) d
         order by ${orderBy(sort)}`),
    );
  }

  /**
   * `with p, z`: the values among `ids` in the caller's scope and filters (subjects among `subjectIds`), each with
   * what it was filled with, its reasons and its sort keys.
   */
  private listed(ctx: ProjectScopedContext, f: Filters, ids: number[], sort: Sort, subjectIds?: number[]): SQL {
    const bySite = sort.sortField === 'site';
    return sql`
        with p as (
          -- a value that carries its source was filled as it is now; else what its newest pre-fill wrote
          select v.instance_id, v.variable,
                 case when v.source_ref like 'source:%' then v.source_ref else v.filled_ref end as ref,
                 case when v.source_ref like 'source:%' then v.value else v.filled_value end as filled,
                 v.value as cur, v.updated_by, v.updated_at, v.entry_mode
            from unnest(${sql.param(ids)}::int[]) as c(id)
            join crf_values v on v.id = c.id
        ), z as (
          select i.id as instance_id, ${subjects.id} as pts_id, ${subjects.ptsNo} as pts_no, ${subjects.siteId} as site_id,
                 ${bySite ? sql`${sites.siteNo} as site_no,` : sql``}
                 i.visit_id, ${visits.code} as visit_code, ${visits.sortOrder} as visit_sort, ${visits.unscheduled} as visit_unscheduled,
                 i.unscheduled_id, i.form_id, ${forms.code} as form_code, ${forms.sortOrder} as form_sort, i.repeat_no, p.variable,
                 p.cur -> 'v' as crf_value, p.filled -> 'v' as filled_value,
                 (p.cur -> 'v') is distinct from (p.filled -> 'v') as edited,
                 (r.version > x.fv and (r.value_num, r.value_text, r.unit) is distinct from (rv.value_num, rv.value_text, rv.unit)) as source_changed,
                 (r.deleted_at is not null) as source_deleted,
                 x.rec_id, x.fv as filled_version, r.version as current_version, r.effective_date as source_date,
                 p.updated_by, p.updated_at, p.entry_mode
            from p
            -- 'source:<record>:v<version>' (prefill.schema.ts sourceRef): split, not matched (a regular expression per
            -- use costs more than the rest of the row)
            cross join lateral (select split_part(p.ref, ':', 2)::bigint as rec_id, substr(split_part(p.ref, ':', 3), 2)::int as fv) x
            join crf_instances i on i.id = p.instance_id
            join ${subjects} on ${subjects.id} = i.subject_id
            join ${visits} on ${visits.id} = i.visit_id
            join ${forms} on ${forms.id} = i.form_id
            join source_records r on r.id = x.rec_id
            left join source_record_versions rv on rv.record_id = x.rec_id and rv.version = x.fv
            ${bySite ? sql`join ${sites} on ${sites.id} = ${subjects.siteId}` : sql``}
           where i.project_id = ${ctx.project.id} and i.env = ${ctx.env} and i.deleted_at is null
             and ${subjectWhere(ctx, f)} and ${codeWhere(f)}
             ${f.ptsNo ? sql`and ${subjects.ptsNo} ilike ${likeOf(f.ptsNo)}` : sql``}
             ${subjectIds ? sql`and ${subjects.id} = any(${sql.param(subjectIds)}::int[])` : sql``}
        )`;
  }

  /** Item labels and units of the rows' forms. */
  private async itemsOf(formIds: number[]) {
    const out = new Map<
      number,
      Map<string, { label: string; labelEn?: string | undefined; unit: string | null }>
    >();
    if (formIds.length === 0) return out;
    const rows = await this.db
      .select({ id: forms.id, definition: forms.definition })
      .from(forms)
      .where(inArray(forms.id, formIds));
    for (const r of rows) {
      const fields = formFields((r.definition as unknown as FormDefinition).components ?? []);
      out.set(
        r.id,
        new Map(
          fields.map((x) => [x.variable, { label: x.label, labelEn: x.labelEn, unit: x.unit ?? null }]),
        ),
      );
    }
    return out;
  }

  private async toRows(ctx: ProjectScopedContext, rows: Row[]): Promise<ConsistencyRow[]> {
    const items = await this.itemsOf([...new Set(rows.map((r) => r.form_id))]);
    return rows.map((r) => {
      const item = items.get(r.form_id)?.get(r.variable);
      const visit = visitLabel({ name: r.visit_name, nameEn: r.visit_name_en }, ctx.language);
      const reasons: ConsistencyReason[] = [];
      if (r.edited) reasons.push('edited');
      if (r.source_changed) reasons.push('sourceChanged');
      if (r.source_deleted) reasons.push('sourceDeleted');
      return {
        instanceId: r.instance_id,
        ptsId: r.pts_id,
        ptsNo: r.pts_no,
        siteName: r.site_name,
        visitId: r.visit_id,
        visitName: r.label ? `${visit} · ${r.label}` : visit,
        unscheduledId: r.unscheduled_id,
        formId: r.form_id,
        formName: nameIn({ name: r.form_name, nameEn: r.form_name_en }, ctx.language),
        repeatNo: r.repeat_no,
        variable: r.variable,
        itemLabel: fieldLabel(item, r.variable, ctx.language),
        itemUnit: item?.unit ?? null,
        crfValue: r.crf_value ?? null,
        filledValue: r.filled_value ?? null,
        reasons,
        sourceRecordId: Number(r.rec_id),
        filledVersion: r.filled_version,
        currentVersion: r.current_version,
        sourceCode: r.source_code,
        sourceDisplay: r.source_display,
        sourceValue: r.source_value,
        sourceUnit: r.source_unit,
        filledSourceValue: r.filled_source_value,
        filledSourceUnit: r.filled_source_unit,
        sourceDate: dateText(r.source_date),
        updatedBy: r.user_name,
        updateTime: new Date(r.updated_at).toISOString(),
        entryMode: r.entry_mode,
      };
    });
  }

  /** POST /dataConsistencyReport/list */
  async page(ctx: ProjectScopedContext, q: ListQuery): Promise<ConsistencyPage> {
    const offset = offsetOf(q);
    if (q.sortField === 'ptsNo' && !q.ptsNo) {
      // the total from the counters; the page's subjects walked in number order, their values read
      const total = await this.counted(ctx, q);
      if (offset >= total) return pageOf(q, total, []);
      const picked: number[] = [];
      let before = 0;
      let skip = 0;
      for (const s of await this.walk(ctx, q, q.sortOrder === 'desc' ? 'desc' : 'asc', offset + q.pageSize)) {
        if (before + s.n <= offset) {
          before += s.n;
          continue;
        }
        if (picked.length === 0) skip = offset - before;
        picked.push(s.id);
        before += s.n;
        if (before >= offset + q.pageSize) break;
      }
      if (picked.length === 0) return pageOf(q, total, []);
      const candidates = await this.candidates(ctx, q, picked);
      const rows = await this.query(ctx, q, q, { limit: q.pageSize, offset: skip, subjectIds: picked, candidates });
      return pageOf(q, total, await this.toRows(ctx, rows));
    }
    const candidates = await this.candidates(ctx, q);
    const rows = await this.query(ctx, q, q, { limit: q.pageSize, offset, candidates });
    let total = Number(rows[0]?.total ?? 0);
    if (rows.length === 0 && q.pageNumber > 1) {
      // past the last page: the total all the same
      total = Number((await this.query(ctx, q, q, { count: true, candidates }))[0]?.total ?? 0);
    }
    return pageOf(q, total, await this.toRows(ctx, rows));
  }

  /**
   * Every listed value of the filters, a few hundred subjects at a time in subject-number order (the export): the
   * subjects that have listed values, walked in number order.
   */
  async *exportChunks(ctx: ProjectScopedContext, f: Filters, chunk = 500): AsyncGenerator<ConsistencyRow[]> {
    const bySubject: Sort = { sortField: 'ptsNo', sortOrder: 'asc' };
    let after: string | null = null;
    for (;;) {
      const found: { id: number; pts_no: string }[] = rowsOf<{ id: number; pts_no: string }>(
        await this.db.execute(sql`
          select ${subjects.id} as id, ${subjects.ptsNo} as pts_no from ${subjects}
           where ${subjectWhere(ctx, f)} and ${subjects}.consistency_counts <> '{}'::jsonb
             ${f.ptsNo ? sql`and ${subjects.ptsNo} ilike ${likeOf(f.ptsNo)}` : sql``}
             ${after !== null ? sql`and ${subjects.ptsNo} > ${after}` : sql``}
           order by ${subjects.ptsNo} limit ${chunk}`),
      );
      if (found.length === 0) return;
      const ids = found.map((r) => r.id);
      const candidates = await this.candidates(ctx, f, ids);
      if (candidates.length) {
        const rows = await this.query(ctx, f, bySubject, { subjectIds: ids, candidates });
        if (rows.length) yield await this.toRows(ctx, rows);
      }
      if (found.length < chunk) return;
      after = found[found.length - 1]!.pts_no;
    }
  }
}
