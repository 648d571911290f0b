ALTER TABLE "subjects" ADD COLUMN "current_visit_id" integer;--> statement-breakpoint
ALTER TABLE "subjects" ADD COLUMN "forms_done" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "subjects" ADD COLUMN "forms_total" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "subjects" ADD CONSTRAINT "subjects_current_visit_id_visits_id_fk" FOREIGN KEY ("current_visit_id") REFERENCES "public"."visits"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "subjects_visit" ON "subjects" USING btree ("project_id","env","current_visit_id","status");--> statement-breakpoint
-- A subject's current visit and form progress, from its design version's plan and its eCRF instances (see
-- subjects.current_visit_id in schema.ts). Called in the transaction of every change that moves them.
CREATE OR REPLACE FUNCTION refresh_subject_progress(ids integer[]) RETURNS integer LANGUAGE sql AS $$
  WITH x AS (
    SELECT s1.id, a.total, a.done, a.cur
      FROM subjects s1
      CROSS JOIN LATERAL (
        SELECT count(*)::int AS total,
               (count(*) FILTER (WHERE st.status >= 2))::int AS done,
               (array_agg(st.visit_id ORDER BY st.sort_order, st.day_offset, st.visit_id) FILTER (WHERE st.uid = 0 AND st.status < 2))[1] AS cur
          FROM (
            SELECT p.visit_id, p.uid, p.sort_order, p.day_offset,
                   coalesce((SELECT min(i.status) FROM crf_instances i
                              WHERE i.subject_id = s1.id AND i.visit_id = p.visit_id AND i.unscheduled_id = p.uid
                                AND i.form_id = p.form_id AND i.deleted_at IS NULL), 0) AS status
              FROM (
                SELECT v.id AS visit_id, 0 AS uid, v.sort_order, v.day_offset, vf.form_id
                  FROM visits v JOIN visit_forms vf ON vf.visit_id = v.id
                 WHERE v.version_id = s1.design_version_id AND NOT v.unscheduled
                UNION ALL
                SELECT v.id, u.id, v.sort_order, v.day_offset, vf.form_id
                  FROM subject_unscheduled_visits u JOIN visits v ON v.id = u.visit_id JOIN visit_forms vf ON vf.visit_id = v.id
                 WHERE u.subject_id = s1.id
              ) p
          ) st
      ) a
     WHERE s1.id = ANY(ids)
  ), u AS (
    UPDATE subjects s SET forms_total = x.total, forms_done = x.done, current_visit_id = x.cur
      FROM x
     WHERE s.id = x.id AND (s.forms_total, s.forms_done, s.current_visit_id) IS DISTINCT FROM (x.total, x.done, x.cur)
    RETURNING 1
  )
  SELECT count(*)::int FROM u
$$;
--> statement-breakpoint
SELECT refresh_subject_progress(array_agg(id)) FROM subjects;
