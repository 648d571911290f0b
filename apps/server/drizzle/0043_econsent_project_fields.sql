-- Issue 15 items 7 and 10.
--
-- E-consent participants: the e-consent / ethics system a project environment lists its consented participants from
-- (one per project × env, like edc_configs): kind 'dev' (the deterministic development provider) or 'http' (the
-- documented HTTP adapter: base_url, study_code, bearer token in secret_enc — AES-256-GCM under the connection secret
-- key, never returned, logged or audited).
CREATE TABLE "ec_configs" (
  "id" serial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "kind" varchar(10) NOT NULL,
  "name" varchar(100) NOT NULL,
  "base_url" varchar(500),
  "study_code" varchar(100),
  "secret_enc" text,
  "timeout_ms" integer NOT NULL DEFAULT 15000,
  "enabled" boolean NOT NULL DEFAULT true,
  "version" integer NOT NULL DEFAULT 1,
  "updated_by" integer REFERENCES "users"("id"),
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "ec_configs_kind" CHECK ("kind" in ('dev', 'http'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "ec_configs_project_env" ON "ec_configs" ("project_id", "env");
--> statement-breakpoint
-- A participant added as a subject: at most once per project × env (the unique index is what makes two parallel adds
-- create one subject), and a subject comes from at most one participant. The consent date and version are the
-- e-consent system's at the time of adding; the name and birth date are never stored.
CREATE TABLE "ec_subject_links" (
  "id" serial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "participant_id" varchar(64) NOT NULL,
  "subject_id" integer NOT NULL REFERENCES "subjects"("id"),
  "screening_no" varchar(40) NOT NULL,
  "site_code" varchar(20) NOT NULL,
  "consent_date" date NOT NULL,
  "consent_version" varchar(50),
  "provider_kind" varchar(10) NOT NULL,
  "created_by" integer REFERENCES "users"("id"),
  "created_at" timestamp with time zone NOT NULL DEFAULT now()
);
--> statement-breakpoint
CREATE UNIQUE INDEX "ec_subject_links_participant" ON "ec_subject_links" ("project_id", "env", "participant_id");
--> statement-breakpoint
CREATE UNIQUE INDEX "ec_subject_links_subject" ON "ec_subject_links" ("subject_id");
--> statement-breakpoint
-- Project fields (issue 15 item 10): configFiveFunction is five characters 0/1 (one per optional function, '' = all
-- on; packages/shared project-features.ts). Values that never meant anything are cleared to the default first.
UPDATE "projects" SET "config_five_function" = '' WHERE "config_five_function" !~ '^[01]{0,5}$';
--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_config_five_function" CHECK ("config_five_function" ~ '^[01]{0,5}$');
