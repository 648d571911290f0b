-- Shared forms (issue 15 item 6): a time-limited link to one form of one subject's visit that a participant fills
-- without an account, once. The code is 192 random bits; the table keeps its SHA-256 (the lookup) and a copy
-- encrypted with the server's secret key (so its creator can copy the link again), never the code itself: a copy of
-- the database alone opens no form. status 'expired' is written lazily (an active link past expires_at is expired
-- whatever the column says). At most one live link per form instance key (partial unique index).
CREATE TABLE "ddc_share_links" (
  "id" serial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "site_id" integer NOT NULL REFERENCES "sites"("id"),
  "subject_id" integer NOT NULL REFERENCES "subjects"("id"),
  "visit_id" integer NOT NULL REFERENCES "visits"("id"),
  "unscheduled_id" integer NOT NULL DEFAULT 0,
  "form_id" integer NOT NULL REFERENCES "forms"("id"),
  "repeat_no" integer NOT NULL DEFAULT 1,
  "code_hash" varchar(64) NOT NULL,
  "code_enc" varchar(200) NOT NULL,
  "note" varchar(200),
  "status" varchar(10) NOT NULL DEFAULT 'active',
  "expires_at" timestamp with time zone NOT NULL,
  "created_by" integer NOT NULL REFERENCES "users"("id"),
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "open_count" integer NOT NULL DEFAULT 0,
  "last_opened_at" timestamp with time zone,
  "used_at" timestamp with time zone,
  "instance_id" integer REFERENCES "crf_instances"("id"),
  "revoked_by" integer REFERENCES "users"("id"),
  "revoked_at" timestamp with time zone,
  "revoke_reason" varchar(500),
  "review" varchar(10),
  "reviewed_by" integer REFERENCES "users"("id"),
  "reviewed_at" timestamp with time zone,
  CONSTRAINT "ddc_share_links_status" CHECK ("status" in ('active', 'used', 'expired', 'revoked')),
  CONSTRAINT "ddc_share_links_review" CHECK ("review" is null or "review" in ('pending', 'accepted', 'corrected'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "ddc_share_links_code" ON "ddc_share_links" ("code_hash");
--> statement-breakpoint
CREATE UNIQUE INDEX "ddc_share_links_live" ON "ddc_share_links" ("subject_id", "visit_id", "unscheduled_id", "form_id", "repeat_no") WHERE "status" = 'active';
--> statement-breakpoint
CREATE INDEX "ddc_share_links_project" ON "ddc_share_links" ("project_id", "env", "created_at");
--> statement-breakpoint
CREATE INDEX "ddc_share_links_subject" ON "ddc_share_links" ("subject_id");
--> statement-breakpoint
-- the participant's answers waiting for the site's review: the link that wrote them (null: nothing pending)
ALTER TABLE "crf_instances" ADD COLUMN "pending_share_id" integer REFERENCES "ddc_share_links"("id");
--> statement-breakpoint
CREATE INDEX "crf_instances_pending_share" ON "crf_instances" ("subject_id") WHERE "pending_share_id" IS NOT NULL;
--> statement-breakpoint
-- /project/microCrfConfig ('crf': what the shared form shows) and /project/microDCConfig ('dc': which forms may be
-- shared and for how long), per project and environment; settings as validated by packages/shared ddc.schema.ts;
-- version guards against a lost update
CREATE TABLE "micro_configs" (
  "id" serial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "kind" varchar(3) NOT NULL,
  "settings" jsonb NOT NULL,
  "version" integer NOT NULL DEFAULT 1,
  "updated_by" integer REFERENCES "users"("id"),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "micro_configs_kind" CHECK ("kind" in ('crf', 'dc'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "micro_configs_key" ON "micro_configs" ("project_id", "env", "kind");
