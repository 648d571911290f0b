-- Issue 12 item 8 (ISF, the investigator site file, /project/researchFile): the document kinds a site must keep,
-- configured per project and environment by the data manager (required or optional; every site, or the listed ones),
-- and their uploads. An ISF document is a source file with no subject: it names its kind and its version instead
-- (1, 2, … per kind and site), so it takes the same content checks, storage, de-identification job, review screen and
-- audit workflow as a subject's source documents.
CREATE TABLE "isf_kinds" (
  "id" serial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "name" varchar(100) NOT NULL,
  "name_en" varchar(100),
  "required" boolean NOT NULL DEFAULT true,
  "site_ids" integer[],
  "sort" integer NOT NULL DEFAULT 0,
  "status" smallint NOT NULL DEFAULT 1,
  "version" integer NOT NULL DEFAULT 1,
  "created_by" integer REFERENCES "users"("id"),
  "updated_by" integer REFERENCES "users"("id"),
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "isf_kinds_status" CHECK ("status" in (0, 1))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "isf_kinds_name" ON "isf_kinds" ("project_id", "env", lower("name")) WHERE "status" = 1;
--> statement-breakpoint
ALTER TABLE "source_files" ALTER COLUMN "subject_id" DROP NOT NULL;
--> statement-breakpoint
ALTER TABLE "source_files" ALTER COLUMN "doc_type" DROP NOT NULL;
--> statement-breakpoint
ALTER TABLE "source_files" ADD COLUMN "isf_kind_id" integer REFERENCES "isf_kinds"("id");
--> statement-breakpoint
ALTER TABLE "source_files" ADD COLUMN "isf_version" integer;
--> statement-breakpoint
-- a file belongs to a subject (with its source document type), or is a version of an ISF document of its site (no
-- document type): never both, never neither
ALTER TABLE "source_files" ADD CONSTRAINT "source_files_owner" CHECK (
  ("subject_id" IS NOT NULL AND "doc_type" IS NOT NULL AND "isf_kind_id" IS NULL AND "isf_version" IS NULL)
  OR ("subject_id" IS NULL AND "doc_type" IS NULL AND "isf_kind_id" IS NOT NULL AND "isf_version" >= 1)
);
--> statement-breakpoint
CREATE UNIQUE INDEX "source_files_isf_version" ON "source_files" ("isf_kind_id", "site_id", "isf_version") WHERE "isf_kind_id" IS NOT NULL;
