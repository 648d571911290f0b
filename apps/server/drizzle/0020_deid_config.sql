-- Issue 12 (desensitization configuration, /project/ocrProConfig): per project and environment, the project's own
-- words that automatic de-identification hides in source documents, and its policy of which optional identifiers
-- (birth dates, other dates, hospital names, doctors' names) it hides (packages/deid DeidPolicy).
CREATE TABLE "deid_keywords" (
  "id" serial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "keyword" varchar(100) NOT NULL,
  "note" varchar(200),
  "created_by" integer REFERENCES "users"("id"),
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "deid_keywords_env" CHECK ("env" in ('DEV', 'UAT', 'PRO')),
  CONSTRAINT "deid_keywords_not_blank" CHECK (length(btrim("keyword")) > 0)
);
--> statement-breakpoint
-- one keyword per project and environment in any letter case (detection ignores the case of Latin letters)
CREATE UNIQUE INDEX "deid_keywords_word" ON "deid_keywords" ("project_id", "env", lower("keyword"));
--> statement-breakpoint
-- no row = the defaults, which are the columns' defaults (packages/deid DEFAULT_POLICY)
CREATE TABLE "deid_policies" (
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "env" varchar(3) NOT NULL,
  "mask_birth_dates" boolean NOT NULL DEFAULT true,
  "mask_other_dates" boolean NOT NULL DEFAULT false,
  "mask_hospital_names" boolean NOT NULL DEFAULT true,
  "mask_doctor_names" boolean NOT NULL DEFAULT true,
  "version" integer NOT NULL DEFAULT 1,
  "updated_by" integer REFERENCES "users"("id"),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "deid_policies_pkey" PRIMARY KEY ("project_id", "env"),
  CONSTRAINT "deid_policies_env" CHECK ("env" in ('DEV', 'UAT', 'PRO'))
);
