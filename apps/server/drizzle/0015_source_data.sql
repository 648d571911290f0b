-- Issue 11: source data from hospital systems and eCRF pre-fill.
-- Connections to hospital systems, the patients they know (matched to subjects or waiting in the matching queue),
-- the source records extracted (with every version kept), extraction tasks, HL7 v2 messages received (and the dead
-- letters), the mapping rules that fill eCRF items, synonyms, pre-fill decisions and pre-fill schedules.
ALTER TABLE "projects" ADD COLUMN IF NOT EXISTS "timezone" varchar(64) NOT NULL DEFAULT 'Asia/Shanghai';
--> statement-breakpoint
ALTER TABLE "crf_value_history" ADD COLUMN IF NOT EXISTS "source_ref" varchar(200);
--> statement-breakpoint
CREATE TABLE "source_connections" (
  "id" serial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "site_id" integer NOT NULL REFERENCES "sites"("id"),
  "kind" varchar(20) NOT NULL,
  "name" varchar(100) NOT NULL,
  "config" jsonb NOT NULL DEFAULT '{}'::jsonb,
  "secret_enc" text,
  "enabled" boolean NOT NULL DEFAULT true,
  "version" integer NOT NULL DEFAULT 1,
  "last_test_at" timestamp with time zone,
  "last_test_ok" boolean,
  "created_by" integer REFERENCES "users"("id"),
  "deleted_at" timestamp with time zone,
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "source_connections_kind" CHECK ("kind" in ('fhir', 'fhir_file', 'hl7v2', 'sql'))
);
--> statement-breakpoint
CREATE INDEX "source_connections_scope" ON "source_connections" ("project_id", "env", "site_id");
--> statement-breakpoint
CREATE TABLE "source_patients" (
  "id" serial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "site_id" integer NOT NULL REFERENCES "sites"("id"),
  "connection_id" integer NOT NULL REFERENCES "source_connections"("id"),
  "patient_key" varchar(200) NOT NULL,
  "identifiers" jsonb NOT NULL DEFAULT '[]'::jsonb,
  "name" varchar(200),
  "birth_date" date,
  "gender" varchar(20),
  "subject_id" integer REFERENCES "subjects"("id"),
  "status" smallint NOT NULL DEFAULT 0,
  "matched_by" integer REFERENCES "users"("id"),
  "matched_at" timestamp with time zone,
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "source_patients_status" CHECK ("status" between 0 and 3)
);
--> statement-breakpoint
CREATE UNIQUE INDEX "source_patients_key" ON "source_patients" ("connection_id", "patient_key");
--> statement-breakpoint
CREATE INDEX "source_patients_queue" ON "source_patients" ("project_id", "env", "site_id", "status");
--> statement-breakpoint
CREATE INDEX "source_patients_subject" ON "source_patients" ("subject_id");
--> statement-breakpoint
CREATE TABLE "source_extract_tasks" (
  "id" serial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "site_id" integer REFERENCES "sites"("id"),
  "subject_id" integer REFERENCES "subjects"("id"),
  "connection_id" integer REFERENCES "source_connections"("id"),
  "trigger" varchar(10) NOT NULL,
  "status" smallint NOT NULL DEFAULT 0,
  "date_from" date,
  "date_to" date,
  "stats" jsonb NOT NULL DEFAULT '{}'::jsonb,
  "error_code" varchar(60),
  "error_detail" varchar(1000),
  "progress_item_id" integer,
  "job_id" varchar(64),
  "created_by" integer REFERENCES "users"("id"),
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "started_at" timestamp with time zone,
  "finished_at" timestamp with time zone,
  CONSTRAINT "source_extract_tasks_trigger" CHECK ("trigger" in ('manual', 'auto', 'schedule', 'file', 'hl7')),
  CONSTRAINT "source_extract_tasks_status" CHECK ("status" between 0 and 4)
);
--> statement-breakpoint
-- never two live extractions of one subject at once (0 queued, 1 running)
CREATE UNIQUE INDEX "source_extract_tasks_live" ON "source_extract_tasks" ("subject_id") WHERE "subject_id" IS NOT NULL AND "status" IN (0, 1);
--> statement-breakpoint
CREATE INDEX "source_extract_tasks_list" ON "source_extract_tasks" ("project_id", "env", "created_at");
--> statement-breakpoint
CREATE TABLE "source_records" (
  "id" bigserial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "site_id" integer NOT NULL REFERENCES "sites"("id"),
  "subject_id" integer REFERENCES "subjects"("id"),
  "source_patient_id" integer NOT NULL REFERENCES "source_patients"("id"),
  "connection_id" integer NOT NULL REFERENCES "source_connections"("id"),
  "external_id" varchar(300) NOT NULL,
  "doc_type" smallint NOT NULL,
  "resource_type" varchar(60) NOT NULL,
  "code_system" varchar(200),
  "code" varchar(100),
  "display" varchar(500),
  "value_num" double precision,
  "value_text" text,
  "unit" varchar(60),
  "effective_at" timestamp with time zone,
  "effective_date" date,
  "status" varchar(30),
  "content_hash" varchar(64) NOT NULL,
  "version" integer NOT NULL DEFAULT 1,
  "raw_format" varchar(10) NOT NULL,
  "raw" text NOT NULL,
  "task_id" integer,
  "deleted_at" timestamp with time zone,
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "source_records_doc_type" CHECK ("doc_type" between 1 and 8),
  CONSTRAINT "source_records_raw_format" CHECK ("raw_format" in ('fhir', 'hl7v2', 'sql'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "source_records_key" ON "source_records" ("connection_id", "external_id");
--> statement-breakpoint
CREATE INDEX "source_records_subject" ON "source_records" ("subject_id", "doc_type", "effective_date");
--> statement-breakpoint
CREATE INDEX "source_records_subject_code" ON "source_records" ("subject_id", "code");
--> statement-breakpoint
CREATE INDEX "source_records_patient" ON "source_records" ("source_patient_id");
--> statement-breakpoint
CREATE TABLE "source_record_versions" (
  "id" bigserial PRIMARY KEY,
  "record_id" bigint NOT NULL REFERENCES "source_records"("id"),
  "version" integer NOT NULL,
  "change_kind" varchar(10) NOT NULL,
  "content_hash" varchar(64) NOT NULL,
  "value_num" double precision,
  "value_text" text,
  "unit" varchar(60),
  "effective_at" timestamp with time zone,
  "raw" text NOT NULL,
  "task_id" integer,
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "source_record_versions_kind" CHECK ("change_kind" in ('created', 'updated', 'deleted'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "source_record_versions_key" ON "source_record_versions" ("record_id", "version");
--> statement-breakpoint
CREATE INDEX "source_record_versions_task" ON "source_record_versions" ("task_id");
--> statement-breakpoint
CREATE TABLE "hl7_messages" (
  "id" bigserial PRIMARY KEY,
  "connection_id" integer REFERENCES "source_connections"("id"),
  "env" varchar(3),
  "project_id" integer REFERENCES "projects"("id"),
  "remote" varchar(100),
  "control_id" varchar(200),
  "message_type" varchar(20),
  "sending_app" varchar(200),
  "sending_facility" varchar(200),
  "raw" bytea NOT NULL,
  "status" smallint NOT NULL,
  "ack_code" varchar(2),
  "error_code" varchar(60),
  "error_detail" varchar(1000),
  "records" integer NOT NULL DEFAULT 0,
  "received_at" timestamp with time zone NOT NULL DEFAULT now(),
  "processed_at" timestamp with time zone,
  "replayed_by" integer REFERENCES "users"("id"),
  "replayed_at" timestamp with time zone,
  CONSTRAINT "hl7_messages_status" CHECK ("status" between 0 and 3)
);
--> statement-breakpoint
CREATE INDEX "hl7_messages_status" ON "hl7_messages" ("status", "received_at");
--> statement-breakpoint
CREATE INDEX "hl7_messages_project" ON "hl7_messages" ("project_id", "env", "received_at");
--> statement-breakpoint
CREATE TABLE "mapping_rules" (
  "id" serial PRIMARY KEY,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "design_version_id" integer NOT NULL REFERENCES "design_versions"("id") ON DELETE CASCADE,
  "form_id" integer NOT NULL REFERENCES "forms"("id") ON DELETE CASCADE,
  "variable" varchar(40) NOT NULL,
  "method" varchar(10) NOT NULL,
  "doc_types" smallint[] NOT NULL DEFAULT '{}'::smallint[],
  "codes" jsonb NOT NULL DEFAULT '[]'::jsonb,
  "use_synonyms" boolean NOT NULL DEFAULT true,
  "expression" text,
  "unit" varchar(60),
  "selection" varchar(10) NOT NULL DEFAULT 'nearest',
  "worst" varchar(4),
  "window_only" boolean NOT NULL DEFAULT true,
  "option_map" jsonb NOT NULL DEFAULT '[]'::jsonb,
  "version" integer NOT NULL DEFAULT 1,
  "updated_by" integer REFERENCES "users"("id"),
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "mapping_rules_method" CHECK ("method" in ('code', 'fhirpath')),
  CONSTRAINT "mapping_rules_selection" CHECK ("selection" in ('nearest', 'first', 'last', 'worst')),
  CONSTRAINT "mapping_rules_worst" CHECK ("worst" is null or "worst" in ('high', 'low'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "mapping_rules_item" ON "mapping_rules" ("form_id", "variable");
--> statement-breakpoint
CREATE INDEX "mapping_rules_version" ON "mapping_rules" ("design_version_id");
--> statement-breakpoint
CREATE TABLE "synonyms" (
  "id" serial PRIMARY KEY,
  "project_id" integer REFERENCES "projects"("id"),
  "kind" varchar(4) NOT NULL,
  "term" varchar(100) NOT NULL,
  "synonyms" varchar(100)[] NOT NULL DEFAULT '{}'::varchar[],
  "version" integer NOT NULL DEFAULT 1,
  "updated_by" integer REFERENCES "users"("id"),
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "synonyms_kind" CHECK ("kind" in ('ocr', 'text'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "synonyms_term" ON "synonyms" (coalesce("project_id", 0), "kind", lower("term"));
--> statement-breakpoint
CREATE TABLE "prefill_decisions" (
  "id" bigserial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "site_id" integer NOT NULL REFERENCES "sites"("id"),
  "subject_id" integer NOT NULL REFERENCES "subjects"("id"),
  "visit_id" integer NOT NULL REFERENCES "visits"("id"),
  "unscheduled_id" integer NOT NULL DEFAULT 0,
  "form_id" integer NOT NULL REFERENCES "forms"("id"),
  "repeat_no" integer NOT NULL DEFAULT 1,
  "variable" varchar(40) NOT NULL,
  "source_record_id" bigint NOT NULL REFERENCES "source_records"("id"),
  "source_version" integer NOT NULL,
  "candidate" jsonb,
  "decision" varchar(8) NOT NULL,
  "user_id" integer REFERENCES "users"("id"),
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "prefill_decisions_decision" CHECK ("decision" in ('new', 'merge', 'ignore', 'inject'))
);
--> statement-breakpoint
CREATE INDEX "prefill_decisions_item" ON "prefill_decisions" ("subject_id", "visit_id", "form_id", "variable");
--> statement-breakpoint
CREATE TABLE "prefill_schedules" (
  "id" serial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "start_date" date NOT NULL,
  "end_date" date NOT NULL,
  "frequency" varchar(8) NOT NULL,
  "days" smallint[] NOT NULL DEFAULT '{}'::smallint[],
  "enabled" boolean NOT NULL DEFAULT true,
  "last_run_on" date,
  "version" integer NOT NULL DEFAULT 1,
  "updated_by" integer REFERENCES "users"("id"),
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "prefill_schedules_frequency" CHECK ("frequency" in ('daily', 'weekly', 'monthly')),
  CONSTRAINT "prefill_schedules_dates" CHECK ("start_date" <= "end_date")
);
--> statement-breakpoint
CREATE UNIQUE INDEX "prefill_schedules_project" ON "prefill_schedules" ("project_id", "env");
