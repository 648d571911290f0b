-- Issue 13 item 1 (SDV and SDR, /project/verification): a monitor marks eCRF items as source-verified (SDV: compared
-- with the source record or document they came from) and forms as source-reviewed (SDR). A mark is active (1),
-- removed with a reason (0), or lost (2) because the value changed after it was verified — the item is then listed
-- again. A site's risk level (1 high, 2 middle, 3 low; spec §3) sets the share of its forms that need SDV.
ALTER TABLE "sites" ADD COLUMN "risk_level" smallint NOT NULL DEFAULT 2;
--> statement-breakpoint
ALTER TABLE "sites" ADD CONSTRAINT "sites_risk_level" CHECK ("risk_level" in (1, 2, 3));
--> statement-breakpoint
CREATE TABLE "verification_marks" (
  "id" serial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "site_id" integer NOT NULL REFERENCES "sites"("id"),
  "subject_id" integer NOT NULL REFERENCES "subjects"("id"),
  "instance_id" integer NOT NULL REFERENCES "crf_instances"("id"),
  "variable" varchar(40),
  "kind" varchar(3) NOT NULL,
  "value" jsonb,
  "status" smallint NOT NULL DEFAULT 1,
  "reason" varchar(500),
  "marked_by" integer REFERENCES "users"("id"),
  "marked_at" timestamp with time zone NOT NULL DEFAULT now(),
  "ended_by" integer REFERENCES "users"("id"),
  "ended_at" timestamp with time zone,
  CONSTRAINT "verification_marks_kind" CHECK ("kind" in ('sdv', 'sdr')),
  CONSTRAINT "verification_marks_status" CHECK ("status" in (0, 1, 2)),
  -- SDV marks an item, SDR a whole form
  CONSTRAINT "verification_marks_target" CHECK (("kind" = 'sdv' AND "variable" IS NOT NULL) OR ("kind" = 'sdr' AND "variable" IS NULL))
);
--> statement-breakpoint
CREATE UNIQUE INDEX "verification_marks_active" ON "verification_marks" ("instance_id", coalesce("variable", ''), "kind") WHERE "status" = 1;
--> statement-breakpoint
CREATE INDEX "verification_marks_scope" ON "verification_marks" ("project_id", "env", "site_id", "status");
