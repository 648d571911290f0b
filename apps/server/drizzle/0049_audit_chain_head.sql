-- The head of an audit chain, locked, in one round trip (issue 16 item 4): takes the chain's transaction-scoped
-- advisory lock, then reads its last row. A PL/pgSQL function (volatile) reads with a new snapshot after the lock is
-- granted, so a writer that waited for the lock sees the row the previous holder committed; one SQL statement that
-- both locked and read would read with the snapshot taken before it waited, and fork the chain.
CREATE OR REPLACE FUNCTION audit_chain_head(p_chain_key varchar)
RETURNS TABLE (seq integer, hash varchar)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext(p_chain_key));
  RETURN QUERY
    SELECT e.seq, e.hash FROM audit_events e WHERE e.chain_key = p_chain_key ORDER BY e.seq DESC LIMIT 1;
END;
$$;
