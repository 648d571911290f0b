CREATE TABLE "center_applications" (
	"id" serial PRIMARY KEY NOT NULL,
	"env" varchar(3) NOT NULL,
	"project_id" integer NOT NULL,
	"org_id" integer NOT NULL,
	"applicant_user_id" integer NOT NULL,
	"status" integer DEFAULT 0 NOT NULL,
	"note" varchar(500),
	"reviewer_user_id" integer,
	"review_reason" varchar(500),
	"reviewed_at" timestamp with time zone,
	"site_id" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
DROP INDEX "projects_no";--> statement-breakpoint
ALTER TABLE "projects" ADD COLUMN "deleted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "center_applications" ADD CONSTRAINT "center_applications_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "center_applications" ADD CONSTRAINT "center_applications_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "center_applications" ADD CONSTRAINT "center_applications_applicant_user_id_users_id_fk" FOREIGN KEY ("applicant_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "center_applications" ADD CONSTRAINT "center_applications_reviewer_user_id_users_id_fk" FOREIGN KEY ("reviewer_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "center_applications" ADD CONSTRAINT "center_applications_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "center_applications_status" ON "center_applications" USING btree ("env","status");--> statement-breakpoint
CREATE UNIQUE INDEX "projects_no" ON "projects" USING btree ("no") WHERE "projects"."deleted_at" is null;