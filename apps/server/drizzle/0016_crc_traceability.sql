-- Issue 11: a site coordinator finds the values pre-filled from the hospital in the traceability report
-- (/project/icrc-source), limited to the subjects of their own sites like every subject read.
INSERT INTO "role_permissions" ("role_id", "permission")
SELECT r."id", 'report:traceability:query' FROM "roles" r WHERE r."code" = 'CRC'
ON CONFLICT DO NOTHING;
