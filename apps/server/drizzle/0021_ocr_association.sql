-- Issue 12 item 6 (OCR association): a lab result read from a source document's OCR text is kept as a source record
-- (raw_format 'ocr') so that it reaches the eCRF through the same mapping rules, synonyms, unit conversion and
-- pre-fill review as the hospital's data. It has no connection nor source patient: it names the file and the page
-- region it was read from instead; (file, external id = region and code) is unique, so running the association
-- again stores nothing new.
ALTER TABLE "source_records" ALTER COLUMN "connection_id" DROP NOT NULL;
--> statement-breakpoint
ALTER TABLE "source_records" ALTER COLUMN "source_patient_id" DROP NOT NULL;
--> statement-breakpoint
ALTER TABLE "source_records" ADD COLUMN "source_file_id" integer REFERENCES "source_files"("id");
--> statement-breakpoint
ALTER TABLE "source_records" ADD COLUMN "region" jsonb;
--> statement-breakpoint
ALTER TABLE "source_records" DROP CONSTRAINT "source_records_raw_format";
--> statement-breakpoint
ALTER TABLE "source_records" ADD CONSTRAINT "source_records_raw_format" CHECK ("raw_format" in ('fhir', 'hl7v2', 'sql', 'ocr'));
--> statement-breakpoint
-- a record comes from a hospital connection (with its patient) or from a source document, never from neither
ALTER TABLE "source_records" ADD CONSTRAINT "source_records_origin" CHECK (
  ("connection_id" IS NOT NULL AND "source_patient_id" IS NOT NULL AND "source_file_id" IS NULL)
  OR ("connection_id" IS NULL AND "source_patient_id" IS NULL AND "source_file_id" IS NOT NULL AND "raw_format" = 'ocr' AND "region" IS NOT NULL)
);
--> statement-breakpoint
CREATE UNIQUE INDEX "source_records_file_key" ON "source_records" ("source_file_id", "external_id") WHERE "source_file_id" IS NOT NULL;
