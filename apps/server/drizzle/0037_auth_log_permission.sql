-- Issue 15 item 4: the authorisation log (/auth/log/page, exportExcel) has its own permissions. Roles that could read
-- (export) the login log get the authorisation log's too, so that administrators keep seeing what they saw.
INSERT INTO "role_permissions" ("role_id", "permission")
SELECT rp."role_id", 'syslog:auth-log:query' FROM "role_permissions" rp WHERE rp."permission" = 'syslog:login-log:query'
ON CONFLICT DO NOTHING;
--> statement-breakpoint
INSERT INTO "role_permissions" ("role_id", "permission")
SELECT rp."role_id", 'syslog:auth-log:export' FROM "role_permissions" rp WHERE rp."permission" = 'syslog:login-log:export'
ON CONFLICT DO NOTHING;
