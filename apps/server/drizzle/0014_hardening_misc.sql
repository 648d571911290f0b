-- reserved migration slot; replace this statement with the real ones
SELECT 1;
--> statement-breakpoint
-- visits get an English name, shown when the language is en_US (issue 14)
ALTER TABLE "visits" ADD COLUMN IF NOT EXISTS "name_en" varchar(50);
