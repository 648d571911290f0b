-- Personal settings (issue 15 item 1): verification codes of the phone change, and the development SMS outbox.
-- phone_codes: one row per code requested; only a salted SHA-256 of the code is kept (never the code). A code ends
-- when used (used_at), replaced by a newer one, spent by wrong entries or not delivered (ended_at, end_reason). The
-- rows also count the requests per number and per account (1 a minute, 10 a day).
CREATE TABLE "phone_codes" (
  "id" serial PRIMARY KEY,
  "user_id" integer NOT NULL REFERENCES "users"("id"),
  "phone" varchar(20) NOT NULL,
  "purpose" varchar(20) NOT NULL DEFAULT 'bindPhone',
  "salt" varchar(32) NOT NULL,
  "code_hash" varchar(64) NOT NULL,
  "attempts" integer NOT NULL DEFAULT 0,
  "expires_at" timestamp with time zone NOT NULL,
  "used_at" timestamp with time zone,
  "ended_at" timestamp with time zone,
  "end_reason" varchar(20),
  "ip" varchar(64),
  "created_at" timestamp with time zone NOT NULL DEFAULT now()
);
--> statement-breakpoint
CREATE INDEX "phone_codes_user_created" ON "phone_codes" ("user_id", "created_at");
--> statement-breakpoint
CREATE INDEX "phone_codes_phone_created" ON "phone_codes" ("phone", "created_at");
--> statement-breakpoint
-- the development SMS provider's messages (SMS_PROVIDER=outbox): administrators read them on /system/smsOutbox
CREATE TABLE "sms_outbox" (
  "id" serial PRIMARY KEY,
  "phone" varchar(20) NOT NULL,
  "template" varchar(40) NOT NULL,
  "body" text NOT NULL,
  "language" varchar(5) NOT NULL,
  "user_id" integer REFERENCES "users"("id"),
  "created_at" timestamp with time zone NOT NULL DEFAULT now()
);
--> statement-breakpoint
CREATE INDEX "sms_outbox_phone" ON "sms_outbox" ("phone", "id");
