-- The cross-kind search (GET /api/search, docs/finding-companies.md) matches names as normalised
-- text: accents folded, case and punctuation ignored, a trailing legal form (Inc, Ltd, GmbH ...)
-- dropped. One SQL function says how; entities and founders keep its result in a generated column,
-- so every write path (import, seed, API, plain SQL) stores it without knowing about it, and the
-- search normalises its query with the same function, so both sides always agree.
--
-- Accents are folded with translate() rather than the unaccent extension: the embedded database
-- would need one more extension loaded, and an unaccent() call is not immutable (its dictionary can
-- change), which a generated column requires. lower() folds ASCII everywhere; non-Latin scripts
-- are kept as letters. Apostrophes and dots join what they separate (O'Brien → obrien, E.ON → eon).
-- Edit distance (levenshtein) scores typos among the trigram candidates; a trusted extension, like pg_trgm.
CREATE EXTENSION IF NOT EXISTS fuzzystrmatch WITH SCHEMA public;

CREATE FUNCTION "search_text"(value text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN btrim(regexp_replace(regexp_replace(regexp_replace(
  lower(translate(replace(replace(replace(replace(replace(value, 'ß', 'ss'), 'Æ', 'ae'), 'æ', 'ae'), 'Œ', 'oe'), 'œ', 'oe'),
    'ÀÁÂÃÄÅĀĂĄàáâãäåāăąÇĆĈĊČçćĉċčĎĐÐďđðÈÉÊËĒĔĖĘĚèéêëēĕėęěĜĞĠĢĝğġģĤĦĥħÌÍÎÏĨĪĬĮİìíîïĩīĭįıĴĵĶķĹĻĽĿŁĺļľŀłÑŃŅŇñńņňÒÓÔÕÖØŌŎŐòóôõöøōŏőŔŖŘŕŗřŚŜŞŠȘśŝşšșŢŤŦȚţťŧțÙÚÛÜŨŪŬŮŰŲùúûüũūŭůűųŴŵÝŸŶýÿŷŹŻŽźżž',
    'aaaaaaaaaaaaaaaaaaccccccccccddddddeeeeeeeeeeeeeeeeeegggggggghhhhiiiiiiiiiiiiiiiiiijjkkllllllllllnnnnnnnnoooooooooooooooooorrrrrrssssssssssttttttttuuuuuuuuuuuuuuuuuuuuwwyyyyyyzzzzzz')),
  '[''’‘`´.]', '', 'g'),
  '[^a-z0-9\u00c0-\u024f\u0370-\u1fff\u3040-\ud7ff\uf900-\ufaff]+', ' ', 'g'),
  '( (inc|incorporated|corp|corporation|co|company|ltd|limited|llc|llp|lp|plc|gmbh|ag|kg|ug|sa|sas|sarl|srl|spa|bv|nv|ab|oy|aps|pty|pte|kk))+ ?$', '', 'g'));

-- The search normalises its query with this twin of search_text(), marked PARALLEL UNSAFE: a
-- statement that calls it never plans parallel workers. A search reads a few index entries per tier,
-- and workers cost more to start than they save; worse, a parallel plan starts them for the
-- typo-tolerant tier even when it is gated off.
CREATE FUNCTION "search_query"(value text) RETURNS text
  LANGUAGE sql STABLE PARALLEL UNSAFE STRICT
RETURN search_text(value);

ALTER TABLE "entities" ADD COLUMN "search_name" text NOT NULL GENERATED ALWAYS AS (search_text("name")) STORED;
ALTER TABLE "founders" ADD COLUMN "search_name" text NOT NULL GENERATED ALWAYS AS (search_text("name")) STORED;

-- Exact and prefix matches are ranges of a byte-ordered btree (a parameter's range works in a
-- generic plan, where LIKE 'q%' would not); an exact name's hits come out most funded first.
CREATE INDEX "entities_search_name_idx" ON "entities" (("search_name" COLLATE "C"), "total_funding_usd" DESC, "id")
  WHERE "deleted_at" IS NULL;
CREATE INDEX "founders_search_name_idx" ON "founders" (("search_name" COLLATE "C"), "id");

-- Typo-tolerant matches: trigram similarity, whole name and word by word (pg_trgm, see
-- 20261123030001_name_search_trigram_indexes for why the operator class is named by its schema).
DO $$
DECLARE
  trgm_schema text := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                        WHERE e.extname = 'pg_trgm');
BEGIN
  EXECUTE format('CREATE INDEX "entities_search_name_trgm_idx" ON "entities" USING gin ("search_name" %I.gin_trgm_ops) WHERE "deleted_at" IS NULL', trgm_schema);
  EXECUTE format('CREATE INDEX "founders_search_name_trgm_idx" ON "founders" USING gin ("search_name" %I.gin_trgm_ops)', trgm_schema);
END
$$;

-- The changes feed: `search_name` is derived from `name`, not a field of the record, so it is hidden
-- from `changed_fields` as the other derived columns are (a rename reports `name` alone).
DROP TRIGGER "entities_changes_insert" ON "entities";
DROP TRIGGER "entities_changes_update" ON "entities";
CREATE TRIGGER "entities_changes_insert" AFTER INSERT ON "entities" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'entity', '{slug,country_location_id,city_location_id,website_domain,search_name}', '{updated_at}');
CREATE TRIGGER "entities_changes_update" AFTER UPDATE ON "entities" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'entity', '{slug,country_location_id,city_location_id,website_domain,search_name}', '{updated_at}');
DROP TRIGGER "founders_changes_insert" ON "founders";
DROP TRIGGER "founders_changes_update" ON "founders";
CREATE TRIGGER "founders_changes_insert" AFTER INSERT ON "founders" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'founder', '{slug,location_country_id,created_at,updated_at,search_name}');
CREATE TRIGGER "founders_changes_update" AFTER UPDATE ON "founders" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'founder', '{slug,location_country_id,created_at,updated_at,search_name}');
