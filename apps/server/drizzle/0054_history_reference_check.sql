-- Issue 16: a save of 50 items writes 50 history rows, and the table's two foreign keys (instance, user) checked each
-- row on its own: 100 lookups with a row lock each, every one through the executor — a fifth of PostgreSQL's time
-- in a save (docs/benchmarks.md "History references checked once a statement"). The same rule is now checked once a
-- statement, over the statement's new rows, and kept from the other side when a referenced row goes:
-- - on insert or update of history rows: every instance and user they name exists, and is locked FOR KEY SHARE as a
--   foreign key locks it (no one deletes it, or changes its id, until this transaction ends); otherwise the statement
--   fails with foreign_key_violation (23503) naming the former constraint;
-- - on delete of an instance or a user, or a change of its id: refused (23503) while a history row names it. An
--   AFTER row trigger, so that it runs once the row's lock was granted and sees what the holders committed.
ALTER TABLE crf_value_history DROP CONSTRAINT IF EXISTS crf_value_history_instance_id_crf_instances_id_fk;
--> statement-breakpoint
ALTER TABLE crf_value_history DROP CONSTRAINT IF EXISTS crf_value_history_user_id_users_id_fk;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION crf_value_history_references() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  wanted int;
  found int;
BEGIN
  SELECT count(DISTINCT instance_id) INTO wanted FROM new_rows;
  PERFORM 1 FROM crf_instances WHERE id IN (SELECT instance_id FROM new_rows) FOR KEY SHARE;
  GET DIAGNOSTICS found = ROW_COUNT;
  IF found <> wanted THEN
    RAISE EXCEPTION 'insert or update on table "crf_value_history" violates foreign key constraint "crf_value_history_instance_id_crf_instances_id_fk"'
      USING ERRCODE = 'foreign_key_violation', TABLE = 'crf_value_history', CONSTRAINT = 'crf_value_history_instance_id_crf_instances_id_fk',
            DETAIL = 'A history row names a form instance that does not exist.';
  END IF;
  SELECT count(DISTINCT user_id) INTO wanted FROM new_rows WHERE user_id IS NOT NULL;
  IF wanted > 0 THEN
    PERFORM 1 FROM users WHERE id IN (SELECT user_id FROM new_rows) FOR KEY SHARE;
    GET DIAGNOSTICS found = ROW_COUNT;
    IF found <> wanted THEN
      RAISE EXCEPTION 'insert or update on table "crf_value_history" violates foreign key constraint "crf_value_history_user_id_users_id_fk"'
        USING ERRCODE = 'foreign_key_violation', TABLE = 'crf_value_history', CONSTRAINT = 'crf_value_history_user_id_users_id_fk',
              DETAIL = 'A history row names a user who does not exist.';
    END IF;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS crf_value_history_references_insert ON crf_value_history;
--> statement-breakpoint
CREATE TRIGGER crf_value_history_references_insert AFTER INSERT ON crf_value_history
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION crf_value_history_references();
--> statement-breakpoint
DROP TRIGGER IF EXISTS crf_value_history_references_update ON crf_value_history;
--> statement-breakpoint
CREATE TRIGGER crf_value_history_references_update AFTER UPDATE ON crf_value_history
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION crf_value_history_references();
--> statement-breakpoint
CREATE OR REPLACE FUNCTION crf_value_history_referenced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.id = OLD.id THEN
    RETURN NULL;
  END IF;
  IF TG_TABLE_NAME = 'crf_instances' AND EXISTS (SELECT 1 FROM crf_value_history WHERE instance_id = OLD.id) THEN
    RAISE EXCEPTION 'update or delete on table "crf_instances" violates foreign key constraint "crf_value_history_instance_id_crf_instances_id_fk" on table "crf_value_history"'
      USING ERRCODE = 'foreign_key_violation', TABLE = 'crf_value_history', CONSTRAINT = 'crf_value_history_instance_id_crf_instances_id_fk',
            DETAIL = format('Key (id)=(%s) is still referenced from table "crf_value_history".', OLD.id);
  END IF;
  IF TG_TABLE_NAME = 'users' AND EXISTS (SELECT 1 FROM crf_value_history WHERE user_id = OLD.id) THEN
    RAISE EXCEPTION 'update or delete on table "users" violates foreign key constraint "crf_value_history_user_id_users_id_fk" on table "crf_value_history"'
      USING ERRCODE = 'foreign_key_violation', TABLE = 'crf_value_history', CONSTRAINT = 'crf_value_history_user_id_users_id_fk',
            DETAIL = format('Key (id)=(%s) is still referenced from table "crf_value_history".', OLD.id);
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS crf_value_history_referenced ON crf_instances;
--> statement-breakpoint
CREATE TRIGGER crf_value_history_referenced AFTER DELETE OR UPDATE OF id ON crf_instances
  FOR EACH ROW EXECUTE FUNCTION crf_value_history_referenced();
--> statement-breakpoint
DROP TRIGGER IF EXISTS crf_value_history_referenced ON users;
--> statement-breakpoint
CREATE TRIGGER crf_value_history_referenced AFTER DELETE OR UPDATE OF id ON users
  FOR EACH ROW EXECUTE FUNCTION crf_value_history_referenced();
