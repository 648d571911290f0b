-- Issue 16 / 13: answers of read-only lists kept in the API process (lib/response-cache.ts) and dropped the moment
-- any data they could have been read from changes. Every table of the schema sends NOTIFY esource_data (empty
-- payload) once per statement that writes it, delivered at commit (a rolled-back change sends nothing; repeats in one
-- transaction go once). Not these, which no cached answer reads and which change on reads or in the background:
-- sessions and login_throttle (the keep-alive, logins: the guard's own cache follows sessions), webauthn_challenges,
-- audit_events and audit_checkpoints (a read of identifiers is audited; the chain's checkpoints), sms_outbox,
-- progress_items (a job's progress), edc_logs and hl7_messages (written per record while a sync or an ingest runs).
-- A table created by a later migration gets the same trigger there; test/response-cache.int.test.ts fails on a
-- table that has neither the trigger nor a place in this list.
CREATE OR REPLACE FUNCTION esource_data_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('esource_data', '');
  RETURN NULL;
END $$;
--> statement-breakpoint
DO $$
DECLARE t text;
BEGIN
  FOR t IN
    SELECT tablename FROM pg_tables
    WHERE schemaname = 'public'
      AND tablename NOT IN ('sessions', 'login_throttle', 'webauthn_challenges', 'audit_events', 'audit_checkpoints',
                            'sms_outbox', 'progress_items', 'edc_logs', 'hl7_messages')
  LOOP
    EXECUTE format('CREATE TRIGGER %I AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %I FOR EACH STATEMENT EXECUTE FUNCTION esource_data_notify()',
                   t || '_data_notify', t);
  END LOOP;
END $$;
