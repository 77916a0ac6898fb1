-- Similar companies (docs/finding-companies.md, "Similar companies", "How it stays fast"): the best
-- candidates of a company carry most of its tags, and at a million entities a common tag alone is on
-- 85,000 of them. A profile per tagged entity (its tags as one array, with a GIN index, and what the
-- score and the candidate rules read: location, launch year, company, not deleted) lets the
-- statement ask for the entities carrying a whole set of tags at once (`tag_ids @> ...`), the index
-- intersecting the tags' entry lists itself, and score them without reading their rows.
--
-- A profile folds entity_tags and copies entities' columns; statement triggers keep it in the
-- transaction that changes either (any write path: API, import, seed, plain SQL), so it never
-- differs from the rows it is made of. An entity without tags has no profile.
SET LOCAL statement_timeout = 0;

-- An investor's candidates are the companies of the rounds it joined: the round's company read from
-- the index, not from the round's row.
CREATE INDEX "funding_rounds_id_entity_id_idx" ON "funding_rounds" ("id") INCLUDE ("entity_id");

CREATE TABLE "similarity_profiles" (
    "entity_id" INTEGER NOT NULL,
    "tag_ids" INTEGER[] NOT NULL,
    "is_company" BOOLEAN NOT NULL,
    "live" BOOLEAN NOT NULL,
    "hq_country" TEXT NOT NULL,
    "hq_city" TEXT NOT NULL,
    "launch_year" INTEGER,
    CONSTRAINT "similarity_profiles_pkey" PRIMARY KEY ("entity_id")
);

-- Rebuilds the profiles of the given entities from entity_tags and entities: removes those left
-- without tags, writes only profiles that change.
CREATE FUNCTION "similarity_profiles_refresh"(ids integer[]) RETURNS void LANGUAGE sql AS $$
  DELETE FROM similarity_profiles p
   WHERE p.entity_id = ANY (ids) AND NOT EXISTS (SELECT 1 FROM entity_tags t WHERE t.entity_id = p.entity_id);
  INSERT INTO similarity_profiles (entity_id, tag_ids, is_company, live, hq_country, hq_city, launch_year)
  SELECT e.id, t.tag_ids, e.is_company, e.deleted_at IS NULL, e.hq_country, e.hq_city, e.launch_year
    FROM (SELECT entity_id, array_agg(tag_id ORDER BY tag_id) AS tag_ids FROM entity_tags WHERE entity_id = ANY (ids) GROUP BY entity_id) t
    JOIN entities e ON e.id = t.entity_id
  ON CONFLICT (entity_id) DO UPDATE
    SET tag_ids = EXCLUDED.tag_ids, is_company = EXCLUDED.is_company, live = EXCLUDED.live,
        hq_country = EXCLUDED.hq_country, hq_city = EXCLUDED.hq_city, launch_year = EXCLUDED.launch_year
    WHERE (similarity_profiles.tag_ids, similarity_profiles.is_company, similarity_profiles.live, similarity_profiles.hq_country,
           similarity_profiles.hq_city, similarity_profiles.launch_year)
          IS DISTINCT FROM (EXCLUDED.tag_ids, EXCLUDED.is_company, EXCLUDED.live, EXCLUDED.hq_country, EXCLUDED.hq_city, EXCLUDED.launch_year);
$$;

INSERT INTO "similarity_profiles" ("entity_id", "tag_ids", "is_company", "live", "hq_country", "hq_city", "launch_year")
SELECT e.id, t.tag_ids, e.is_company, e.deleted_at IS NULL, e.hq_country, e.hq_city, e.launch_year
  FROM (SELECT entity_id, array_agg(tag_id ORDER BY tag_id) AS tag_ids FROM entity_tags GROUP BY entity_id) t
  JOIN entities e ON e.id = t.entity_id;

CREATE INDEX "similarity_profiles_tag_ids_idx" ON "similarity_profiles" USING gin ("tag_ids");
-- When the bound leaves only candidates in the source's city launched within a year of it, their
-- profiles are the GIN index's answer intersected with this one's.
CREATE INDEX "similarity_profiles_place_idx" ON "similarity_profiles" ("hq_country", "hq_city", "launch_year");

CREATE FUNCTION "similarity_profiles_tags_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    TRUNCATE similarity_profiles;
  ELSIF TG_OP = 'INSERT' THEN
    PERFORM similarity_profiles_refresh(ARRAY(SELECT DISTINCT entity_id FROM new_rows));
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM similarity_profiles_refresh(ARRAY(SELECT DISTINCT entity_id FROM old_rows));
  ELSE
    PERFORM similarity_profiles_refresh(ARRAY(SELECT entity_id FROM old_rows UNION SELECT entity_id FROM new_rows));
  END IF;
  RETURN NULL;
END
$$;

-- An entity's row changes far more often than what its profile copies (funding totals, names...):
-- only profiles whose copied columns differ are written.
CREATE FUNCTION "similarity_profiles_entity_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE similarity_profiles p
     SET is_company = e.is_company, live = e.deleted_at IS NULL, hq_country = e.hq_country, hq_city = e.hq_city, launch_year = e.launch_year
    FROM new_rows e
   WHERE p.entity_id = e.id
     AND (p.is_company, p.live, p.hq_country, p.hq_city, p.launch_year)
         IS DISTINCT FROM (e.is_company, e.deleted_at IS NULL, e.hq_country, e.hq_city, e.launch_year);
  RETURN NULL;
END
$$;

CREATE TRIGGER "similarity_profiles_insert" AFTER INSERT ON "entity_tags" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION similarity_profiles_tags_changed();
CREATE TRIGGER "similarity_profiles_delete" AFTER DELETE ON "entity_tags" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION similarity_profiles_tags_changed();
CREATE TRIGGER "similarity_profiles_update" AFTER UPDATE ON "entity_tags" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION similarity_profiles_tags_changed();
CREATE TRIGGER "similarity_profiles_truncate" AFTER TRUNCATE ON "entity_tags"
  FOR EACH STATEMENT EXECUTE FUNCTION similarity_profiles_tags_changed();
CREATE TRIGGER "similarity_profiles_entity_update" AFTER UPDATE ON "entities" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION similarity_profiles_entity_changed();
