/**
 * Visit occurrences across subjects (issue 5 §4): what the visit calendar and the task list show. One statement
 * joins the caller's live subjects with the visits of their design version (and their unscheduled visits), keeps
 * those whose window overlaps the asked range, and counts each occurrence's done forms; no per-subject queries.
 *
 * Must always agree with EcrfService.schedule for one subject: the window is `visitWindow` (first visit +
 * day offset, −before/+after; an unscheduled visit on its date), an occurrence is done when it has forms and
 * each form's lowest status over its repeats (no instance = not started) is completed or certified, and the
 * state is `visitState` of that window, done flag and today (UTC); an unscheduled visit is never overdue.
 */
import { sql, type SQL } from 'drizzle-orm';
import {
  CRF_STATUS,
  VISIT_OCCURRENCES_MAX,
  visitState,
  visitWindow,
  type VisitOccurrenceRow,
  type VisitOccurrencesResult,
  type visitOccurrencesRequest,
} from '@esource/shared';
import type { z } from 'zod';
import type { Db } from '../../db/client';
import type { ProjectScopedContext } from '../../lib/context';
import { SubjectsService } from '../subjects/subjects.service';

interface Row {
  pts_id: number;
  pts_no: string;
  site_id: number;
  site_name: string;
  visit_id: number;
  unscheduled_id: number;
  code: string;
  name: string;
  name_en: string | null;
  base_day: string;
  day_offset: number;
  window_before: number;
  window_after: number;
  forms_done: number;
  forms_total: number;
}

export class VisitOccurrencesService {
  private readonly subjects: SubjectsService;
  constructor(
    private readonly db: Db,
    private readonly limit = VISIT_OCCURRENCES_MAX,
  ) {
    this.subjects = new SubjectsService(db);
  }

  async list(
    ctx: ProjectScopedContext,
    q: z.output<typeof visitOccurrencesRequest>,
    today = new Date().toISOString().slice(0, 10),
  ): Promise<VisitOccurrencesResult> {
    // which subjects: the subject list's scope (project, environment, the member's sites), live ones only
    const who = sql.join(
      [
        this.subjects.scope(ctx),
        sql`subjects.status <> 0`,
        q.siteId ? sql`subjects.site_id = ${q.siteId}` : undefined,
        q.ptsId ? sql`subjects.id = ${q.ptsId}` : undefined,
      ].filter((c): c is SQL => c !== undefined),
      sql` and `,
    );
    const from = sql`${q.from}::date`;
    const to = sql`${q.to}::date`;
    const states = q.states?.length ? sql`where state in (${sql.join(q.states.map((s) => sql`${s}`), sql`, `)})` : sql``;
    // the state in SQL only to filter before the cap; the state returned is visitState's (same rule)
    const r = await this.db.execute(sql`
      with occ as (
        select subjects.id as pts_id, subjects.pts_no, subjects.site_id, sites.name as site_name,
               v.id as visit_id, 0 as unscheduled_id, v.code, v.name, nullif(v.name_en, '') as name_en, v.sort_order,
               subjects.first_visit_date as base_date, v.day_offset, v.window_before, v.window_after
          from subjects
          join sites on sites.id = subjects.site_id
          join visits v on v.version_id = subjects.design_version_id and not v.unscheduled
         where ${who}
           and subjects.first_visit_date + (v.day_offset - v.window_before) <= ${to}
           and subjects.first_visit_date + (v.day_offset + v.window_after) >= ${from}
        union all
        select subjects.id, subjects.pts_no, subjects.site_id, sites.name,
               v.id, u.id, v.code, case when u.label is null or u.label = '' then v.name else v.name || ' · ' || u.label end,
               case when nullif(v.name_en, '') is null then null when u.label is null or u.label = '' then v.name_en else v.name_en || ' · ' || u.label end,
               v.sort_order, u.visit_date, 0, 0, 0
          from subjects
          join sites on sites.id = subjects.site_id
          join subject_unscheduled_visits u on u.subject_id = subjects.id
          join visits v on v.id = u.visit_id and v.version_id = subjects.design_version_id and v.unscheduled
         where ${who}
           and u.visit_date between ${from} and ${to}
      ),
      counted as (
        select o.pts_id, o.pts_no, o.site_id, o.site_name, o.visit_id, o.unscheduled_id, o.code, o.name, o.name_en, o.sort_order,
               o.base_date, o.day_offset, o.window_before, o.window_after,
               count(vf.form_id)::int as forms_total,
               (count(vf.form_id) filter (where coalesce(fi.min_status, ${CRF_STATUS.notStarted}) >= ${CRF_STATUS.completed}))::int as forms_done
          from occ o
          left join visit_forms vf on vf.visit_id = o.visit_id
          left join lateral (
            select min(ci.status) as min_status
              from crf_instances ci
             where ci.subject_id = o.pts_id and ci.visit_id = o.visit_id and ci.unscheduled_id = o.unscheduled_id
               and ci.form_id = vf.form_id and ci.deleted_at is null
          ) fi on true
         group by o.pts_id, o.pts_no, o.site_id, o.site_name, o.visit_id, o.unscheduled_id, o.code, o.name, o.name_en, o.sort_order,
                  o.base_date, o.day_offset, o.window_before, o.window_after
      ),
      stated as (
        select c.*,
               case when c.forms_total > 0 and c.forms_done = c.forms_total then 'done'
                    when ${today}::date < c.base_date + (c.day_offset - c.window_before) then 'upcoming'
                    when c.unscheduled_id = 0 and ${today}::date > c.base_date + (c.day_offset + c.window_after) then 'overdue'
                    else 'inWindow' end as state
          from counted c
      )
      select pts_id, pts_no, site_id, site_name, visit_id, unscheduled_id, code, name, name_en, base_date::text as base_day,
             day_offset, window_before, window_after, forms_done, forms_total
        from stated
        ${states}
       order by base_date + day_offset, pts_no, pts_id, sort_order, visit_id, unscheduled_id
       limit ${this.limit + 1}`);
    const rows = (r as { rows: Row[] }).rows;
    const truncated = rows.length > this.limit;
    const items = rows.slice(0, this.limit).map((x): VisitOccurrenceRow => {
      const w = visitWindow(x.base_day, { dayOffset: x.day_offset, windowBefore: x.window_before, windowAfter: x.window_after });
      const formsTotal = x.forms_total;
      const formsDone = x.forms_done;
      return {
        ptsId: x.pts_id,
        ptsNo: x.pts_no,
        siteId: x.site_id,
        siteName: x.site_name,
        visitId: x.visit_id,
        unscheduledId: x.unscheduled_id,
        code: x.code,
        name: x.name,
        nameEn: x.name_en,
        ...w,
        state: visitState(w, formsTotal > 0 && formsDone === formsTotal, today, x.unscheduled_id > 0),
        formsDone,
        formsTotal,
      };
    });
    return { items, truncated, limit: this.limit };
  }
}
