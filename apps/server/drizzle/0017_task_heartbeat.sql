-- Issue 11: a running extraction task beats every 30 s (heartbeat_at); a worker finds a task whose process died
-- (kill -9, power loss) by a heartbeat older than 3 minutes and starts it again, so the subject is never blocked by a
-- task that nobody runs.
ALTER TABLE "source_extract_tasks" ADD COLUMN "heartbeat_at" timestamp with time zone;
