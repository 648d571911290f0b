-- eCRF value rules (issue: integrity of entered values).
-- quality: a data-quality warning on a value that was accepted anyway ('range' = outside a soft range); an
--          automatic query is to be raised from it once queries exist. Kept on the value and on the history row.
-- cause:   why a history row exists when the user did not type it: 'condition' = the item's value was cleared
--          because a display condition hid it (the reason column keeps the user's reason for that clearing).
ALTER TABLE "crf_values" ADD COLUMN "quality" varchar(30);
--> statement-breakpoint
ALTER TABLE "crf_value_history" ADD COLUMN "quality" varchar(30);
--> statement-breakpoint
ALTER TABLE "crf_value_history" ADD COLUMN "cause" varchar(30);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "crf_values_quality" ON "crf_values" ("instance_id") WHERE "quality" IS NOT NULL;
