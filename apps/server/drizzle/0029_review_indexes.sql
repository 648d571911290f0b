-- Issue 13 benchmarks (bench/review.bench.ts, docs/benchmarks.md "review"): the query list and the SDV list on
-- 100,000 subjects. Both lists showed a page of 50 but counted (and, for SDV, summed per-row sub-selects over) every
-- row of the filter on each view. What follows lets a page read its 50 rows from an index and its totals from a few
-- counter rows, with the same results.
--
-- 1. Query list: a page in the list's order (status tab, newest change first) straight from an index.
CREATE INDEX "queries_list" ON "queries" ("project_id", "env", "status", "updated_at", "id");
--> statement-breakpoint
-- 2. Query totals: how many queries of live subjects (not in the recycle bin) each project × environment × site ×
-- status × origin has, kept by statement triggers as subject_counts is (0008): the net change per key of one
-- statement, applied in key order. A subject's deletion or restore moves its queries (review_counts_subjects below);
-- a statement on queries first waits for such a change of its subjects in progress (FOR SHARE conflicts with the
-- update's row lock) and then reads their state with a new snapshot, so that the two never miss each other.
CREATE TABLE "query_counts" (
  "project_id" integer NOT NULL,
  "env" varchar(3) NOT NULL,
  "site_id" integer NOT NULL,
  "status" smallint NOT NULL,
  "origin" varchar(6) NOT NULL,
  "n" integer NOT NULL,
  CONSTRAINT "query_counts_pk" PRIMARY KEY ("project_id", "env", "site_id", "status", "origin")
);
--> statement-breakpoint
INSERT INTO query_counts (project_id, env, site_id, status, origin, n)
SELECT q.project_id, q.env, q.site_id, q.status, q.origin, count(*)::int FROM queries q JOIN subjects s ON s.id = q.subject_id AND s.status <> 0 GROUP BY 1, 2, 3, 4, 5;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION query_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM 1 FROM subjects WHERE id IN (SELECT subject_id FROM new_rows) ORDER BY id FOR SHARE;
    INSERT INTO query_counts AS c (project_id, env, site_id, status, origin, n)
    SELECT q.project_id, q.env, q.site_id, q.status, q.origin, count(*)::int
      FROM new_rows q JOIN subjects s ON s.id = q.subject_id AND s.status <> 0
     GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (project_id, env, site_id, status, origin) DO UPDATE SET n = c.n + excluded.n;
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM 1 FROM subjects WHERE id IN (SELECT subject_id FROM new_rows UNION SELECT subject_id FROM old_rows) ORDER BY id FOR SHARE;
    INSERT INTO query_counts AS c (project_id, env, site_id, status, origin, n)
    SELECT d.project_id, d.env, d.site_id, d.status, d.origin, sum(d.n)::int
      FROM (SELECT subject_id, project_id, env, site_id, status, origin, 1 AS n FROM new_rows
            UNION ALL
            SELECT subject_id, project_id, env, site_id, status, origin, -1 FROM old_rows) d
      JOIN subjects s ON s.id = d.subject_id AND s.status <> 0
     GROUP BY 1, 2, 3, 4, 5 HAVING sum(d.n) <> 0 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (project_id, env, site_id, status, origin) DO UPDATE SET n = c.n + excluded.n;
  ELSE
    PERFORM 1 FROM subjects WHERE id IN (SELECT subject_id FROM old_rows) ORDER BY id FOR SHARE;
    INSERT INTO query_counts AS c (project_id, env, site_id, status, origin, n)
    SELECT q.project_id, q.env, q.site_id, q.status, q.origin, -count(*)::int
      FROM old_rows q JOIN subjects s ON s.id = q.subject_id AND s.status <> 0
     GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (project_id, env, site_id, status, origin) DO UPDATE SET n = c.n + excluded.n;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER queries_counts_insert AFTER INSERT ON queries REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION query_counts_apply();
--> statement-breakpoint
CREATE TRIGGER queries_counts_update AFTER UPDATE ON queries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION query_counts_apply();
--> statement-breakpoint
CREATE TRIGGER queries_counts_delete AFTER DELETE ON queries REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION query_counts_apply();
--> statement-breakpoint
-- 3. A form's marks by kind and state (the SDV counts below, and a form's marks): only the active ones had an index
-- by form (verification_marks_active, partial), so counting lost marks scanned every lost mark of the project.
CREATE INDEX "verification_marks_instance" ON "verification_marks" ("instance_id", "kind", "status");
--> statement-breakpoint
-- 4. SDV progress of each completed, live form instance (status >= 2, not deleted): what the SDV list showed from
-- per-row sub-selects — items holding a value, active SDV marks, items whose mark was lost and not verified again,
-- an active SDR mark, any active or lost SDV mark — and the form's reproducible SDV bucket (the same
-- abs(hashtext('sdv:' || id)) % 100 as the service's requiredSql). Recomputed from the source rows after every
-- statement that changes an instance, its values or its marks.
CREATE TABLE "verification_progress" (
  "instance_id" integer PRIMARY KEY,
  "subject_id" integer NOT NULL,
  "project_id" integer NOT NULL,
  "env" varchar(3) NOT NULL,
  "site_id" integer NOT NULL,
  "visit_id" integer NOT NULL,
  "bucket" smallint NOT NULL,
  "items" integer NOT NULL,
  "verified" integer NOT NULL,
  "lost" integer NOT NULL,
  "reviewed" boolean NOT NULL,
  "marked" boolean NOT NULL
);
--> statement-breakpoint
CREATE INDEX "verification_progress_subject" ON "verification_progress" ("subject_id");
--> statement-breakpoint
-- 5. The SDV list's totals: forms, items and verified items per project × environment × the subject's site (the
-- caller's scope) × the form's site × visit × the subject's own risk level (0: its site's) × SDV bucket × marked ×
-- done (verified >= items) × lost (> 0), over the forms of live subjects. The list adds the rows its filters select;
-- the site's risk level is applied when reading, so changing it moves nothing.
CREATE TABLE "verification_counts" (
  "project_id" integer NOT NULL,
  "env" varchar(3) NOT NULL,
  "scope_site_id" integer NOT NULL,
  "site_id" integer NOT NULL,
  "visit_id" integer NOT NULL,
  "subject_risk" smallint NOT NULL,
  "bucket" smallint NOT NULL,
  "marked" boolean NOT NULL,
  "done" boolean NOT NULL,
  "lost" boolean NOT NULL,
  "forms" integer NOT NULL,
  "items" bigint NOT NULL,
  "verified" bigint NOT NULL,
  CONSTRAINT "verification_counts_pk" PRIMARY KEY ("project_id", "env", "scope_site_id", "site_id", "visit_id", "subject_risk", "bucket", "marked", "done", "lost")
);
--> statement-breakpoint
-- Recomputes the progress of these instances and moves their totals. Writers of one subject's instances take turns:
-- the subject's row is locked first (saves lock it anyway to refresh its progress), and the recomputation then reads
-- with a new snapshot, so that it sees whatever the previous holder committed (READ COMMITTED). The totals of an
-- instance's old progress are taken out under the subject as it is now: a change of the subject's site, risk level
-- or state moves them under the same lock (review_counts_subjects).
CREATE OR REPLACE FUNCTION verification_progress_refresh(ids integer[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN
    RETURN;
  END IF;
  PERFORM 1 FROM subjects
    WHERE id IN (SELECT subject_id FROM crf_instances WHERE id IN (SELECT unnest(ids)) UNION SELECT subject_id FROM verification_progress WHERE instance_id IN (SELECT unnest(ids)))
    ORDER BY id FOR NO KEY UPDATE;
  WITH fresh AS (
    SELECT i.id AS instance_id, i.subject_id, i.project_id, i.env, i.site_id, i.visit_id,
           (abs(hashtext('sdv:' || i.id::text)) % 100)::smallint AS bucket,
           (SELECT count(*) FROM crf_values v WHERE v.instance_id = i.id
               AND (v.value -> 'v') IS NOT NULL AND jsonb_typeof(v.value -> 'v') <> 'null' AND (v.value ->> 'v') <> '' AND (v.value -> 'v') <> '[]'::jsonb)::int AS items,
           (SELECT count(*) FROM verification_marks m WHERE m.instance_id = i.id AND m.kind = 'sdv' AND m.status = 1)::int AS verified,
           (SELECT count(DISTINCT m.variable) FROM verification_marks m WHERE m.instance_id = i.id AND m.kind = 'sdv' AND m.status = 2
               AND NOT EXISTS (SELECT 1 FROM verification_marks a WHERE a.instance_id = m.instance_id AND a.variable = m.variable AND a.kind = 'sdv' AND a.status = 1))::int AS lost,
           EXISTS (SELECT 1 FROM verification_marks m WHERE m.instance_id = i.id AND m.kind = 'sdr' AND m.status = 1) AS reviewed,
           EXISTS (SELECT 1 FROM verification_marks m WHERE m.instance_id = i.id AND m.kind = 'sdv' AND m.status IN (1, 2)) AS marked
      FROM crf_instances i
     WHERE i.id IN (SELECT unnest(ids)) AND i.deleted_at IS NULL AND i.status >= 2
  ),
  old AS (
    SELECT * FROM verification_progress WHERE instance_id IN (SELECT unnest(ids))
  ),
  gone AS (
    DELETE FROM verification_progress p WHERE p.instance_id IN (SELECT unnest(ids))
       AND NOT EXISTS (SELECT 1 FROM crf_instances i WHERE i.id = p.instance_id AND i.deleted_at IS NULL AND i.status >= 2)
  ),
  put AS (
    INSERT INTO verification_progress AS p SELECT * FROM fresh ORDER BY instance_id
    ON CONFLICT (instance_id) DO UPDATE SET subject_id = excluded.subject_id, project_id = excluded.project_id, env = excluded.env, site_id = excluded.site_id,
      visit_id = excluded.visit_id, bucket = excluded.bucket, items = excluded.items, verified = excluded.verified, lost = excluded.lost,
      reviewed = excluded.reviewed, marked = excluded.marked
    WHERE (p.subject_id, p.project_id, p.env, p.site_id, p.visit_id, p.items, p.verified, p.lost, p.reviewed, p.marked)
          IS DISTINCT FROM (excluded.subject_id, excluded.project_id, excluded.env, excluded.site_id, excluded.visit_id, excluded.items, excluded.verified,
                            excluded.lost, excluded.reviewed, excluded.marked)
  )
  INSERT INTO verification_counts AS c (project_id, env, scope_site_id, site_id, visit_id, subject_risk, bucket, marked, done, lost, forms, items, verified)
  SELECT d.project_id, d.env, su.site_id, d.site_id, d.visit_id, coalesce(su.risk_level, 0), d.bucket, d.marked, d.verified >= d.items, d.lost > 0,
         sum(d.n)::int, sum(d.n * d.items), sum(d.n * d.verified)
    FROM (SELECT f.*, 1 AS n FROM fresh f UNION ALL SELECT o.*, -1 FROM old o) d
    JOIN subjects su ON su.id = d.subject_id AND su.status <> 0 AND su.project_id = d.project_id AND su.env = d.env
   GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
  HAVING sum(d.n) <> 0 OR sum(d.n * d.items) <> 0 OR sum(d.n * d.verified) <> 0
   ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
  ON CONFLICT (project_id, env, scope_site_id, site_id, visit_id, subject_risk, bucket, marked, done, lost)
  DO UPDATE SET forms = c.forms + excluded.forms, items = c.items + excluded.items, verified = c.verified + excluded.verified;
END $$;
--> statement-breakpoint
-- crf_values: only a value appearing or disappearing changes a form's progress (its items holding a value), so a
-- save that changes values leaves the progress alone
CREATE OR REPLACE FUNCTION verification_has_value(v jsonb) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT (v -> 'v') IS NOT NULL AND jsonb_typeof(v -> 'v') <> 'null' AND (v ->> 'v') <> '' AND (v -> 'v') <> '[]'::jsonb
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION verification_refresh_values() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM verification_progress_refresh(array(SELECT DISTINCT instance_id FROM new_rows WHERE verification_has_value(value)));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM verification_progress_refresh(array(
      SELECT n.instance_id FROM new_rows n JOIN old_rows o ON o.id = n.id
       WHERE n.instance_id <> o.instance_id OR verification_has_value(n.value) IS DISTINCT FROM verification_has_value(o.value)
      UNION
      SELECT o.instance_id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.instance_id <> o.instance_id));
  ELSE
    PERFORM verification_progress_refresh(array(SELECT DISTINCT instance_id FROM old_rows WHERE verification_has_value(value)));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- verification_marks: the forms of the changed marks
CREATE OR REPLACE FUNCTION verification_refresh_items() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM verification_progress_refresh(array(SELECT DISTINCT instance_id FROM new_rows));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM verification_progress_refresh(array(SELECT instance_id FROM new_rows UNION SELECT instance_id FROM old_rows));
  ELSE
    PERFORM verification_progress_refresh(array(SELECT DISTINCT instance_id FROM old_rows));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- crf_instances: new or removed instances, and those whose state, place or subject changed (not a version bump)
CREATE OR REPLACE FUNCTION verification_refresh_instances() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM verification_progress_refresh(array(SELECT id FROM new_rows WHERE status >= 2));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM verification_progress_refresh(array(
      SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
       WHERE (n.status >= 2, n.deleted_at IS NULL, n.subject_id, n.project_id, n.env, n.site_id, n.visit_id)
             IS DISTINCT FROM (o.status >= 2, o.deleted_at IS NULL, o.subject_id, o.project_id, o.env, o.site_id, o.visit_id)));
  ELSE
    PERFORM verification_progress_refresh(array(SELECT id FROM old_rows));
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
-- subjects: a deletion or restore moves the subject's queries out of or into query_counts; a change of site, own
-- risk level, project, environment or of being deleted moves the totals of the subject's forms. The subject's row is
-- locked by the update, so no statement on its queries, forms, values or marks counts meanwhile.
CREATE OR REPLACE FUNCTION review_counts_subjects() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- most updates (progress, version, identifiers) change none of these
  IF NOT EXISTS (SELECT 1 FROM new_rows w JOIN old_rows o ON o.id = w.id
                  WHERE (o.project_id, o.env, o.site_id, o.risk_level, o.status <> 0) IS DISTINCT FROM (w.project_id, w.env, w.site_id, w.risk_level, w.status <> 0)) THEN
    RETURN NULL;
  END IF;
  INSERT INTO query_counts AS c (project_id, env, site_id, status, origin, n)
  SELECT q.project_id, q.env, q.site_id, q.status, q.origin, sum(s.n)::int
    FROM (SELECT w.id, CASE WHEN w.status <> 0 THEN 1 ELSE -1 END AS n
            FROM new_rows w JOIN old_rows o ON o.id = w.id WHERE (o.status <> 0) <> (w.status <> 0)) s
    JOIN queries q ON q.subject_id = s.id
   GROUP BY 1, 2, 3, 4, 5 HAVING sum(s.n) <> 0 ORDER BY 1, 2, 3, 4, 5
  ON CONFLICT (project_id, env, site_id, status, origin) DO UPDATE SET n = c.n + excluded.n;
  INSERT INTO verification_counts AS c (project_id, env, scope_site_id, site_id, visit_id, subject_risk, bucket, marked, done, lost, forms, items, verified)
  SELECT p.project_id, p.env, s.site_id, p.site_id, p.visit_id, s.risk, p.bucket, p.marked, p.verified >= p.items, p.lost > 0,
         sum(s.n)::int, sum(s.n * p.items), sum(s.n * p.verified)
    FROM (SELECT o.id, o.project_id, o.env, o.site_id, coalesce(o.risk_level, 0) AS risk, o.status, -1 AS n
            FROM old_rows o JOIN new_rows w ON w.id = o.id
           WHERE (o.project_id, o.env, o.site_id, o.risk_level, o.status <> 0) IS DISTINCT FROM (w.project_id, w.env, w.site_id, w.risk_level, w.status <> 0)
          UNION ALL
          SELECT w.id, w.project_id, w.env, w.site_id, coalesce(w.risk_level, 0), w.status, 1
            FROM new_rows w JOIN old_rows o ON o.id = w.id
           WHERE (o.project_id, o.env, o.site_id, o.risk_level, o.status <> 0) IS DISTINCT FROM (w.project_id, w.env, w.site_id, w.risk_level, w.status <> 0)) s
    JOIN verification_progress p ON p.subject_id = s.id AND p.project_id = s.project_id AND p.env = s.env
   WHERE s.status <> 0
   GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
  HAVING sum(s.n) <> 0 OR sum(s.n * p.items) <> 0 OR sum(s.n * p.verified) <> 0
   ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
  ON CONFLICT (project_id, env, scope_site_id, site_id, visit_id, subject_risk, bucket, marked, done, lost)
  DO UPDATE SET forms = c.forms + excluded.forms, items = c.items + excluded.items, verified = c.verified + excluded.verified;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER crf_values_verification_insert AFTER INSERT ON crf_values REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION verification_refresh_values();
--> statement-breakpoint
CREATE TRIGGER crf_values_verification_update AFTER UPDATE ON crf_values REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION verification_refresh_values();
--> statement-breakpoint
CREATE TRIGGER crf_values_verification_delete AFTER DELETE ON crf_values REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION verification_refresh_values();
--> statement-breakpoint
CREATE TRIGGER verification_marks_progress_insert AFTER INSERT ON verification_marks REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION verification_refresh_items();
--> statement-breakpoint
CREATE TRIGGER verification_marks_progress_update AFTER UPDATE ON verification_marks REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION verification_refresh_items();
--> statement-breakpoint
CREATE TRIGGER verification_marks_progress_delete AFTER DELETE ON verification_marks REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION verification_refresh_items();
--> statement-breakpoint
CREATE TRIGGER crf_instances_verification_insert AFTER INSERT ON crf_instances REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION verification_refresh_instances();
--> statement-breakpoint
CREATE TRIGGER crf_instances_verification_update AFTER UPDATE ON crf_instances REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION verification_refresh_instances();
--> statement-breakpoint
CREATE TRIGGER crf_instances_verification_delete AFTER DELETE ON crf_instances REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION verification_refresh_instances();
--> statement-breakpoint
CREATE TRIGGER subjects_review_counts AFTER UPDATE ON subjects REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION review_counts_subjects();
--> statement-breakpoint
-- the progress and totals of the forms there already are
SELECT verification_progress_refresh(array_agg(id)) FROM crf_instances WHERE status >= 2 AND deleted_at IS NULL;
--> statement-breakpoint
-- 6. Subject-number search ("contains", ILIKE '%…%') in both lists: a trigram index where pg_trgm can be had (the
-- PostgreSQL server; a trusted extension, so the database owner may create it). Where it cannot (the embedded
-- database ships without it), the search scans the project's subjects as before.
DO $$
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
  EXCEPTION WHEN others THEN
    RAISE NOTICE 'pg_trgm not available (%): subject-number search without a trigram index', SQLERRM;
  END;
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    EXECUTE 'CREATE INDEX IF NOT EXISTS "subjects_no_trgm" ON "subjects" USING gin ("pts_no" gin_trgm_ops)';
  END IF;
END $$;
