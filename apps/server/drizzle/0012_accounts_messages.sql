-- The message centre lists a user's messages newest first, per environment (the badge keeps messages_user).
CREATE INDEX IF NOT EXISTS "messages_user_list" ON "messages" USING btree ("user_id","env","id" DESC);--> statement-breakpoint
-- Who sent a message (null for messages the system writes, and for those sent before senders were kept).
ALTER TABLE "messages" ADD COLUMN IF NOT EXISTS "sender_id" integer REFERENCES "users"("id");
