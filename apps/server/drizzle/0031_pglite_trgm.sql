-- The subject-number search's trigram index on the embedded database too (0029 created it only where pg_trgm could
-- be had; PGlite now loads the extension, see db/client.ts). Idempotent: a database that has it already is unchanged,
-- and one where the extension still cannot be created keeps searching without it.
DO $$
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
  EXCEPTION WHEN others THEN
    RAISE NOTICE 'pg_trgm not available (%): subject-number search without a trigram index', SQLERRM;
  END;
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_trgm') THEN
    EXECUTE 'CREATE INDEX IF NOT EXISTS "subjects_no_trgm" ON "subjects" USING gin ("pts_no" gin_trgm_ops)';
  END IF;
END $$;
