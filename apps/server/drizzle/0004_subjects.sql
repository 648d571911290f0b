CREATE TABLE "subjects" (
	"id" serial PRIMARY KEY NOT NULL,
	"env" varchar(3) NOT NULL,
	"project_id" integer NOT NULL,
	"site_id" integer NOT NULL,
	"pts_no" varchar(30) NOT NULL,
	"status" integer NOT NULL,
	"status_reason" varchar(500),
	"status_before_delete" integer,
	"design_version_id" integer,
	"first_visit_date" date NOT NULL,
	"initials" varchar(10),
	"medical_record_id" varchar(40),
	"inpatient_id" varchar(40),
	"outpatient_id" varchar(40),
	"id_card" varchar(18),
	"version" integer DEFAULT 1 NOT NULL,
	"created_by" integer,
	"deleted_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "subjects_status" CHECK ("subjects"."status" between 0 and 8)
);
--> statement-breakpoint
ALTER TABLE "subjects" ADD CONSTRAINT "subjects_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subjects" ADD CONSTRAINT "subjects_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subjects" ADD CONSTRAINT "subjects_design_version_id_design_versions_id_fk" FOREIGN KEY ("design_version_id") REFERENCES "public"."design_versions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subjects" ADD CONSTRAINT "subjects_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "subjects_env_project_no" ON "subjects" USING btree ("env","project_id","pts_no");--> statement-breakpoint
CREATE INDEX "subjects_list" ON "subjects" USING btree ("project_id","env","site_id","status");--> statement-breakpoint
CREATE INDEX "subjects_mrn" ON "subjects" USING btree ("project_id","env","medical_record_id");