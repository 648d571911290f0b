-- Face login and real-name verification (issue 15 item 2).
-- WebAuthn passkeys of platform authenticators (Face ID, Windows Hello, Android face unlock): the public key (COSE,
-- base64url), the signature counter, what the authenticator reported (transports, device type, backup state, AAGUID)
-- and the name the user gave the device. user_handle is the random WebAuthn user id, never the database id.
CREATE TABLE "webauthn_credentials" (
  "id" serial PRIMARY KEY,
  "user_id" integer NOT NULL REFERENCES "users"("id"),
  "credential_id" varchar(1364) NOT NULL,
  "user_handle" varchar(64) NOT NULL,
  "public_key" text NOT NULL,
  "counter" bigint NOT NULL DEFAULT 0,
  "transports" text[] NOT NULL DEFAULT '{}'::text[],
  "device_type" varchar(20) NOT NULL,
  "backed_up" boolean NOT NULL DEFAULT false,
  "aaguid" varchar(36),
  "device_name" varchar(50) NOT NULL,
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "last_used_at" timestamp with time zone,
  "last_used_ip" varchar(64)
);
--> statement-breakpoint
CREATE UNIQUE INDEX "webauthn_credentials_credential" ON "webauthn_credentials" ("credential_id");
--> statement-breakpoint
CREATE INDEX "webauthn_credentials_user" ON "webauthn_credentials" ("user_id");
--> statement-breakpoint
-- Challenges: random, server-side (several processes), short-lived and used once (used_at set by the one UPDATE that
-- takes it). A registration challenge belongs to the enrolling user; a login one may name the account typed.
CREATE TABLE "webauthn_challenges" (
  "id" uuid PRIMARY KEY,
  "purpose" varchar(10) NOT NULL,
  "challenge" varchar(100) NOT NULL,
  "user_id" integer REFERENCES "users"("id"),
  "user_handle" varchar(64),
  "account_key" varchar(100),
  "rp_id" varchar(253) NOT NULL,
  "origins" text[] NOT NULL,
  "ip" varchar(64),
  "expires_at" timestamp with time zone NOT NULL,
  "used_at" timestamp with time zone,
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "webauthn_challenges_purpose" CHECK ("purpose" in ('login', 'register')),
  CONSTRAINT "webauthn_challenges_register_user" CHECK ("purpose" <> 'register' or "user_id" is not null)
);
--> statement-breakpoint
CREATE INDEX "webauthn_challenges_expires" ON "webauthn_challenges" ("expires_at");
--> statement-breakpoint
-- Real-name verification: the result on the user (one row each), the ID number never in clear — masked, and as
-- HMAC-SHA256 under a key derived from the server's secret key; one ID number per account.
CREATE TABLE "user_real_names" (
  "user_id" integer PRIMARY KEY REFERENCES "users"("id"),
  "name" varchar(50) NOT NULL,
  "id_hmac" varchar(64) NOT NULL,
  "id_masked" varchar(18) NOT NULL,
  "provider" varchar(20) NOT NULL,
  "provider_ref" varchar(100),
  "verified_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "user_real_names_id_hmac" ON "user_real_names" ("id_hmac");
--> statement-breakpoint
-- every check asked for, with its outcome (pending, match, mismatch, taken, error): the daily limit and the record
CREATE TABLE "real_name_checks" (
  "id" serial PRIMARY KEY,
  "user_id" integer NOT NULL REFERENCES "users"("id"),
  "provider" varchar(20) NOT NULL,
  "id_hmac" varchar(64) NOT NULL,
  "id_masked" varchar(18) NOT NULL,
  "outcome" varchar(10) NOT NULL,
  "reason" varchar(200),
  "ip" varchar(64),
  "created_at" timestamp with time zone NOT NULL DEFAULT now()
);
--> statement-breakpoint
CREATE INDEX "real_name_checks_user_created" ON "real_name_checks" ("user_id", "created_at");
