-- Issue 14: the EDC log shows the visit / form names in the reader's language. data_name keeps the design's
-- (Chinese) names as logged; data_name_en the English ones when the design has them (null otherwise: the reader
-- of English then sees the Chinese name). The filter matches either.
ALTER TABLE "edc_logs" ADD COLUMN "data_name_en" varchar(200);
