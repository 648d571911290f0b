-- Issue 15 item 3: settings an administrator keeps in the product rather than in the environment: the host URLs
-- served by /sys/config/getConfig (over the configured defaults) and the administrator's contact (/admin/info/*).
CREATE TABLE IF NOT EXISTS "system_settings" (
  "key" varchar(40) PRIMARY KEY,
  "value" jsonb NOT NULL,
  "lock_version" integer NOT NULL DEFAULT 1,
  "updated_by" integer REFERENCES "users"("id"),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now()
);
