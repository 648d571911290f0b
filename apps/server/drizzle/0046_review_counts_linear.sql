-- Issue 16: review_counts_subjects (0029) decides first whether an update of subjects changed anything it counts
-- (project, environment, site, risk level, deletion). It did so by joining the statement's old and new rows, which
-- PostgreSQL plans as a nested loop over transition tables (they have no statistics): quadratic, so a statement
-- updating many subjects at once (refresh_subject_progress over a whole study, a bulk load) took minutes. The same
-- question as a set difference is hashed: linear. Nothing else changes.
CREATE OR REPLACE FUNCTION review_counts_subjects() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- most updates (progress, version, identifiers) change none of these
  -- (a set difference, hashed: the join of the two transition tables it replaces was planned as a nested loop,
  -- quadratic in the statement's rows — refreshing 8,000 subjects' progress took 8.7 s instead of 2.7 s)
  IF NOT EXISTS (SELECT o.id, o.project_id, o.env, o.site_id, o.risk_level, o.status <> 0 FROM old_rows o
                 EXCEPT
                 SELECT w.id, w.project_id, w.env, w.site_id, w.risk_level, w.status <> 0 FROM new_rows w) THEN
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
