-- One audit event per user action (issue 16 item 3): a batch save of a form writes one chained row carrying the list
-- of its item changes (JSON text, so that the bytes the chain's HMAC covers are the bytes read back) instead of one
-- chained row per item. Rows written before keep their shape (changes null) and their hashes.
ALTER TABLE "audit_events" ADD COLUMN "changes" text;
