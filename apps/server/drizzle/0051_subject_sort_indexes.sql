-- The subject list sorts by number, status, first-visit date, creation time or site, usually with a status filter;
-- only the first-visit date had an index in that order. Sorted by creation time, a status's page read and sorted all
-- of that status's subjects (100,000 subjects: 232 ms a page); by number with a status, it filtered the whole number
-- index. Each (project, environment[, status], sort column, id) now has one: none of these columns changes when a
-- form is saved, so the progress updates stay heap-only.
CREATE INDEX IF NOT EXISTS subjects_status_created ON subjects (project_id, env, status, created_at, id);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS subjects_created ON subjects (project_id, env, created_at, id);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS subjects_status_no ON subjects (project_id, env, status, pts_no, id);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS subjects_status_id ON subjects (project_id, env, status, id);
