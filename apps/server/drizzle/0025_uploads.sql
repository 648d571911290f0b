-- Files attached to eCRF file items (spec §7 POST /common/upload; image batches of at most 100 files and 1 GB, §9):
-- stored by content hash in the file store like source documents, recorded per project and environment. An item's
-- value names the upload (`upl:<id>:<file name>`); a file is read by whoever reaches a value naming it, or by its
-- uploader before it is saved into a form.
CREATE TABLE "uploads" (
  "id" serial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "file_key" varchar(64) NOT NULL,
  "name" varchar(255) NOT NULL,
  "kind" varchar(5) NOT NULL,
  "size" integer NOT NULL,
  "created_by" integer REFERENCES "users"("id"),
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "uploads_kind" CHECK ("kind" in ('image', 'pdf'))
);
