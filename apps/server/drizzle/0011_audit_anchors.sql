-- Audit anchors (security issue: "the audit chain can be rewritten or cut without detection"). Each row is a
-- signed checkpoint of the audit chains' heads: `heads` lists [chain_key, seq, hash] of every chain whose head
-- moved since the previous checkpoint (the full set of heads is the union over all checkpoints, newest wins, and
-- `digest` is SHA-256 over that full set), `mac` = HMAC(key, prev_mac ‖ the checkpoint) chains the checkpoints.
-- The same checkpoints go to an append-only JSON-lines file outside the database; `audit:verify` compares both.
CREATE TABLE "audit_checkpoints" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"reason" varchar(20) NOT NULL,
	"chains" integer NOT NULL,
	"row_count" bigint NOT NULL,
	"heads" jsonb NOT NULL,
	"digest" varchar(64) NOT NULL,
	"prev_mac" varchar(64) NOT NULL,
	"mac" varchar(64) NOT NULL
);--> statement-breakpoint
-- append-only like audit_events
CREATE OR REPLACE FUNCTION audit_checkpoints_refuse_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP USING ERRCODE = 'insufficient_privilege';
END;
$$;
--> statement-breakpoint
CREATE TRIGGER audit_checkpoints_no_update_delete
  BEFORE UPDATE OR DELETE ON audit_checkpoints
  FOR EACH ROW EXECUTE FUNCTION audit_checkpoints_refuse_change();
--> statement-breakpoint
CREATE TRIGGER audit_checkpoints_no_truncate
  BEFORE TRUNCATE ON audit_checkpoints
  FOR EACH STATEMENT EXECUTE FUNCTION audit_checkpoints_refuse_change();
