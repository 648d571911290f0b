CREATE TABLE "crf_instances" (
	"id" serial PRIMARY KEY NOT NULL,
	"env" varchar(3) NOT NULL,
	"project_id" integer NOT NULL,
	"site_id" integer NOT NULL,
	"subject_id" integer NOT NULL,
	"visit_id" integer NOT NULL,
	"unscheduled_id" integer DEFAULT 0 NOT NULL,
	"form_id" integer NOT NULL,
	"repeat_no" integer DEFAULT 1 NOT NULL,
	"status" integer DEFAULT 1 NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"updated_by" integer,
	"certified_by" integer,
	"certified_at" timestamp with time zone,
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crf_value_history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"instance_id" integer NOT NULL,
	"variable" varchar(40) NOT NULL,
	"old_value" jsonb,
	"new_value" jsonb,
	"entry_mode" integer NOT NULL,
	"reason" varchar(500),
	"instance_version" integer NOT NULL,
	"user_id" integer,
	"user_name" varchar(50),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crf_values" (
	"id" serial PRIMARY KEY NOT NULL,
	"instance_id" integer NOT NULL,
	"variable" varchar(40) NOT NULL,
	"value" jsonb,
	"entry_mode" integer NOT NULL,
	"source_ref" varchar(200),
	"updated_by" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "subject_unscheduled_visits" (
	"id" serial PRIMARY KEY NOT NULL,
	"subject_id" integer NOT NULL,
	"visit_id" integer NOT NULL,
	"visit_date" date NOT NULL,
	"label" varchar(100),
	"created_by" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "crf_instances" ADD CONSTRAINT "crf_instances_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_instances" ADD CONSTRAINT "crf_instances_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_instances" ADD CONSTRAINT "crf_instances_subject_id_subjects_id_fk" FOREIGN KEY ("subject_id") REFERENCES "public"."subjects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_instances" ADD CONSTRAINT "crf_instances_visit_id_visits_id_fk" FOREIGN KEY ("visit_id") REFERENCES "public"."visits"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_instances" ADD CONSTRAINT "crf_instances_form_id_forms_id_fk" FOREIGN KEY ("form_id") REFERENCES "public"."forms"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_instances" ADD CONSTRAINT "crf_instances_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_instances" ADD CONSTRAINT "crf_instances_certified_by_users_id_fk" FOREIGN KEY ("certified_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_value_history" ADD CONSTRAINT "crf_value_history_instance_id_crf_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."crf_instances"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_value_history" ADD CONSTRAINT "crf_value_history_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_values" ADD CONSTRAINT "crf_values_instance_id_crf_instances_id_fk" FOREIGN KEY ("instance_id") REFERENCES "public"."crf_instances"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crf_values" ADD CONSTRAINT "crf_values_updated_by_users_id_fk" FOREIGN KEY ("updated_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subject_unscheduled_visits" ADD CONSTRAINT "subject_unscheduled_visits_subject_id_subjects_id_fk" FOREIGN KEY ("subject_id") REFERENCES "public"."subjects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subject_unscheduled_visits" ADD CONSTRAINT "subject_unscheduled_visits_visit_id_visits_id_fk" FOREIGN KEY ("visit_id") REFERENCES "public"."visits"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subject_unscheduled_visits" ADD CONSTRAINT "subject_unscheduled_visits_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "crf_instances_key" ON "crf_instances" USING btree ("subject_id","visit_id","unscheduled_id","form_id","repeat_no");--> statement-breakpoint
CREATE INDEX "crf_instances_project" ON "crf_instances" USING btree ("project_id","env","status");--> statement-breakpoint
CREATE INDEX "crf_value_history_item" ON "crf_value_history" USING btree ("instance_id","variable");--> statement-breakpoint
CREATE UNIQUE INDEX "crf_values_instance_variable" ON "crf_values" USING btree ("instance_id","variable");