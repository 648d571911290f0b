CREATE TABLE "subject_counts" (
	"project_id" integer NOT NULL,
	"env" varchar(3) NOT NULL,
	"site_id" integer NOT NULL,
	"status" integer NOT NULL,
	"visit_id" integer NOT NULL,
	"n" integer NOT NULL,
	CONSTRAINT "subject_counts_project_id_env_site_id_status_visit_id_pk" PRIMARY KEY("project_id","env","site_id","status","visit_id")
);
--> statement-breakpoint
INSERT INTO subject_counts (project_id, env, site_id, status, visit_id, n)
SELECT project_id, env, site_id, status, coalesce(current_visit_id, 0), count(*)::int FROM subjects GROUP BY 1, 2, 3, 4, 5;
--> statement-breakpoint
-- Net change per key of one statement on subjects, applied in key order (so that two writers take the counter
-- rows' locks in the same order).
CREATE OR REPLACE FUNCTION subject_counts_apply() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO subject_counts AS c (project_id, env, site_id, status, visit_id, n)
    SELECT project_id, env, site_id, status, coalesce(current_visit_id, 0), count(*)::int
      FROM new_rows GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (project_id, env, site_id, status, visit_id) DO UPDATE SET n = c.n + excluded.n;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO subject_counts AS c (project_id, env, site_id, status, visit_id, n)
    SELECT d.project_id, d.env, d.site_id, d.status, d.visit_id, sum(d.n)::int
      FROM (SELECT project_id, env, site_id, status, coalesce(current_visit_id, 0) AS visit_id, 1 AS n FROM new_rows
            UNION ALL
            SELECT project_id, env, site_id, status, coalesce(current_visit_id, 0), -1 FROM old_rows) d
     GROUP BY 1, 2, 3, 4, 5 HAVING sum(d.n) <> 0 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (project_id, env, site_id, status, visit_id) DO UPDATE SET n = c.n + excluded.n;
  ELSE
    INSERT INTO subject_counts AS c (project_id, env, site_id, status, visit_id, n)
    SELECT project_id, env, site_id, status, coalesce(current_visit_id, 0), -count(*)::int
      FROM old_rows GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (project_id, env, site_id, status, visit_id) DO UPDATE SET n = c.n + excluded.n;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER subjects_counts_insert AFTER INSERT ON subjects REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION subject_counts_apply();
--> statement-breakpoint
CREATE TRIGGER subjects_counts_update AFTER UPDATE ON subjects REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION subject_counts_apply();
--> statement-breakpoint
CREATE TRIGGER subjects_counts_delete AFTER DELETE ON subjects REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION subject_counts_apply();
