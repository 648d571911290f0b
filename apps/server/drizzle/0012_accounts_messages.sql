-- The message centre lists a user's messages newest first, per environment (the badge keeps messages_user).
CREATE INDEX IF NOT EXISTS "messages_user_list" ON "messages" USING btree ("user_id","env","id" DESC);
