-- Matching's fuzzy name candidates (src/match/statement.ts): the entities whose normalised name has
-- the most trigrams in common with a record's. A function of its own so that it can turn sequential
-- scans off: on tables of a few ten thousand rows the planner prefers scanning every name (it cannot
-- see how dear similarity() is) to the trigram index, which costs ~100 ms per record instead of ~1.
DO $$
DECLARE
  trgm_schema text := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                        WHERE e.extname = 'pg_trgm');
BEGIN
  EXECUTE format($f$
    CREATE FUNCTION "match_fuzzy_candidates"(key text, n int) RETURNS TABLE (id int)
      LANGUAGE sql STABLE SET enable_seqscan = off AS $b$
      SELECT e.id FROM entities e
       WHERE e.search_name OPERATOR(%1$I.%%) key AND e.deleted_at IS NULL
       ORDER BY %1$I.similarity(e.search_name, key) DESC, e.id
       LIMIT n
    $b$
  $f$, trgm_schema);
END
$$;
