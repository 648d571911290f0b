-- Issue 13 (queries, /project/doubtList): a question on an eCRF item (or a whole form, a visit, a subject) raised by a
-- monitor or data manager — or automatically by the form's own rules on save — that the site answers and the raiser
-- closes. Status 1 querying (open), 2 replied, 3 closed (QUERY_STATUS). Every step is a message of the thread.
CREATE TABLE "queries" (
  "id" serial PRIMARY KEY,
  "env" varchar(3) NOT NULL,
  "project_id" integer NOT NULL REFERENCES "projects"("id"),
  "site_id" integer NOT NULL REFERENCES "sites"("id"),
  "subject_id" integer NOT NULL REFERENCES "subjects"("id"),
  "visit_id" integer REFERENCES "visits"("id"),
  "unscheduled_id" integer NOT NULL DEFAULT 0,
  "form_id" integer REFERENCES "forms"("id"),
  "repeat_no" integer NOT NULL DEFAULT 1,
  "instance_id" integer REFERENCES "crf_instances"("id"),
  "variable" varchar(40),
  "origin" varchar(6) NOT NULL DEFAULT 'manual',
  "rule" varchar(30),
  "params" jsonb,
  "text" varchar(1000),
  "status" smallint NOT NULL DEFAULT 1,
  "version" integer NOT NULL DEFAULT 1,
  "created_by" integer REFERENCES "users"("id"),
  "updated_by" integer REFERENCES "users"("id"),
  "closed_by" integer REFERENCES "users"("id"),
  "closed_at" timestamp with time zone,
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  "updated_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "queries_status" CHECK ("status" in (1, 2, 3)),
  CONSTRAINT "queries_origin" CHECK (("origin" = 'manual' AND "text" IS NOT NULL) OR ("origin" = 'auto' AND "rule" IS NOT NULL)),
  -- an item needs its form instance; a form its visit
  CONSTRAINT "queries_target" CHECK (("variable" IS NULL OR "instance_id" IS NOT NULL) AND ("form_id" IS NULL OR "visit_id" IS NOT NULL))
);
--> statement-breakpoint
CREATE INDEX "queries_scope" ON "queries" ("project_id", "env", "status", "site_id");
--> statement-breakpoint
CREATE INDEX "queries_instance" ON "queries" ("instance_id", "variable");
--> statement-breakpoint
-- one automatic query per item and rule while it is not closed
CREATE UNIQUE INDEX "queries_auto_open" ON "queries" ("instance_id", "variable", "rule") WHERE "origin" = 'auto' AND "status" <> 3;
--> statement-breakpoint
CREATE TABLE "query_messages" (
  "id" serial PRIMARY KEY,
  "query_id" integer NOT NULL REFERENCES "queries"("id"),
  "action" varchar(10) NOT NULL,
  "text" varchar(1000),
  "old_value" jsonb,
  "new_value" jsonb,
  "user_id" integer REFERENCES "users"("id"),
  "user_name" varchar(50),
  "created_at" timestamp with time zone NOT NULL DEFAULT now(),
  CONSTRAINT "query_messages_action" CHECK ("action" in ('raise', 'reply', 'close', 'reopen', 'autoClose'))
);
--> statement-breakpoint
CREATE INDEX "query_messages_query" ON "query_messages" ("query_id", "id");
