/**
 * The data consistency report (/dataConsistencyReport/list and /export): eCRF values that no longer agree with the
 * source record they were pre-filled from.
 *
 * A pre-fill writes `source:<record>:v<version>` into crf_values.source_ref and into the history row of the change
 * (EcrfService.saveBatch); a later change by hand clears crf_values.source_ref but the history keeps it. So a value's
 * pre-fill is its own source_ref while it is unchanged, else the newest history row that carries one. The value is
 * listed when
 *   - it was edited after the pre-fill (the eCRF no longer holds the value the pre-fill wrote), or
 *   - the source record changed at the hospital since the version it was filled from (its value or unit: the
 *     version kept in source_record_versions is compared with the record now), or
 *   - the source record was deleted at the hospital.
 * The pre-fill may have converted the unit or mapped a code to an option, so the eCRF value is compared with what
 * the pre-fill wrote and the source with itself, never the eCRF value with the raw source value. All in SQL.
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
import { forms, sites, subjects, visits } from '../../db/schema';
import type { ProjectScopedContext } from '../../lib/context';
import { offsetOf, pageOf } from '../../lib/page';
import { likeOf, rowsOf } from '../../lib/sql';
import { codeWhere, fieldLabel, nameIn, subjectWhere } from './reports.service';
import { subjectChunks } from './reports-missing';

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

  /** The listed values of the scope and filters, sorted (one page, or the subjects of an export chunk). */
  private async query(
    ctx: ProjectScopedContext,
    f: Filters,
    sort: Sort,
    o: { limit?: number; offset?: number; subjectIds?: number[]; count?: boolean },
  ): Promise<Row[]> {
    const reason: Record<ConsistencyReason, string> = {
      edited: 'edited',
      sourceChanged: 'source_changed',
      sourceDeleted: 'source_deleted',
    };
    const flagged = f.reason ? sql.raw(reason[f.reason]) : sql`(edited or source_changed or source_deleted)`;
    return rowsOf<Row>(
      await this.db.execute(sql`
        with h as (
          -- the newest pre-fill in each pre-filled item's history
          select distinct on (h.instance_id, h.variable) h.instance_id, h.variable, h.source_ref, h.new_value
            from crf_value_history h
           where h.source_ref like 'source:%'
           order by h.instance_id, h.variable, h.id desc
        ), p as (
          -- values that still carry their source: unchanged since the pre-fill
          select v.instance_id, v.variable, v.source_ref as ref, v.value as filled, v.value as cur, v.updated_by, v.updated_at, v.entry_mode
            from crf_values v
           where v.source_ref like 'source:%'
          union all
          -- values changed since (their source dropped): what the newest pre-fill wrote
          select h.instance_id, h.variable, h.source_ref, h.new_value, v.value, v.updated_by, v.updated_at, v.entry_mode
            from h
            cross join lateral (
              select v.value, v.updated_by, v.updated_at, v.entry_mode from crf_values v
               where v.instance_id = h.instance_id and v.variable = h.variable and (v.source_ref is null or v.source_ref not like 'source:%')
            ) v
        ), z as (
          select i.id as instance_id, ${subjects.id} as pts_id, ${subjects.ptsNo} as pts_no, ${sites.siteNo} as site_no, ${sites.name} as site_name,
                 i.visit_id, ${visits.name} as visit_name, ${visits.nameEn} as visit_name_en, ${visits.code} as visit_code,
                 ${visits.sortOrder} as visit_sort, ${visits.unscheduled} as visit_unscheduled, u.label, i.unscheduled_id,
                 i.form_id, ${forms.name} as form_name, ${forms.nameEn} as form_name_en, ${forms.code} as form_code, ${forms.sortOrder} as form_sort,
                 i.repeat_no, p.variable, p.cur -> 'v' as crf_value, p.filled -> 'v' as filled_value,
                 (p.cur -> 'v') is distinct from (p.filled -> 'v') as edited,
                 (r.version > x.fv and (r.value_num, r.value_text, r.unit) is distinct from (rv.value_num, rv.value_text, rv.unit)) as source_changed,
                 (r.deleted_at is not null) as source_deleted,
                 x.rec_id, x.fv as filled_version, r.version as current_version, r.code as source_code, r.display as source_display,
                 coalesce(r.value_num::text, r.value_text) as source_value, r.unit as source_unit,
                 coalesce(rv.value_num::text, rv.value_text) as filled_source_value, rv.unit as filled_source_unit,
                 r.effective_date as source_date, us.name as user_name, p.updated_at, p.entry_mode
            from p
            cross join lateral (select substring(p.ref from '^source:([0-9]+):v')::bigint as rec_id, substring(p.ref from ':v([0-9]+)$')::int as fv) x
            join crf_instances i on i.id = p.instance_id
            join ${subjects} on ${subjects.id} = i.subject_id
            join ${sites} on ${sites.id} = ${subjects.siteId}
            join ${visits} on ${visits.id} = i.visit_id
            join ${forms} on ${forms.id} = i.form_id
            join source_records r on r.id = x.rec_id
            left join source_record_versions rv on rv.record_id = x.rec_id and rv.version = x.fv
            left join subject_unscheduled_visits u on u.id = i.unscheduled_id
            left join users us on us.id = p.updated_by
           where i.project_id = ${ctx.project.id} and i.env = ${ctx.env} and i.deleted_at is null
             and ${subjectWhere(ctx, f)} and ${codeWhere(f)}
             ${f.ptsNo ? sql`and ${subjects.ptsNo} ilike ${likeOf(f.ptsNo)}` : sql``}
             ${o.subjectIds ? sql`and ${subjects.id} = any(${sql.param(o.subjectIds)}::int[])` : sql``}
        )
        ${
          o.count
            ? sql`select count(*) as total from z where ${flagged}`
            : sql`select *${o.limit !== undefined ? sql`, count(*) over () as total` : sql``} from z
                   where ${flagged}
                   order by ${orderBy(sort)}
                   ${o.limit !== undefined ? sql`limit ${o.limit} offset ${o.offset ?? 0}` : sql``}`
        }`),
    );
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
    const rows = await this.query(ctx, q, q, { limit: q.pageSize, offset: offsetOf(q) });
    let total = Number(rows[0]?.total ?? 0);
    if (rows.length === 0 && q.pageNumber > 1) {
      // past the last page: the total all the same
      total = Number((await this.query(ctx, q, q, { count: true }))[0]?.total ?? 0);
    }
    return pageOf(q, total, await this.toRows(ctx, rows));
  }

  /** Every listed value of the filters, a few hundred subjects at a time in subject-number order (the export). */
  async *exportChunks(ctx: ProjectScopedContext, f: Filters, chunk = 500): AsyncGenerator<ConsistencyRow[]> {
    for await (const ids of subjectChunks(this.db, ctx, f, chunk)) {
      const rows = await this.query(ctx, f, { sortField: 'ptsNo', sortOrder: 'asc' }, { subjectIds: ids });
      if (rows.length) yield await this.toRows(ctx, rows);
    }
  }
}
