-- Similar companies (docs/finding-companies.md, "Similar companies", "How it stays fast"): the best
-- candidates of a company carry most of its tags, and at a million entities a common tag alone is on
-- 85,000 of them. An entity's tags as one array, with a GIN index, let the statement ask for the
-- entities carrying a whole set of tags at once (`tag_ids @> ...`): the index intersects the tags'
-- entry lists itself, where joining entity_tags reads every entry of every tag.
--
-- The array is entity_tags folded per entity, kept by statement triggers in the transaction that
-- changes entity_tags (any write path: API, import, seed, plain SQL), so it never differs from the
-- rows it folds: the similarity score reads it as it would read entity_tags. An entity without tags
-- has no row.
SET LOCAL statement_timeout = 0;

CREATE TABLE "entity_tag_sets" (
    "entity_id" INTEGER NOT NULL,
    "tag_ids" INTEGER[] NOT NULL,
    CONSTRAINT "entity_tag_sets_pkey" PRIMARY KEY ("entity_id")
);

INSERT INTO "entity_tag_sets" ("entity_id", "tag_ids")
SELECT entity_id, array_agg(tag_id ORDER BY tag_id) FROM entity_tags GROUP BY entity_id;

CREATE INDEX "entity_tag_sets_tag_ids_idx" ON "entity_tag_sets" USING gin ("tag_ids");

-- Refolds the given entities' rows from entity_tags: removes the arrays of those left without tags,
-- writes only arrays that change.
CREATE FUNCTION "entity_tag_sets_refresh"(ids integer[]) RETURNS void LANGUAGE sql AS $$
  DELETE FROM entity_tag_sets s
   WHERE s.entity_id = ANY (ids) AND NOT EXISTS (SELECT 1 FROM entity_tags t WHERE t.entity_id = s.entity_id);
  INSERT INTO entity_tag_sets (entity_id, tag_ids)
  SELECT t.entity_id, array_agg(t.tag_id ORDER BY t.tag_id) FROM entity_tags t WHERE t.entity_id = ANY (ids) GROUP BY t.entity_id
  ON CONFLICT (entity_id) DO UPDATE SET tag_ids = EXCLUDED.tag_ids WHERE entity_tag_sets.tag_ids IS DISTINCT FROM EXCLUDED.tag_ids;
$$;

CREATE FUNCTION "entity_tag_sets_sync"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE entity_tag_sets;
  ELSIF TG_OP = 'INSERT' THEN
    PERFORM entity_tag_sets_refresh(ARRAY(SELECT DISTINCT entity_id FROM new_rows));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM entity_tag_sets_refresh(ARRAY(SELECT DISTINCT entity_id FROM old_rows));
  ELSE
    PERFORM entity_tag_sets_refresh(ARRAY(SELECT entity_id FROM old_rows UNION SELECT entity_id FROM new_rows));
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER "entity_tag_sets_insert" AFTER INSERT ON "entity_tags" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION entity_tag_sets_sync();
CREATE TRIGGER "entity_tag_sets_delete" AFTER DELETE ON "entity_tags" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION entity_tag_sets_sync();
CREATE TRIGGER "entity_tag_sets_update" AFTER UPDATE ON "entity_tags" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION entity_tag_sets_sync();
CREATE TRIGGER "entity_tag_sets_truncate" AFTER TRUNCATE ON "entity_tags"
  FOR EACH STATEMENT EXECUTE FUNCTION entity_tag_sets_sync();
