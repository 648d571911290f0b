CREATE INDEX "subjects_status_fvd" ON "subjects" USING btree ("project_id","env","status","first_visit_date","id");--> statement-breakpoint
CREATE INDEX "subjects_fvd" ON "subjects" USING btree ("project_id","env","first_visit_date","id");--> statement-breakpoint
CREATE INDEX "subjects_no" ON "subjects" USING btree ("project_id","env","pts_no");