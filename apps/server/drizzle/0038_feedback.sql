-- Feedback (issue 15 item 5): what a user sends from the user menu — a category, a text of at most 2,000 characters,
-- the page they were on (path only) and an optional screenshot kept in the file store by its SHA-256 (checked by
-- content, re-encoded without metadata). env is the sender's environment when they sent it: answers reach them as
-- messages there. version grows with every answer, close and reopen, so that a stale action is refused.
CREATE TABLE "feedback" (
  "id" serial PRIMARY KEY,
  "user_id" integer NOT NULL REFERENCES "users"("id"),
  "env" varchar(3) NOT NULL,
  "login_type" smallint,
  "category" varchar(20) NOT NULL,
  "content" text NOT NULL,
  "page_path" varchar(500),
  "language" varchar(5) NOT NULL,
  "user_agent" varchar(300),
  "screenshot_key" varchar(64),
  "screenshot_type" varchar(20),
  "screenshot_size" integer,
  "status" varchar(10) NOT NULL DEFAULT 'open',
  "version" integer NOT NULL DEFAULT 1,
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now(),
  "updated_by" integer REFERENCES "users"("id"),
  CONSTRAINT "feedback_category" CHECK ("category" in ('bug', 'suggestion', 'question', 'other')),
  CONSTRAINT "feedback_status" CHECK ("status" in ('open', 'answered', 'closed')),
  CONSTRAINT "feedback_content_length" CHECK (char_length("content") between 1 and 2000)
);
--> statement-breakpoint
CREATE INDEX "feedback_user_created" ON "feedback" ("user_id", "created_at");
--> statement-breakpoint
CREATE INDEX "feedback_created" ON "feedback" ("created_at");
--> statement-breakpoint
CREATE INDEX "feedback_status_created" ON "feedback" ("status", "created_at");
--> statement-breakpoint
-- the thread of a feedback: answers (each also a message to the sender, message_id), closes with their note, reopens
CREATE TABLE "feedback_replies" (
  "id" serial PRIMARY KEY,
  "feedback_id" integer NOT NULL REFERENCES "feedback"("id"),
  "kind" varchar(10) NOT NULL,
  "content" text,
  "user_id" integer NOT NULL REFERENCES "users"("id"),
  "message_id" integer REFERENCES "messages"("id"),
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "feedback_replies_kind" CHECK ("kind" in ('answer', 'close', 'reopen'))
);
--> statement-breakpoint
CREATE INDEX "feedback_replies_feedback" ON "feedback_replies" ("feedback_id", "id");
