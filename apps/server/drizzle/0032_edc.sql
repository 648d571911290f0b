-- EDC sync (issue 14): the EDC a project environment syncs to, the EDC mapping per design version, sync runs, the
-- sync state of each eCRF form instance at the EDC, and the EDC log.
CREATE TABLE "edc_configs" (
  "id" serial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "kind" smallint NOT NULL,
  "name" varchar(100) NOT NULL,
  "base_url" varchar(500) NOT NULL,
  "study_oid" varchar(100),
  "target_env" varchar(50),
  "secret_enc" text NOT NULL,
  "timeout_ms" integer NOT NULL DEFAULT 30000,
  "schedule" varchar(10),
  "last_scheduled_at" timestamp with time zone,
  "enabled" boolean NOT NULL DEFAULT true,
  "target_items" jsonb,
  "target_items_at" timestamp with time zone,
  "version" integer NOT NULL DEFAULT 1,
  "updated_by" integer REFERENCES "users"("id"),
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "edc_configs_kind" CHECK ("kind" in (1, 3))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "edc_configs_project_env" ON "edc_configs" ("project_id", "env");
--> statement-breakpoint
CREATE TABLE "edc_mappings" (
  "id" serial PRIMARY KEY,
  "config_id" integer NOT NULL REFERENCES "edc_configs"("id") ON DELETE CASCADE,
  "design_version_id" integer NOT NULL REFERENCES "design_versions"("id") ON DELETE CASCADE,
  "level" varchar(5) NOT NULL,
  "local_key" varchar(100) NOT NULL,
  "target" varchar(100) NOT NULL,
  "target_group" varchar(100),
  "value_map" jsonb,
  "updated_by" integer REFERENCES "users"("id"),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "edc_mappings_level" CHECK ("level" in ('event', 'form', 'item'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "edc_mappings_key" ON "edc_mappings" ("config_id", "design_version_id", "level", "local_key");
--> statement-breakpoint
CREATE TABLE "edc_sync_runs" (
  "id" serial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "config_id" integer NOT NULL REFERENCES "edc_configs"("id") ON DELETE CASCADE,
  "scope" varchar(7) NOT NULL,
  "scope_id" integer,
  "site_ids" integer[],
  "trigger" varchar(8) NOT NULL,
  "status" smallint NOT NULL DEFAULT 0,
  "counts" jsonb,
  "error" varchar(500),
  "started_by" integer REFERENCES "users"("id"),
  "started_by_name" varchar(50),
  "progress_item_id" integer,
  "job_id" varchar(64),
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "edc_sync_runs_project" ON "edc_sync_runs" ("project_id", "env", "created_at");
--> statement-breakpoint
CREATE TABLE "edc_sync_records" (
  "id" serial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "config_id" integer NOT NULL REFERENCES "edc_configs"("id") ON DELETE CASCADE,
  "site_id" integer NOT NULL REFERENCES "sites"("id"),
  "subject_id" integer NOT NULL REFERENCES "subjects"("id"),
  "instance_id" integer NOT NULL REFERENCES "crf_instances"("id"),
  "status" smallint NOT NULL DEFAULT 0,
  "sent_hash" varchar(64),
  "sent_values" jsonb,
  "reason" varchar(1000),
  "attempts" integer NOT NULL DEFAULT 0,
  "last_run_id" integer,
  "synced_at" timestamp with time zone,
  "updated_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "edc_sync_records_status" CHECK ("status" between 0 and 3)
);
--> statement-breakpoint
CREATE UNIQUE INDEX "edc_sync_records_instance" ON "edc_sync_records" ("config_id", "instance_id");
--> statement-breakpoint
CREATE INDEX "edc_sync_records_site" ON "edc_sync_records" ("project_id", "env", "site_id", "status");
--> statement-breakpoint
CREATE INDEX "edc_sync_records_subject" ON "edc_sync_records" ("subject_id");
--> statement-breakpoint
CREATE TABLE "edc_logs" (
  "id" bigserial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "run_id" integer NOT NULL REFERENCES "edc_sync_runs"("id") ON DELETE CASCADE,
  "site_id" integer REFERENCES "sites"("id"),
  "subject_id" integer REFERENCES "subjects"("id"),
  "instance_id" integer REFERENCES "crf_instances"("id"),
  "pts_no" varchar(30),
  "data_name" varchar(200),
  "action" varchar(10) NOT NULL,
  "status" smallint NOT NULL,
  "changes" jsonb,
  "reason" varchar(1000),
  "http_status" integer,
  "request" text,
  "response" text,
  "created_by" integer REFERENCES "users"("id"),
  "created_by_name" varchar(50),
  "created_at" timestamp with time zone NOT NULL DEFAULT now()
);
--> statement-breakpoint
CREATE INDEX "edc_logs_project" ON "edc_logs" ("project_id", "env", "created_at");
--> statement-breakpoint
CREATE INDEX "edc_logs_run" ON "edc_logs" ("run_id");
--> statement-breakpoint
CREATE INDEX "edc_logs_subject" ON "edc_logs" ("subject_id");
