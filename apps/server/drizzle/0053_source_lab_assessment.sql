-- Issue 13: a lab result's assessment (packages/interop gradeLab: in or out of range, direction, CTCAE v5.0 grade) is
-- made once, when the record is written, and stored with it; safety candidate generation reads it instead of grading
-- every result of the subject again, and asks PostgreSQL for only the results an episode needs (out of range, or the
-- first result after an out-of-range one, which may end it).
-- lab: the assessment; lab_analyte and lab_out: its analyte and whether it is out of range, as columns so that the
-- index below answers "each analyte's results in date order, and which are out" without reading the rows;
-- lab_graded: the grader version that made them (LAB_GRADER_VERSION). Null (every record stored before this
-- migration) or an older version: graded again when the subject is next generated. A result that cannot be graded
-- (no numeric value) has lab_graded set and the others null.
ALTER TABLE source_records ADD COLUMN lab jsonb;
--> statement-breakpoint
ALTER TABLE source_records ADD COLUMN lab_analyte text COLLATE "C";
--> statement-breakpoint
ALTER TABLE source_records ADD COLUMN lab_out boolean;
--> statement-breakpoint
ALTER TABLE source_records ADD COLUMN lab_graded smallint;
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS source_records_subject_lab ON source_records (subject_id, lab_analyte, effective_date, id) INCLUDE (lab_out)
  WHERE doc_type = 3 AND deleted_at IS NULL AND lab_analyte IS NOT NULL;
--> statement-breakpoint
-- The generation's fingerprint (count, versions, newest id and stale assessments of a subject's live records) read
-- 10,000 rows of the table for a subject with 10,000 records (9 ms); the subject index now carries those columns,
-- so it is an index-only scan (2.7 ms). Same name and key columns: every query that used it still does.
DROP INDEX IF EXISTS source_records_subject;
--> statement-breakpoint
CREATE INDEX source_records_subject ON source_records (subject_id, doc_type, effective_date) INCLUDE (id, version, deleted_at, lab_graded);
