-- Typo-tolerant search and matching look names up in a list of the distinct normalised names
-- (docs/finding-companies.md, "Cost"), then fetch the entities or founders of the closest names by
-- the name's btree. Many rows share a name (a seeded database at 1M: some 8,500 distinct entity names
-- and about a thousand founder names), and a trigram index over the rows themselves hands every row
-- of every similar name to a recheck that reads the table: tens of thousands of rows per query.
--
-- The lists only grow: a name stays when its last row is renamed or deleted, and the readers join to
-- the rows (live ones only), so a stale name finds nothing. Removing names in the same triggers would
-- race a concurrent insert of the same name and could lose a live one. TRUNCATE (seed --replace)
-- empties them. Names are inserted in order, so two writers of overlapping names cannot deadlock.
CREATE TABLE "entity_search_names" ("name" text COLLATE "C" PRIMARY KEY);
CREATE TABLE "founder_search_names" ("name" text COLLATE "C" PRIMARY KEY);

INSERT INTO "entity_search_names" SELECT DISTINCT "search_name" FROM "entities" ORDER BY 1;
INSERT INTO "founder_search_names" SELECT DISTINCT "search_name" FROM "founders" ORDER BY 1;

CREATE FUNCTION "remember_search_names"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('INSERT INTO %I (name) SELECT DISTINCT search_name FROM new_rows ORDER BY 1 ON CONFLICT DO NOTHING', TG_ARGV[0]);
  RETURN NULL;
END $$;

CREATE FUNCTION "forget_search_names"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  EXECUTE format('DELETE FROM %I', TG_ARGV[0]);
  RETURN NULL;
END $$;

CREATE TRIGGER "entities_search_names_insert" AFTER INSERT ON "entities" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION remember_search_names('entity_search_names');
CREATE TRIGGER "entities_search_names_update" AFTER UPDATE ON "entities" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION remember_search_names('entity_search_names');
CREATE TRIGGER "entities_search_names_truncate" AFTER TRUNCATE ON "entities"
  FOR EACH STATEMENT EXECUTE FUNCTION forget_search_names('entity_search_names');
CREATE TRIGGER "founders_search_names_insert" AFTER INSERT ON "founders" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION remember_search_names('founder_search_names');
CREATE TRIGGER "founders_search_names_update" AFTER UPDATE ON "founders" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION remember_search_names('founder_search_names');
CREATE TRIGGER "founders_search_names_truncate" AFTER TRUNCATE ON "founders"
  FOR EACH STATEMENT EXECUTE FUNCTION forget_search_names('founder_search_names');

-- The trigram indexes move from the rows to the lists; nothing else reads the rows' ones, and every
-- write to entities and founders no longer pays for them.
DROP INDEX "entities_search_name_trgm_idx";
DROP INDEX "founders_search_name_trgm_idx";

DO $$
DECLARE
  trgm_schema text := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                        WHERE e.extname = 'pg_trgm');
BEGIN
  -- No pending list (fastupdate): a list takes few inserts, only names new to it, while a pending list
  -- is read whole by every search and flushed only by vacuum or at 4 MB; the embedded database never
  -- vacuums, and its demo data's names (~1 MB) left searches and matching 10-50 times slower.
  EXECUTE format('CREATE INDEX "entity_search_names_trgm_idx" ON "entity_search_names" USING gin ("name" %I.gin_trgm_ops) WITH (fastupdate = off)', trgm_schema);
  EXECUTE format('CREATE INDEX "founder_search_names_trgm_idx" ON "founder_search_names" USING gin ("name" %I.gin_trgm_ops) WITH (fastupdate = off)', trgm_schema);
  -- The search's fuzzy tier (src/search/statement.ts): the n names of a list most similar to the
  -- query, whole or word by word. Functions of their own to turn sequential scans off, as below. A
  -- union, not OR: a bitmap of both conditions rechecks each name against both (word_similarity() is
  -- dear), twice the time for a query of a common word (`... robotics`: 900 names).
  EXECUTE format($f$
    CREATE FUNCTION "similar_entity_names"(query text, n int) RETURNS TABLE (name text, similarity real)
      LANGUAGE sql STABLE SET enable_seqscan = off AS $b$
      SELECT s.name, %1$I.similarity(s.name, query) FROM (
        SELECT name FROM entity_search_names WHERE name OPERATOR(%1$I.%%) query
        UNION SELECT name FROM entity_search_names WHERE query OPERATOR(%1$I.<%%) name) s
       ORDER BY 2 DESC, s.name LIMIT n
    $b$
  $f$, trgm_schema);
  EXECUTE format($f$
    CREATE FUNCTION "similar_founder_names"(query text, n int) RETURNS TABLE (name text, similarity real)
      LANGUAGE sql STABLE SET enable_seqscan = off AS $b$
      SELECT s.name, %1$I.similarity(s.name, query) FROM (
        SELECT name FROM founder_search_names WHERE name OPERATOR(%1$I.%%) query
        UNION SELECT name FROM founder_search_names WHERE query OPERATOR(%1$I.<%%) name) s
       ORDER BY 2 DESC, s.name LIMIT n
    $b$
  $f$, trgm_schema);
  -- Matching's fuzzy candidates (src/match/statement.ts): the names closest to the record's, then
  -- their live entities most funded first (as the exact-name candidates), at most n in all. Sequential
  -- scans stay off: at a few ten thousand names the planner would rather compute similarity() for
  -- every name (~100 ms per record) than use the trigram index (~1 ms).
  EXECUTE format($f$
    CREATE OR REPLACE FUNCTION "match_fuzzy_candidates"(key text, n int) RETURNS TABLE (id int)
      LANGUAGE sql STABLE SET enable_seqscan = off AS $b$
      SELECT c.id FROM (
        SELECT s.name, %1$I.similarity(s.name, key) AS similarity FROM entity_search_names s
         WHERE s.name OPERATOR(%1$I.%%) key
         ORDER BY 2 DESC, s.name LIMIT n) s
      CROSS JOIN LATERAL (
        SELECT e.id, e.total_funding_usd FROM entities e
         WHERE (e.search_name COLLATE "C") = s.name AND e.deleted_at IS NULL
         ORDER BY e.total_funding_usd DESC, e.id LIMIT n) c
       ORDER BY s.similarity DESC, c.total_funding_usd DESC, c.id
       LIMIT n
    $b$
  $f$, trgm_schema);
END
$$;
