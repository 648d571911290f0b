-- Issue 12 (first server step): uploaded source documents (images, PDFs) of a subject, stored by content hash in the
-- file store (DATA_DIR/files), with the automatically de-identified copy, the proposed redaction boxes, the OCR text
-- and the status of the file workflow (SOURCE_FILE_STATUS; transitions in packages/shared documents.schema.ts).
CREATE TABLE "source_files" (
  "id" serial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "site_id" integer NOT NULL REFERENCES "sites"("id"),
  "subject_id" integer NOT NULL REFERENCES "subjects"("id"),
  "visit_id" integer REFERENCES "visits"("id"),
  "doc_type" smallint NOT NULL,
  "file_name" varchar(255) NOT NULL,
  "kind" varchar(5) NOT NULL,
  "size" integer NOT NULL,
  "pages" integer NOT NULL DEFAULT 1,
  "original_key" varchar(64) NOT NULL,
  "redacted_key" varchar(64),
  "status" smallint NOT NULL DEFAULT 0,
  "reason" varchar(500),
  "error_code" varchar(60),
  "error_detail" varchar(1000),
  "boxes" jsonb NOT NULL DEFAULT '[]'::jsonb,
  "ocr" jsonb NOT NULL DEFAULT '[]'::jsonb,
  "job_id" varchar(64),
  "progress_item_id" integer,
  "heartbeat_at" timestamp with time zone,
  "restarts" integer NOT NULL DEFAULT 0,
  "version" integer NOT NULL DEFAULT 1,
  "created_by" integer REFERENCES "users"("id"),
  "updated_by" integer REFERENCES "users"("id"),
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "source_files_kind" CHECK ("kind" in ('image', 'pdf')),
  CONSTRAINT "source_files_doc_type" CHECK ("doc_type" between 1 and 8),
  CONSTRAINT "source_files_status" CHECK ("status" in (-99, -3, -2, -1, 0, 1, 2, 3))
);
--> statement-breakpoint
CREATE INDEX "source_files_subject" ON "source_files" ("subject_id", "status");
--> statement-breakpoint
CREATE INDEX "source_files_scope" ON "source_files" ("project_id", "env", "site_id");
