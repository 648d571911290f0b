ALTER TABLE "subjects" ADD COLUMN "delete_reason" varchar(500);--> statement-breakpoint
UPDATE subjects s SET delete_reason = (SELECT a.reason FROM audit_events a WHERE a.action = 'subject.delete' AND a.subject_id = s.id ORDER BY a.id DESC LIMIT 1) WHERE s.status = 0;
