-- Issue 12 (PDF synthesis): a subject's de-identified source pages combined into one PDF by a job
-- (POST /project/manage/queryProcessBarPdf reports it; 'PDF synthesis in progress' while one runs). One row per
-- synthesis; the newest successful one is the subject's current PDF, stored by hash in the file store.
CREATE TABLE "subject_pdfs" (
  "id" serial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "site_id" integer NOT NULL REFERENCES "sites"("id"),
  "subject_id" integer NOT NULL REFERENCES "subjects"("id"),
  "status" smallint NOT NULL DEFAULT 1,
  "file_key" varchar(64),
  "files" integer NOT NULL DEFAULT 0,
  "pages" integer NOT NULL DEFAULT 0,
  "done" integer NOT NULL DEFAULT 0,
  "error_code" varchar(60),
  "job_id" varchar(64),
  "progress_item_id" integer,
  "heartbeat_at" timestamp with time zone,
  "created_by" integer REFERENCES "users"("id"),
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "subject_pdfs_status" CHECK ("status" in (1, 2, 3))
);
--> statement-breakpoint
CREATE INDEX "subject_pdfs_subject" ON "subject_pdfs" ("subject_id", "created_at");
--> statement-breakpoint
-- at most one synthesis running per subject: a second request while one runs is refused by this index
CREATE UNIQUE INDEX "subject_pdfs_running" ON "subject_pdfs" ("subject_id") WHERE "status" = 1;
