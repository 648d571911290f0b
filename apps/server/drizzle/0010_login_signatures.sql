-- Login throttling for account names that have no user (issue: the remaining-attempts answer must not tell a
-- real account from an unknown one). Real accounts keep their count on users.failed_login_count/locked_until;
-- every other name typed at the login form gets a row here, counted by the same one-statement claim.
CREATE TABLE "login_throttle" (
	"account_key" varchar(100) PRIMARY KEY NOT NULL,
	"failed_count" integer DEFAULT 0 NOT NULL,
	"locked_until" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX "login_throttle_updated" ON "login_throttle" USING btree ("updated_at");--> statement-breakpoint
-- Certifying (an electronic signature) is the investigator's act: the seeded data-manager role no longer holds it.
DELETE FROM role_permissions WHERE permission = 'crf:result:check' AND role_id IN (SELECT id FROM roles WHERE code = 'DM');
