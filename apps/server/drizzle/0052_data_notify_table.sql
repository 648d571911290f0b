-- Issues 16 and 13: the data notification names the table that changed (lib/response-cache.ts, lib/read-tables.ts),
-- so that an API process drops only the answers read from it — an eCRF save no longer empties the subject list.
-- Still once per statement that writes the table, delivered at commit; repeats of one table in one transaction go
-- once (PostgreSQL folds identical notifications), so a transaction sends one notification per table it wrote.
-- The triggers of migration 0050 stay as they are: only their function changes.
CREATE OR REPLACE FUNCTION esource_data_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('esource_data', TG_TABLE_NAME);
  RETURN NULL;
END $$;
