CREATE TABLE "audit_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"chain_key" varchar(40) NOT NULL,
	"seq" integer NOT NULL,
	"env" varchar(3),
	"project_id" integer,
	"site_id" integer,
	"subject_id" integer,
	"user_id" integer,
	"user_name" varchar(50),
	"action" varchar(50) NOT NULL,
	"entity" varchar(50) NOT NULL,
	"entity_id" varchar(64),
	"field" varchar(100),
	"old_value" text,
	"new_value" text,
	"reason" text,
	"request_id" varchar(64),
	"ip" varchar(64),
	"created_at" timestamp with time zone NOT NULL,
	"prev_hash" varchar(64) NOT NULL,
	"hash" varchar(64) NOT NULL
);
--> statement-breakpoint
CREATE TABLE "departments" (
	"id" serial PRIMARY KEY NOT NULL,
	"org_id" integer NOT NULL,
	"name" varchar(50) NOT NULL,
	"code" varchar(50),
	"status" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "messages" (
	"id" serial PRIMARY KEY NOT NULL,
	"env" varchar(3) NOT NULL,
	"project_id" integer,
	"user_id" integer NOT NULL,
	"kind" varchar(30) NOT NULL,
	"title" varchar(200) NOT NULL,
	"content" text DEFAULT '' NOT NULL,
	"is_read" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"read_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "organizations" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" varchar(30) NOT NULL,
	"code" varchar(50),
	"address" varchar(200),
	"status" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "permission_groups" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" varchar(50) NOT NULL,
	"description" varchar(200),
	"login_windows" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"timezone" varchar(64) DEFAULT 'Asia/Shanghai' NOT NULL,
	"reviewer_user_id" integer,
	"status" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "permission_groups_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "progress_items" (
	"id" serial PRIMARY KEY NOT NULL,
	"env" varchar(3) NOT NULL,
	"project_id" integer NOT NULL,
	"site_id" integer,
	"user_id" integer NOT NULL,
	"type" integer NOT NULL,
	"status" integer DEFAULT 1 NOT NULL,
	"display_information" varchar(500) NOT NULL,
	"pts_no" varchar(50),
	"pts_id" integer,
	"design_version_id" integer,
	"extra_info" jsonb,
	"job_id" varchar(64),
	"is_read" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "progress_items_type" CHECK ("progress_items"."type" in (1, 2, 3)),
	CONSTRAINT "progress_items_status" CHECK ("progress_items"."status" in (1, 2, 3))
);
--> statement-breakpoint
CREATE TABLE "project_member_sites" (
	"member_id" integer NOT NULL,
	"site_id" integer NOT NULL,
	CONSTRAINT "project_member_sites_member_id_site_id_pk" PRIMARY KEY("member_id","site_id")
);
--> statement-breakpoint
CREATE TABLE "project_members" (
	"id" serial PRIMARY KEY NOT NULL,
	"env" varchar(3) NOT NULL,
	"project_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"role_id" integer NOT NULL,
	"all_sites" boolean DEFAULT false NOT NULL,
	"status" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "projects" (
	"id" serial PRIMARY KEY NOT NULL,
	"no" varchar(20) NOT NULL,
	"name" varchar(100) NOT NULL,
	"status" integer DEFAULT 1 NOT NULL,
	"file_confirm_config" integer DEFAULT 0 NOT NULL,
	"auto_prefill_disabled" boolean DEFAULT false NOT NULL,
	"uuid_no" uuid DEFAULT gen_random_uuid() NOT NULL,
	"config_five_function" varchar(50) DEFAULT '' NOT NULL,
	"scene" integer DEFAULT 1 NOT NULL,
	"created_by" integer,
	"version" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "projects_scene" CHECK ("projects"."scene" in (1, 2)),
	CONSTRAINT "projects_status" CHECK ("projects"."status" between 0 and 3)
);
--> statement-breakpoint
CREATE TABLE "role_permissions" (
	"role_id" integer NOT NULL,
	"permission" varchar(100) NOT NULL,
	CONSTRAINT "role_permissions_role_id_permission_pk" PRIMARY KEY("role_id","permission")
);
--> statement-breakpoint
CREATE TABLE "roles" (
	"id" serial PRIMARY KEY NOT NULL,
	"code" varchar(20) NOT NULL,
	"name" varchar(10) NOT NULL,
	"name_en" varchar(50),
	"description" varchar(200),
	"kind" varchar(10) DEFAULT 'project' NOT NULL,
	"is_dm" boolean DEFAULT false NOT NULL,
	"env_dev" boolean DEFAULT false NOT NULL,
	"env_uat" boolean DEFAULT true NOT NULL,
	"env_pro" boolean DEFAULT true NOT NULL,
	"status" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "roles_code_unique" UNIQUE("code")
);
--> statement-breakpoint
CREATE TABLE "sessions" (
	"id" serial PRIMARY KEY NOT NULL,
	"token_hash" varchar(64) NOT NULL,
	"user_id" integer NOT NULL,
	"login_type" integer NOT NULL,
	"env" varchar(3) NOT NULL,
	"ip" varchar(64),
	"user_agent" varchar(300),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"end_reason" varchar(20),
	CONSTRAINT "sessions_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "sites" (
	"id" serial PRIMARY KEY NOT NULL,
	"env" varchar(3) NOT NULL,
	"project_id" integer NOT NULL,
	"org_id" integer NOT NULL,
	"site_no" varchar(20) NOT NULL,
	"name" varchar(100) NOT NULL,
	"pi_user_id" integer,
	"status" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "users" (
	"id" serial PRIMARY KEY NOT NULL,
	"account" varchar(50) NOT NULL,
	"name" varchar(50) NOT NULL,
	"phone" varchar(20),
	"mail" varchar(100),
	"id_number" varchar(18),
	"org_id" integer,
	"dept_id" integer,
	"login_types" integer[] DEFAULT '{}'::integer[] NOT NULL,
	"system_role_id" integer,
	"permission_group_id" integer,
	"password_hash" text NOT NULL,
	"password_changed_at" timestamp with time zone,
	"status" integer DEFAULT 1 NOT NULL,
	"failed_login_count" integer DEFAULT 0 NOT NULL,
	"locked_until" timestamp with time zone,
	"last_login_at" timestamp with time zone,
	"img_url" varchar(300),
	"language" varchar(5),
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "departments" ADD CONSTRAINT "departments_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "messages" ADD CONSTRAINT "messages_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "progress_items" ADD CONSTRAINT "progress_items_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "progress_items" ADD CONSTRAINT "progress_items_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_member_sites" ADD CONSTRAINT "project_member_sites_member_id_project_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."project_members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_member_sites" ADD CONSTRAINT "project_member_sites_site_id_sites_id_fk" FOREIGN KEY ("site_id") REFERENCES "public"."sites"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_members" ADD CONSTRAINT "project_members_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_members" ADD CONSTRAINT "project_members_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "project_members" ADD CONSTRAINT "project_members_role_id_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."roles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "projects" ADD CONSTRAINT "projects_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "role_permissions" ADD CONSTRAINT "role_permissions_role_id_roles_id_fk" FOREIGN KEY ("role_id") REFERENCES "public"."roles"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sites" ADD CONSTRAINT "sites_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sites" ADD CONSTRAINT "sites_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sites" ADD CONSTRAINT "sites_pi_user_id_users_id_fk" FOREIGN KEY ("pi_user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_org_id_organizations_id_fk" FOREIGN KEY ("org_id") REFERENCES "public"."organizations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_dept_id_departments_id_fk" FOREIGN KEY ("dept_id") REFERENCES "public"."departments"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_system_role_id_roles_id_fk" FOREIGN KEY ("system_role_id") REFERENCES "public"."roles"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_permission_group_id_permission_groups_id_fk" FOREIGN KEY ("permission_group_id") REFERENCES "public"."permission_groups"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "audit_events_chain_seq" ON "audit_events" USING btree ("chain_key","seq");--> statement-breakpoint
CREATE INDEX "audit_events_project_time" ON "audit_events" USING btree ("project_id","env","created_at");--> statement-breakpoint
CREATE INDEX "audit_events_action_time" ON "audit_events" USING btree ("action","created_at");--> statement-breakpoint
CREATE INDEX "audit_events_user_time" ON "audit_events" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "departments_org_name" ON "departments" USING btree ("org_id","name");--> statement-breakpoint
CREATE INDEX "messages_user" ON "messages" USING btree ("user_id","env","is_read");--> statement-breakpoint
CREATE INDEX "progress_items_user" ON "progress_items" USING btree ("user_id","env","project_id","type","is_read");--> statement-breakpoint
CREATE UNIQUE INDEX "project_members_env_project_user" ON "project_members" USING btree ("env","project_id","user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "projects_no" ON "projects" USING btree ("no");--> statement-breakpoint
CREATE UNIQUE INDEX "projects_uuid" ON "projects" USING btree ("uuid_no");--> statement-breakpoint
CREATE INDEX "sessions_user" ON "sessions" USING btree ("user_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sites_env_project_org" ON "sites" USING btree ("env","project_id","org_id");--> statement-breakpoint
CREATE UNIQUE INDEX "sites_env_project_no" ON "sites" USING btree ("env","project_id","site_no");--> statement-breakpoint
CREATE UNIQUE INDEX "users_account_lower" ON "users" USING btree (lower("account"));