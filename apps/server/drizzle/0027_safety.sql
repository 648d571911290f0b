-- Safety review (issue 13 items 3, 4): candidates for AE / CM / PR / MH / HISS judgement generated from a subject's
-- source records (and flagged eCRF values), the source records each links to, and every judgement made. A candidate
-- is unique per subject, category and generator key (the first record of a lab episode, a diagnosis, a drug …) so
-- that generating again is idempotent; a "yes" names the log form instance it was written into.
CREATE TABLE "safety_candidates" (
  "id" bigserial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "site_id" integer NOT NULL REFERENCES "sites"("id"),
  "subject_id" integer NOT NULL REFERENCES "subjects"("id"),
  "category" varchar(4) NOT NULL,
  "origin" varchar(10) NOT NULL,
  "key" varchar(200) NOT NULL,
  "term" varchar(300) NOT NULL,
  "code" varchar(100),
  "code_system" varchar(200),
  "suggested" jsonb,
  "start_date" varchar(10),
  "end_date" varchar(10),
  "grade" smallint,
  "detail" jsonb NOT NULL DEFAULT '{}'::jsonb,
  "content_hash" varchar(64) NOT NULL,
  "status" smallint NOT NULL DEFAULT 1,
  "version" integer NOT NULL DEFAULT 1,
  "source_changed" boolean NOT NULL DEFAULT false,
  "fields" jsonb,
  "reason" varchar(500),
  "judged_by" integer REFERENCES "users"("id"),
  "judged_at" timestamp with time zone,
  "written_instance_id" integer REFERENCES "crf_instances"("id"),
  "not_written" varchar(40),
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "safety_candidates_category" CHECK ("category" in ('ae', 'cm', 'pr', 'mh', 'hiss')),
  CONSTRAINT "safety_candidates_status" CHECK ("status" between 1 and 3)
);
--> statement-breakpoint
CREATE UNIQUE INDEX "safety_candidates_key" ON "safety_candidates" ("subject_id", "category", "key");
--> statement-breakpoint
CREATE INDEX "safety_candidates_list" ON "safety_candidates" ("project_id", "env", "status", "category", "start_date");
--> statement-breakpoint
CREATE INDEX "safety_candidates_judged" ON "safety_candidates" ("project_id", "env", "category", "judged_at") WHERE "status" > 1;
--> statement-breakpoint
CREATE TABLE "safety_candidate_sources" (
  "candidate_id" bigint NOT NULL REFERENCES "safety_candidates"("id") ON DELETE CASCADE,
  "record_id" bigint NOT NULL REFERENCES "source_records"("id"),
  "link" varchar(10) NOT NULL DEFAULT 'generated',
  "created_by" integer REFERENCES "users"("id"),
  PRIMARY KEY ("candidate_id", "record_id"),
  CONSTRAINT "safety_candidate_sources_link" CHECK ("link" in ('generated', 'linked'))
);
--> statement-breakpoint
CREATE INDEX "safety_candidate_sources_record" ON "safety_candidate_sources" ("record_id");
--> statement-breakpoint
CREATE TABLE "safety_judgements" (
  "id" bigserial PRIMARY KEY,
  "candidate_id" bigint NOT NULL REFERENCES "safety_candidates"("id") ON DELETE CASCADE,
  "decision" varchar(3) NOT NULL,
  "fields" jsonb,
  "reason" varchar(500),
  "user_id" integer REFERENCES "users"("id"),
  "user_name" varchar(50),
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "safety_judgements_decision" CHECK ("decision" in ('yes', 'no'))
);
--> statement-breakpoint
CREATE INDEX "safety_judgements_candidate" ON "safety_judgements" ("candidate_id");
--> statement-breakpoint
-- what a subject's candidates were last generated from (its relevant source records and flagged eCRF values): an
-- unchanged fingerprint skips the generation (a "generate all" over every subject reads only what changed)
CREATE TABLE "safety_generation" (
  "subject_id" integer PRIMARY KEY REFERENCES "subjects"("id"),
  "fingerprint" varchar(64) NOT NULL,
  "generated_at" timestamp with time zone NOT NULL DEFAULT now()
);
