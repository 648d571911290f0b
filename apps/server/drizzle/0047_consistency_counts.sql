-- The data consistency report at 100,000 subjects (issue 14 item 5, "Performance": page p99 < 200 ms). What a page
-- counted per request — every eCRF value that no longer agrees with the source record it was pre-filled from — is
-- kept by the writes, in the transaction of each change, as the missing-data report's counts are (0040;
-- docs/decisions.md, "Reports read maintained counters").
--
-- 1. Each value's reasons (crf_values.differs, bits: 1 edited since its pre-fill, 2 its source record changed at the
-- hospital since the version it was filled from, 4 that record deleted there; 0 = not listed), the report's own rule
-- (reports-consistency.ts): the pre-fill is the value's source_ref while it carries one, else its newest pre-fill
-- (filled_ref / filled_value); a value whose record does not exist is not listed.
ALTER TABLE "crf_values" ADD COLUMN "differs" smallint DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- The reasons of one value now. `lock_record`: the record is read FOR SHARE — a value that starts naming a record
-- waits for a transaction changing that record at the hospital and then reads its committed row (that transaction's
-- trigger, below, could not see this value yet). A value that keeps naming its record needs no lock: the record's
-- trigger updates it, waiting for this save's row lock and then re-reading the saved row.
CREATE OR REPLACE FUNCTION crf_value_differs(val jsonb, src varchar, filled_ref varchar, filled_value jsonb, lock_record boolean DEFAULT false)
RETURNS smallint LANGUAGE plpgsql AS $$
DECLARE
  ref text;
  filled jsonb;
  rec bigint;
  fv integer;
  d smallint;
BEGIN
  IF src LIKE 'source:%' THEN
    ref := src;
    filled := val;
  ELSE
    ref := filled_ref;
    filled := filled_value;
  END IF;
  -- 'source:<record>:v<version>' (prefill.schema.ts sourceRef); anything else names no record
  IF ref IS NULL OR ref !~ '^source:[0-9]{1,18}:v[0-9]{1,9}(:|$)' THEN
    RETURN 0;
  END IF;
  rec := split_part(ref, ':', 2)::bigint;
  fv := substr(split_part(ref, ':', 3), 2)::int;
  IF lock_record THEN
    PERFORM 1 FROM source_records r WHERE r.id = rec FOR SHARE;
  END IF;
  SELECT (CASE WHEN (val -> 'v') IS DISTINCT FROM (filled -> 'v') THEN 1 ELSE 0 END
        | CASE WHEN r.version > fv AND (r.value_num, r.value_text, r.unit) IS DISTINCT FROM (rv.value_num, rv.value_text, rv.unit) THEN 2 ELSE 0 END
        | CASE WHEN r.deleted_at IS NOT NULL THEN 4 ELSE 0 END)::smallint
    INTO d
    FROM source_records r
    LEFT JOIN source_record_versions rv ON rv.record_id = r.id AND rv.version = fv
   WHERE r.id = rec;
  RETURN coalesce(d, 0);
END $$;
--> statement-breakpoint
-- Every value of the existing data: only those the report read as candidates can differ (changed by hand since their
-- pre-fill; still carrying their source whose record has a version above 1 or was deleted). (The verification
-- trigger of 0029 reacts to values appearing or disappearing, which this update never does; left out as in 0040.)
ALTER TABLE "crf_values" DISABLE TRIGGER "crf_values_verification_update";
--> statement-breakpoint
UPDATE crf_values v SET differs = x.d
  FROM (SELECT c.id, crf_value_differs(c.value, c.source_ref, c.filled_ref, c.filled_value) AS d
          FROM (SELECT v1.id, v1.value, v1.source_ref, v1.filled_ref, v1.filled_value FROM crf_values v1
                 WHERE v1.filled_ref IS NOT NULL AND (v1.source_ref IS NULL OR v1.source_ref NOT LIKE 'source:%')
                UNION
                SELECT v2.id, v2.value, v2.source_ref, v2.filled_ref, v2.filled_value FROM source_records r
                  JOIN crf_values v2 ON split_part(v2.source_ref, ':', 2) = r.id::text AND v2.source_ref LIKE 'source:%'
                 WHERE r.version > 1 OR r.deleted_at IS NOT NULL) c) x
 WHERE v.id = x.id AND x.d <> 0;
--> statement-breakpoint
ALTER TABLE "crf_values" ENABLE TRIGGER "crf_values_verification_update";
--> statement-breakpoint
-- the listed values of a subject's forms (a few per subject that has any)
CREATE INDEX "crf_values_differs" ON "crf_values" ("instance_id") WHERE "differs" <> 0;
--> statement-breakpoint
-- values changed by hand since their pre-fill, by the record their newest pre-fill names (0040 indexes those still
-- carrying their source by record: crf_values_source_record)
CREATE INDEX "crf_values_filled_record" ON "crf_values" ((split_part("filled_ref", ':', 2)))
  WHERE "filled_ref" IS NOT NULL AND ("source_ref" IS NULL OR "source_ref" NOT LIKE 'source:%');
--> statement-breakpoint
-- 2. Each subject's listed values (subjects.consistency_counts), per "visitId:formId" of its live forms: [listed,
-- edited, source changed, source deleted] (a value may have several reasons), summed into crf_report_counts (variable
-- '') by the statement trigger on subjects: the report's totals add up a few hundred rows, and its pages walk the
-- subjects that have any in subject-number order.
ALTER TABLE "subjects" ADD COLUMN "consistency_counts" jsonb DEFAULT '{}'::jsonb NOT NULL;
--> statement-breakpoint
CREATE INDEX "subjects_consistency" ON "subjects" ("project_id", "env", "pts_no") WHERE "consistency_counts" <> '{}'::jsonb;
--> statement-breakpoint
ALTER TABLE "crf_report_counts" ADD COLUMN "differing" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "crf_report_counts" ADD COLUMN "differing_edited" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "crf_report_counts" ADD COLUMN "differing_changed" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "crf_report_counts" ADD COLUMN "differing_deleted" integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- crf_report_counts_apply (0040) with the subjects' consistency counts: the same net change per key, in key order.
CREATE OR REPLACE FUNCTION crf_report_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text;
BEGIN
  changed := CASE TG_OP
    WHEN 'INSERT' THEN 'SELECT project_id, env, site_id, status, design_version_id, report_counts, consistency_counts, 1 AS sign FROM new_rows'
    WHEN 'DELETE' THEN 'SELECT project_id, env, site_id, status, design_version_id, report_counts, consistency_counts, -1 AS sign FROM old_rows'
    ELSE 'SELECT project_id, env, site_id, status, design_version_id, report_counts, consistency_counts, 1 AS sign FROM new_rows
          UNION ALL
          SELECT project_id, env, site_id, status, design_version_id, report_counts, consistency_counts, -1 FROM old_rows'
  END;
  EXECUTE format($q$
    INSERT INTO crf_report_counts AS c (project_id, env, site_id, status, version_id, visit_id, form_id, variable, subjects,
                                        expected, pairs_draft, pairs_completed, pairs_certified, forms_draft, forms_completed,
                                        missing_draft, missing_completed, differing, differing_edited, differing_changed,
                                        differing_deleted)
    SELECT r.project_id, r.env, r.site_id, r.status, coalesce(r.design_version_id, 0), k.visit_id, k.form_id, k.variable,
           sum(r.sign * k.subjects), sum(r.sign * (k.n ->> 0)::int), sum(r.sign * (k.n ->> 1)::int), sum(r.sign * (k.n ->> 2)::int),
           sum(r.sign * (k.n ->> 3)::int), sum(r.sign * (k.n ->> 4)::int), sum(r.sign * (k.n ->> 5)::int),
           sum(r.sign * (k.n ->> 6)::int), sum(r.sign * (k.n ->> 7)::int),
           sum(r.sign * (k.d ->> 0)::int), sum(r.sign * (k.d ->> 1)::int), sum(r.sign * (k.d ->> 2)::int), sum(r.sign * (k.d ->> 3)::int)
      FROM (%s) r
      CROSS JOIN LATERAL (
        SELECT 0 AS visit_id, 0 AS form_id, ''::text AS variable, 1 AS subjects, '[0,0,0,0,0,0,0,0]'::jsonb AS n, '[0,0,0,0]'::jsonb AS d
        UNION ALL
        SELECT split_part(e.key, ':', 1)::int, split_part(e.key, ':', 2)::int, split_part(e.key, ':', 3), 0, e.value, '[0,0,0,0]'::jsonb
          FROM jsonb_each(r.report_counts) e
        UNION ALL
        SELECT split_part(e.key, ':', 1)::int, split_part(e.key, ':', 2)::int, '', 0, '[0,0,0,0,0,0,0,0]'::jsonb, e.value
          FROM jsonb_each(r.consistency_counts) e
      ) k
     GROUP BY 1, 2, 3, 4, 5, 6, 7, 8
    HAVING (sum(r.sign * k.subjects), sum(r.sign * (k.n ->> 0)::int), sum(r.sign * (k.n ->> 1)::int), sum(r.sign * (k.n ->> 2)::int),
            sum(r.sign * (k.n ->> 3)::int), sum(r.sign * (k.n ->> 4)::int), sum(r.sign * (k.n ->> 5)::int),
            sum(r.sign * (k.n ->> 6)::int), sum(r.sign * (k.n ->> 7)::int), sum(r.sign * (k.d ->> 0)::int),
            sum(r.sign * (k.d ->> 1)::int), sum(r.sign * (k.d ->> 2)::int), sum(r.sign * (k.d ->> 3)::int))
           IS DISTINCT FROM (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
     ORDER BY 1, 2, 3, 4, 5, 6, 7, 8
    ON CONFLICT (project_id, env, site_id, status, version_id, visit_id, form_id, variable) DO UPDATE SET
      subjects = c.subjects + excluded.subjects, expected = c.expected + excluded.expected,
      pairs_draft = c.pairs_draft + excluded.pairs_draft, pairs_completed = c.pairs_completed + excluded.pairs_completed,
      pairs_certified = c.pairs_certified + excluded.pairs_certified, forms_draft = c.forms_draft + excluded.forms_draft,
      forms_completed = c.forms_completed + excluded.forms_completed, missing_draft = c.missing_draft + excluded.missing_draft,
      missing_completed = c.missing_completed + excluded.missing_completed, differing = c.differing + excluded.differing,
      differing_edited = c.differing_edited + excluded.differing_edited,
      differing_changed = c.differing_changed + excluded.differing_changed,
      differing_deleted = c.differing_deleted + excluded.differing_deleted
  $q$, changed);
  RETURN NULL;
END $$;
--> statement-breakpoint
-- A subject's counts from its values' reasons. It first locks the subjects (in id order) and then counts in a
-- statement of its own (as refresh_subject_progress does): two transactions changing one subject's values each count
-- with the other's committed changes.
CREATE OR REPLACE FUNCTION refresh_subject_consistency(ids integer[]) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  updated integer;
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN
    RETURN 0;
  END IF;
  PERFORM 1 FROM subjects s JOIN (SELECT DISTINCT unnest(ids) AS id) t ON t.id = s.id ORDER BY s.id FOR UPDATE OF s;
  WITH t AS (
    SELECT DISTINCT unnest(ids) AS id
  ), k AS (
    SELECT i.subject_id, i.visit_id || ':' || i.form_id AS key,
           jsonb_build_array(count(*), count(*) FILTER (WHERE v.differs & 1 <> 0), count(*) FILTER (WHERE v.differs & 2 <> 0),
                             count(*) FILTER (WHERE v.differs & 4 <> 0)) AS n
      FROM t
      JOIN subjects s ON s.id = t.id
      JOIN crf_instances i ON i.subject_id = s.id AND i.project_id = s.project_id AND i.env = s.env AND i.deleted_at IS NULL
      JOIN crf_values v ON v.instance_id = i.id AND v.differs <> 0
     GROUP BY 1, 2
  ), c AS (
    SELECT subject_id, jsonb_object_agg(key, n) AS counts FROM k GROUP BY 1
  ), u AS (
    UPDATE subjects s SET consistency_counts = coalesce(c.counts, '{}'::jsonb)
      FROM t LEFT JOIN c ON c.subject_id = t.id
     WHERE s.id = t.id AND s.consistency_counts IS DISTINCT FROM coalesce(c.counts, '{}'::jsonb)
    RETURNING 1
  )
  SELECT count(*)::int INTO updated FROM u;
  RETURN updated;
END $$;
--> statement-breakpoint
-- Every subject's counts now (the subjects with a listed value; the others keep '{}'). review_counts_subjects (0029,
-- made linear by 0046) reacts to none of this update's changes.
SELECT refresh_subject_consistency(array_agg(DISTINCT i.subject_id))
  FROM crf_values v JOIN crf_instances i ON i.id = v.instance_id
 WHERE v.differs <> 0;
--> statement-breakpoint
-- 3. Kept by every write, in its transaction. A value written (the save: pre-fill, edit by hand, re-pre-fill; any
-- other writer alike) gets its reasons …
CREATE OR REPLACE FUNCTION crf_values_differs_set() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.differs := crf_value_differs(NEW.value, NEW.source_ref, NEW.filled_ref, NEW.filled_value, true);
  ELSE
    -- the record lock only when the value starts naming another record
    NEW.differs := crf_value_differs(NEW.value, NEW.source_ref, NEW.filled_ref, NEW.filled_value,
      split_part(CASE WHEN NEW.source_ref LIKE 'source:%' THEN NEW.source_ref ELSE NEW.filled_ref END, ':', 2)
        IS DISTINCT FROM split_part(CASE WHEN OLD.source_ref LIKE 'source:%' THEN OLD.source_ref ELSE OLD.filled_ref END, ':', 2));
  END IF;
  RETURN NEW;
END $$;
--> statement-breakpoint
-- (a value that names no record and was not listed stays 0: no call for most values)
CREATE TRIGGER "crf_values_differs" BEFORE INSERT OR UPDATE OF "value", "source_ref", "filled_ref", "filled_value" ON "crf_values"
  FOR EACH ROW WHEN (NEW.filled_ref IS NOT NULL OR NEW.source_ref LIKE 'source:%' OR NEW.differs <> 0)
  EXECUTE FUNCTION crf_values_differs_set();
--> statement-breakpoint
-- … and the subjects of the values whose reasons changed (appeared, went, or changed) are counted again. Set
-- differences, hashed: linear in the statement's rows.
CREATE OR REPLACE FUNCTION crf_values_consistency() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids integer[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT i.subject_id) INTO ids
      FROM new_rows w JOIN crf_instances i ON i.id = w.instance_id WHERE w.differs <> 0;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT i.subject_id) INTO ids
      FROM old_rows o JOIN crf_instances i ON i.id = o.instance_id WHERE o.differs <> 0;
  ELSE
    SELECT array_agg(DISTINCT i.subject_id) INTO ids
      FROM (SELECT w.id, w.instance_id, w.differs FROM new_rows w
            EXCEPT
            SELECT o.id, o.instance_id, o.differs FROM old_rows o) x
      JOIN crf_instances i ON i.id = x.instance_id;
  END IF;
  IF ids IS NOT NULL THEN
    PERFORM refresh_subject_consistency(ids);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "crf_values_consistency_insert" AFTER INSERT ON "crf_values" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION crf_values_consistency();
--> statement-breakpoint
CREATE TRIGGER "crf_values_consistency_update" AFTER UPDATE ON "crf_values" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION crf_values_consistency();
--> statement-breakpoint
CREATE TRIGGER "crf_values_consistency_delete" AFTER DELETE ON "crf_values" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION crf_values_consistency();
--> statement-breakpoint
-- A form deleted or restored (or moved): its subject is counted again if the form holds a listed value.
CREATE OR REPLACE FUNCTION crf_instances_consistency() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids integer[];
BEGIN
  IF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT o.subject_id) INTO ids FROM old_rows o;
  ELSE
    -- (both ways: a form moved to another subject counts again for the old one too)
    SELECT array_agg(DISTINCT y.subject_id) INTO ids
      FROM ((SELECT w.id, w.subject_id, w.project_id, w.env, w.visit_id, w.form_id, w.deleted_at IS NULL AS live FROM new_rows w
             EXCEPT
             SELECT o.id, o.subject_id, o.project_id, o.env, o.visit_id, o.form_id, o.deleted_at IS NULL FROM old_rows o)
            UNION ALL
            (SELECT o.id, o.subject_id, o.project_id, o.env, o.visit_id, o.form_id, o.deleted_at IS NULL FROM old_rows o
             EXCEPT
             SELECT w.id, w.subject_id, w.project_id, w.env, w.visit_id, w.form_id, w.deleted_at IS NULL FROM new_rows w)) y
     WHERE EXISTS (SELECT 1 FROM crf_values v WHERE v.instance_id = y.id AND v.differs <> 0);
  END IF;
  IF ids IS NOT NULL THEN
    PERFORM refresh_subject_consistency(ids);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "crf_instances_consistency_update" AFTER UPDATE ON "crf_instances" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION crf_instances_consistency();
--> statement-breakpoint
CREATE TRIGGER "crf_instances_consistency_delete" AFTER DELETE ON "crf_instances" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION crf_instances_consistency();
--> statement-breakpoint
-- A record changed or deleted at the hospital (its version, value, unit or deletion; or the row itself deleted): the
-- values that name it get their reasons again (through the two indexes by record), whose trigger above counts their
-- subjects again. Two statements, each with its own snapshot: a value saved meanwhile is read as committed.
CREATE OR REPLACE FUNCTION source_records_consistency() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  recs text[];
BEGIN
  IF TG_OP = 'DELETE' THEN
    SELECT array_agg(o.id::text) INTO recs FROM old_rows o;
  ELSE
    SELECT array_agg(x.id::text) INTO recs
      FROM (SELECT w.id, w.version, w.value_num, w.value_text, w.unit, w.deleted_at FROM new_rows w
            EXCEPT
            SELECT o.id, o.version, o.value_num, o.value_text, o.unit, o.deleted_at FROM old_rows o) x;
  END IF;
  IF recs IS NULL THEN
    RETURN NULL;
  END IF;
  -- (the reasons computed on the row as updated: a value saved meanwhile is waited for and read again)
  UPDATE crf_values v SET differs = crf_value_differs(v.value, v.source_ref, v.filled_ref, v.filled_value)
   WHERE v.source_ref LIKE 'source:%' AND split_part(v.source_ref, ':', 2) = ANY(recs)
     AND v.differs <> crf_value_differs(v.value, v.source_ref, v.filled_ref, v.filled_value);
  UPDATE crf_values v SET differs = crf_value_differs(v.value, v.source_ref, v.filled_ref, v.filled_value)
   WHERE v.filled_ref IS NOT NULL AND (v.source_ref IS NULL OR v.source_ref NOT LIKE 'source:%')
     AND split_part(v.filled_ref, ':', 2) = ANY(recs)
     AND v.differs <> crf_value_differs(v.value, v.source_ref, v.filled_ref, v.filled_value);
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "source_records_consistency_update" AFTER UPDATE ON "source_records" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION source_records_consistency();
--> statement-breakpoint
CREATE TRIGGER "source_records_consistency_delete" AFTER DELETE ON "source_records" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION source_records_consistency();
--> statement-breakpoint
ANALYZE "crf_values";
--> statement-breakpoint
ANALYZE "subjects";
--> statement-breakpoint
ANALYZE "crf_report_counts";
