-- The study reports at 100,000 subjects (issue 14 item 5, "Performance": every report page p99 < 200 ms). What the
-- pages counted per request is kept by the writes, in the transaction of each change (docs/decisions.md, "Reports
-- read maintained counters").
--
-- 1. Each form instance's missing required items: the eCRF's own rule (missingRequired: required, not hidden, shown
-- by its display condition, empty) over the saved values, in form order, written by every save (EcrfService.saveBatch)
-- with the form definition's lock_version it was computed against. The rule is TypeScript (display conditions), so
-- this migration cannot compute it: existing instances start unknown (missing_rev null) and the workers' start
-- computes them in batches (ecrf/missing-items.ts). While an instance of a form is unknown, or was computed against an
-- older definition, the missing-data report evaluates the forms itself (as before 0040): never a wrong figure.
ALTER TABLE "crf_instances" ADD COLUMN "missing_items" varchar(40)[];
--> statement-breakpoint
ALTER TABLE "crf_instances" ADD COLUMN "missing_count" integer;
--> statement-breakpoint
ALTER TABLE "crf_instances" ADD COLUMN "missing_rev" integer;
--> statement-breakpoint
-- the report's rows: a subject's forms that miss an item (a few per subject, read in subject order)
CREATE INDEX "crf_instances_missing" ON "crf_instances" ("subject_id") WHERE "missing_count" > 0 AND "deleted_at" IS NULL;
--> statement-breakpoint
-- …and the same forms by update time (the report sorted by it)
CREATE INDEX "crf_instances_missing_updated" ON "crf_instances" ("updated_at") WHERE "missing_count" > 0 AND "deleted_at" IS NULL;
--> statement-breakpoint
-- unknown (null) or stale (below the form's lock_version) lists of a form: an empty range of this index once computed
CREATE INDEX "crf_instances_missing_rev" ON "crf_instances" ("form_id", "missing_rev") WHERE "deleted_at" IS NULL;
--> statement-breakpoint
-- 2. Each subject's report counts (subjects.report_counts), per "visitId:formId": [expected pairs, pairs in draft,
-- completed, certified (a pair: a planned visit or unscheduled occurrence × a form of it, in the state of its least
-- advanced live instance, as refresh_subject_progress counts forms_total / forms_done), live instances in draft,
-- completed, and of those the drafts and completed ones missing an item]; per "visitId:formId:VARIABLE": [0, 0, 0, 0,
-- 0, 0, drafts missing the item, completed ones missing it]. Kept by refresh_subject_progress, which every change of
-- a subject's forms calls in its transaction.
ALTER TABLE "subjects" ADD COLUMN "report_counts" jsonb DEFAULT '{}'::jsonb NOT NULL;
--> statement-breakpoint
-- …summed per project × environment × site × subject status × design version × visit × form × item ('' = the form;
-- visit 0 and form 0: the subjects themselves) by a statement trigger on subjects, as subject_counts (0008) is: a few
-- hundred rows that the completion and missing-data reports add up instead of reading every subject and form.
CREATE TABLE "crf_report_counts" (
  "project_id" integer NOT NULL,
  "env" varchar(3) NOT NULL,
  "site_id" integer NOT NULL,
  "status" integer NOT NULL,
  "version_id" integer NOT NULL,
  "visit_id" integer NOT NULL,
  "form_id" integer NOT NULL,
  "variable" varchar(40) NOT NULL,
  "subjects" integer DEFAULT 0 NOT NULL,
  "expected" integer DEFAULT 0 NOT NULL,
  "pairs_draft" integer DEFAULT 0 NOT NULL,
  "pairs_completed" integer DEFAULT 0 NOT NULL,
  "pairs_certified" integer DEFAULT 0 NOT NULL,
  "forms_draft" integer DEFAULT 0 NOT NULL,
  "forms_completed" integer DEFAULT 0 NOT NULL,
  "missing_draft" integer DEFAULT 0 NOT NULL,
  "missing_completed" integer DEFAULT 0 NOT NULL,
  CONSTRAINT "crf_report_counts_pk" PRIMARY KEY ("project_id", "env", "site_id", "status", "version_id", "visit_id", "form_id", "variable")
);
--> statement-breakpoint
INSERT INTO crf_report_counts (project_id, env, site_id, status, version_id, visit_id, form_id, variable, subjects)
SELECT project_id, env, site_id, status, coalesce(design_version_id, 0), 0, 0, '', count(*)::int FROM subjects GROUP BY 1, 2, 3, 4, 5;
--> statement-breakpoint
-- The net change per key of one statement on subjects, applied in key order so that two writers take the counter
-- rows' locks in the same order. An update adds the new rows' counts and takes the old rows' out: a row whose key and
-- counts did not change cancels out (no join of the transition tables, linear in the rows of the statement).
CREATE OR REPLACE FUNCTION crf_report_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text;
BEGIN
  changed := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT project_id, env, site_id, status, design_version_id, report_counts, 1 AS sign FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT project_id, env, site_id, status, design_version_id, report_counts, -1 AS sign FROM old_rows'
    ELSE 'SELECT project_id, env, site_id, status, design_version_id, report_counts, 1 AS sign FROM new_rows
          UNION ALL
          SELECT project_id, env, site_id, status, design_version_id, report_counts, -1 FROM old_rows'
  END;
  EXECUTE format($q$
    INSERT INTO crf_report_counts AS c (project_id, env, site_id, status, version_id, visit_id, form_id, variable, subjects,
                                        expected, pairs_draft, pairs_completed, pairs_certified, forms_draft, forms_completed,
                                        missing_draft, missing_completed)
    SELECT r.project_id, r.env, r.site_id, r.status, coalesce(r.design_version_id, 0), k.visit_id, k.form_id, k.variable,
           sum(r.sign * k.subjects), sum(r.sign * (k.n ->> 0)::int), sum(r.sign * (k.n ->> 1)::int), sum(r.sign * (k.n ->> 2)::int),
           sum(r.sign * (k.n ->> 3)::int), sum(r.sign * (k.n ->> 4)::int), sum(r.sign * (k.n ->> 5)::int),
           sum(r.sign * (k.n ->> 6)::int), sum(r.sign * (k.n ->> 7)::int)
      FROM (%s) r
      CROSS JOIN LATERAL (
        SELECT 0 AS visit_id, 0 AS form_id, ''::text AS variable, 1 AS subjects, '[0,0,0,0,0,0,0,0]'::jsonb AS n
        UNION ALL
        SELECT split_part(e.key, ':', 1)::int, split_part(e.key, ':', 2)::int, split_part(e.key, ':', 3), 0, e.value
          FROM jsonb_each(r.report_counts) e
      ) k
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    HAVING (sum(r.sign * k.subjects), sum(r.sign * (k.n ->> 0)::int), sum(r.sign * (k.n ->> 1)::int), sum(r.sign * (k.n ->> 2)::int),
            sum(r.sign * (k.n ->> 3)::int), sum(r.sign * (k.n ->> 4)::int), sum(r.sign * (k.n ->> 5)::int),
            sum(r.sign * (k.n ->> 6)::int), sum(r.sign * (k.n ->> 7)::int)) IS DISTINCT FROM (0, 0, 0, 0, 0, 0, 0, 0, 0)
     ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
    ON CONFLICT (project_id, env, site_id, status, version_id, visit_id, form_id, variable) DO UPDATE SET
      subjects = c.subjects + excluded.subjects, expected = c.expected + excluded.expected,
      pairs_draft = c.pairs_draft + excluded.pairs_draft, pairs_completed = c.pairs_completed + excluded.pairs_completed,
      pairs_certified = c.pairs_certified + excluded.pairs_certified, forms_draft = c.forms_draft + excluded.forms_draft,
      forms_completed = c.forms_completed + excluded.forms_completed, missing_draft = c.missing_draft + excluded.missing_draft,
      missing_completed = c.missing_completed + excluded.missing_completed
  $q$, changed);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER subjects_report_counts_insert AFTER INSERT ON subjects REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION crf_report_counts_apply();
--> statement-breakpoint
CREATE TRIGGER subjects_report_counts_update AFTER UPDATE ON subjects REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION crf_report_counts_apply();
--> statement-breakpoint
CREATE TRIGGER subjects_report_counts_delete AFTER DELETE ON subjects REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION crf_report_counts_apply();
--> statement-breakpoint
-- refresh_subject_progress (0007) also keeps report_counts. It first locks the subjects (in id order) and then counts
-- in a statement of its own: two transactions changing forms of one subject at once each count with the other's
-- committed changes (a single statement's snapshot would not see a change committed while it waited for the row).
CREATE OR REPLACE FUNCTION refresh_subject_progress(ids integer[]) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  n integer;
BEGIN
  PERFORM 1 FROM subjects s JOIN (SELECT DISTINCT unnest(ids) AS id) t ON t.id = s.id ORDER BY s.id FOR UPDATE OF s;
  WITH t AS (
    SELECT DISTINCT unnest(ids) AS id
  ), st AS (
    -- each planned pair (visit × form of the version, each unscheduled occurrence's forms) in its lowest live state
    SELECT s1.id AS subject_id, p.visit_id, p.uid, p.sort_order, p.day_offset, p.form_id,
           coalesce((SELECT min(i.status) FROM crf_instances i
                      WHERE i.subject_id = s1.id AND i.visit_id = p.visit_id AND i.unscheduled_id = p.uid
                        AND i.form_id = p.form_id AND i.deleted_at IS NULL), 0) AS status
      FROM t
      JOIN subjects s1 ON s1.id = t.id
      CROSS JOIN LATERAL (
        SELECT v.id AS visit_id, 0 AS uid, v.sort_order, v.day_offset, vf.form_id
          FROM visits v JOIN visit_forms vf ON vf.visit_id = v.id
         WHERE v.version_id = s1.design_version_id AND NOT v.unscheduled
        UNION ALL
        SELECT v.id, u.id, v.sort_order, v.day_offset, vf.form_id
          FROM subject_unscheduled_visits u JOIN visits v ON v.id = u.visit_id JOIN visit_forms vf ON vf.visit_id = v.id
         WHERE u.subject_id = s1.id
      ) p
  ), progress AS (
    SELECT subject_id, count(*)::int AS total, (count(*) FILTER (WHERE status >= 2))::int AS done,
           (array_agg(visit_id ORDER BY sort_order, day_offset, visit_id) FILTER (WHERE uid = 0 AND status < 2))[1] AS cur
      FROM st GROUP BY subject_id
  ), pairs AS (
    SELECT subject_id, visit_id, form_id, count(*)::int AS e, (count(*) FILTER (WHERE status = 1))::int AS d,
           (count(*) FILTER (WHERE status = 2))::int AS c, (count(*) FILTER (WHERE status = 3))::int AS x
      FROM st GROUP BY 1, 2, 3
  ), live AS (
    -- the saved forms the missing-data report checks (draft or completed, not deleted)
    SELECT i.subject_id, i.visit_id, i.form_id, i.status, i.missing_count, i.missing_items
      FROM t JOIN crf_instances i ON i.subject_id = t.id
     WHERE i.deleted_at IS NULL AND i.status IN (1, 2)
  ), forms_of AS (
    SELECT subject_id, visit_id, form_id, (count(*) FILTER (WHERE status = 1))::int AS fd, (count(*) FILTER (WHERE status = 2))::int AS fc,
           (count(*) FILTER (WHERE status = 1 AND missing_count > 0))::int AS md, (count(*) FILTER (WHERE status = 2 AND missing_count > 0))::int AS mc
      FROM live GROUP BY 1, 2, 3
  ), items AS (
    SELECT l.subject_id, l.visit_id, l.form_id, m.variable, (count(*) FILTER (WHERE l.status = 1))::int AS md,
           (count(*) FILTER (WHERE l.status = 2))::int AS mc
      FROM live l CROSS JOIN LATERAL unnest(l.missing_items) AS m(variable)
     WHERE l.missing_count > 0
     GROUP BY 1, 2, 3, 4
  ), counts AS (
    SELECT k.subject_id, jsonb_object_agg(k.key, k.n) AS counts
      FROM (
        SELECT coalesce(p.subject_id, f.subject_id) AS subject_id,
               coalesce(p.visit_id, f.visit_id) || ':' || coalesce(p.form_id, f.form_id) AS key,
               jsonb_build_array(coalesce(p.e, 0), coalesce(p.d, 0), coalesce(p.c, 0), coalesce(p.x, 0),
                                 coalesce(f.fd, 0), coalesce(f.fc, 0), coalesce(f.md, 0), coalesce(f.mc, 0)) AS n
          FROM pairs p
          FULL JOIN forms_of f ON f.subject_id = p.subject_id AND f.visit_id = p.visit_id AND f.form_id = p.form_id
        UNION ALL
        SELECT subject_id, visit_id || ':' || form_id || ':' || variable, jsonb_build_array(0, 0, 0, 0, 0, 0, md, mc)
          FROM items
      ) k
     GROUP BY k.subject_id
  ), x AS (
    SELECT s.id, coalesce(p.total, 0) AS total, coalesce(p.done, 0) AS done, p.cur, coalesce(c.counts, '{}'::jsonb) AS counts
      FROM t
      JOIN subjects s ON s.id = t.id
      LEFT JOIN progress p ON p.subject_id = s.id
      LEFT JOIN counts c ON c.subject_id = s.id
  ), u AS (
    UPDATE subjects s SET forms_total = x.total, forms_done = x.done, current_visit_id = x.cur, report_counts = x.counts
      FROM x
     WHERE s.id = x.id
       AND (s.forms_total, s.forms_done, s.current_visit_id, s.report_counts) IS DISTINCT FROM (x.total, x.done, x.cur, x.counts)
    RETURNING 1
  )
  SELECT count(*)::int INTO n FROM u;
  RETURN n;
END $$;
--> statement-breakpoint
-- Every subject's counts now. review_counts_subjects (0029) compares the old and new rows of an update by joining
-- them, which is quadratic in a statement's rows; it reacts only to a change of project, environment, site, risk
-- level or deletion, which this update never makes, so it is left out of it.
ALTER TABLE "subjects" DISABLE TRIGGER "subjects_review_counts";
--> statement-breakpoint
SELECT refresh_subject_progress(array_agg(id)) FROM subjects;
--> statement-breakpoint
ALTER TABLE "subjects" ENABLE TRIGGER "subjects_review_counts";
--> statement-breakpoint
-- 3. Data consistency: each pre-filled value's newest pre-fill (what crf_value_history's newest row with a
-- 'source:%' reference wrote, and that reference), kept on the value by every save that writes such a row: the
-- report no longer reads the history. From the history now:
ALTER TABLE "crf_values" ADD COLUMN "filled_ref" varchar(200);
--> statement-breakpoint
ALTER TABLE "crf_values" ADD COLUMN "filled_value" jsonb;
--> statement-breakpoint
-- (the verification triggers on crf_values (0029) join an update's old and new rows, quadratic in its rows; they react
-- only to a value appearing or disappearing, which this update never does)
ALTER TABLE "crf_values" DISABLE TRIGGER "crf_values_verification_update";
--> statement-breakpoint
UPDATE crf_values v SET filled_ref = h.source_ref, filled_value = h.new_value
  FROM (SELECT DISTINCT ON (instance_id, variable) instance_id, variable, source_ref, new_value
          FROM crf_value_history WHERE source_ref LIKE 'source:%'
         ORDER BY instance_id, variable, id DESC) h
 WHERE v.instance_id = h.instance_id AND v.variable = h.variable;
--> statement-breakpoint
ALTER TABLE "crf_values" ENABLE TRIGGER "crf_values_verification_update";
--> statement-breakpoint
-- the report's candidates, never every pre-filled value: values changed by hand since their pre-fill (their source
-- dropped) …
CREATE INDEX "crf_values_prefill_edited" ON "crf_values" ("instance_id")
  WHERE "filled_ref" IS NOT NULL AND ("source_ref" IS NULL OR "source_ref" NOT LIKE 'source:%');
--> statement-breakpoint
-- … and values still carrying their source, by the source record (to reach them from the records that changed): the
-- record id as written by sourceRef (prefill.schema.ts: 'source:<id>:v<version>'), as text (no cast that could fail a save)
CREATE INDEX "crf_values_source_record" ON "crf_values" ((split_part("source_ref", ':', 2)))
  WHERE "source_ref" LIKE 'source:%';
--> statement-breakpoint
-- (the planner ignores a partial index's statistics: without these it expects ~150 values per record and reads them all)
CREATE STATISTICS "crf_values_source_record_stats" ON (split_part("source_ref", ':', 2)) FROM "crf_values";
--> statement-breakpoint
-- source records changed at the hospital since their first version, or deleted there
CREATE INDEX "source_records_changed" ON "source_records" ("project_id", "env") WHERE "version" > 1 OR "deleted_at" IS NOT NULL;
--> statement-breakpoint
-- the planner's statistics of the new columns and indexes (the reports' plans depend on them)
ANALYZE "crf_instances";
--> statement-breakpoint
ANALYZE "crf_values";
--> statement-breakpoint
ANALYZE "subjects";
--> statement-breakpoint
ANALYZE "crf_report_counts";
