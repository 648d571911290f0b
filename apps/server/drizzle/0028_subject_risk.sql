-- Issue 13 items 1 and 2. A subject's own risk level (1 high, 2 middle, 3 low; spec §3): null inherits its site's.
-- The effective level (the subject's, else the site's) sets the share of the subject's forms that need SDV.
ALTER TABLE "subjects" ADD COLUMN "risk_level" smallint;
--> statement-breakpoint
ALTER TABLE "subjects" ADD CONSTRAINT "subjects_risk_level" CHECK ("risk_level" IS NULL OR "risk_level" in (1, 2, 3));
--> statement-breakpoint
-- the open and replied queries of a page of subjects (the subject list) and of one subject's visits (its visit
-- cards), counted by one grouped read each
CREATE INDEX "queries_subject" ON "queries" ("subject_id", "status");
