-- Associate EDC (issue 14 item 3, /edc-link): a centre user's own account at a project environment's EDC, so the
-- syncs they start name them in the EDC's audit trail. The secret (kind 1 the password of "login:password", kind 3
-- the API token) is encrypted like the configuration's and never returned, logged or audited.
CREATE TABLE "edc_user_links" (
  "id" serial PRIMARY KEY,
  "user_id" integer NOT NULL REFERENCES "users"("id"),
  "config_id" integer NOT NULL REFERENCES "edc_configs"("id") ON DELETE CASCADE,
  "login" varchar(100) NOT NULL,
  "secret_enc" text NOT NULL,
  "verified_at" timestamp with time zone,
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now()
);
--> statement-breakpoint
CREATE UNIQUE INDEX "edc_user_links_user_config" ON "edc_user_links" ("user_id", "config_id");
--> statement-breakpoint
-- the EDC account a run used: the starter's linked login; null = the configuration's service account
ALTER TABLE "edc_sync_runs" ADD COLUMN "edc_account" varchar(100);
