-- reserved migration slot; replace this statement with the real ones
SELECT 1;
--> statement-breakpoint
-- visits get an English name, shown when the language is en_US (issue 14)
ALTER TABLE "visits" ADD COLUMN IF NOT EXISTS "name_en" varchar(50);
--> statement-breakpoint
-- eCRF form values and history need crf:result:query (security issue item 9): the guard no longer accepts the
-- subject list's patient:page:query for them. Roles that read forms through patient:page:query keep doing so,
-- except the adverse-event reviewer (AE), which needs no eCRF form values.
INSERT INTO "role_permissions" ("role_id", "permission")
SELECT rp."role_id", 'crf:result:query' FROM "role_permissions" rp JOIN "roles" r ON r."id" = rp."role_id"
WHERE rp."permission" = 'patient:page:query' AND r."code" <> 'AE'
ON CONFLICT DO NOTHING;
