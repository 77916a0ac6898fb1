-- The changes feed (docs/changes.md): every create, update and delete of the six data resources, recorded
-- by the transaction that writes it, whatever wrote it (import, seed, CLI, API), and numbered in commit order.
--
-- A change row is written by a statement-level trigger (one INSERT ... SELECT per writing statement, from its
-- transition tables). Its transaction is noted once in change_commits; a deferred constraint trigger on
-- that note runs at COMMIT and takes the next `position` from change_clock. The clock's row lock is held
-- until the commit completes and PostgreSQL makes a commit visible before it releases locks, so positions
-- become visible in order: a reader that sees position n sees every position below it. Following
-- (position, seq) therefore never skips a change that commits late, which a serial id or a timestamp would.

CREATE TABLE "change_clock" (
    "id" BOOLEAN NOT NULL DEFAULT true,
    "position" BIGINT NOT NULL,
    CONSTRAINT "change_clock_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "change_clock_one_row" CHECK ("id")
);
INSERT INTO "change_clock" ("id", "position") VALUES (true, 0);

CREATE TABLE "change_commits" (
    "xid" BIGINT NOT NULL,
    "position" BIGINT,
    "committed_at" TIMESTAMPTZ(3),
    CONSTRAINT "change_commits_pkey" PRIMARY KEY ("xid")
);
CREATE UNIQUE INDEX "change_commits_position_key" ON "change_commits"("position");

CREATE TABLE "changes" (
    "xid" BIGINT NOT NULL,
    "seq" BIGSERIAL NOT NULL,
    "resource" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "object_id" INTEGER NOT NULL,
    -- The table columns whose values changed (NULL for a created record: all of them).
    "changed_columns" TEXT[],
    CONSTRAINT "changes_pkey" PRIMARY KEY ("xid", "seq")
);
-- One change per record per transaction: a second write of the record in the same transaction merges in.
CREATE UNIQUE INDEX "changes_xid_resource_object_id_key" ON "changes"("xid", "resource", "object_id");

-- How far retention has pruned: a cursor before its last change is expired (410), not silently continued.
CREATE TABLE "change_retention" (
    "id" BOOLEAN NOT NULL DEFAULT true,
    "position" BIGINT NOT NULL,
    "seq" BIGINT NOT NULL,
    CONSTRAINT "change_retention_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "change_retention_one_row" CHECK ("id")
);
INSERT INTO "change_retention" ("id", "position", "seq") VALUES (true, 0, 0);

-- Where each of the service's own followers of the feed stands (ecosystem membership, webhook events);
-- retention never prunes a change a follower has not passed.
CREATE TABLE "change_followers" (
    "name" TEXT NOT NULL,
    "position" BIGINT NOT NULL,
    "seq" BIGINT NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "change_followers_pkey" PRIMARY KEY ("name")
);
INSERT INTO "change_followers" ("name", "position", "seq") VALUES ('ecosystem-membership', 0, 0), ('webhook-events', 0, 0);

-- The members of each active ecosystem, as last computed: the difference to a new computation is what
-- `ecosystem.entity_entered` and `ecosystem.entity_left` report.
CREATE TABLE "ecosystem_members" (
    "ecosystem_id" INTEGER NOT NULL,
    "entity_id" INTEGER NOT NULL,
    CONSTRAINT "ecosystem_members_pkey" PRIMARY KEY ("ecosystem_id", "entity_id"),
    CONSTRAINT "ecosystem_members_ecosystem_id_fkey" FOREIGN KEY ("ecosystem_id") REFERENCES "ecosystems"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- The filter each ecosystem's members were computed with: when the ecosystem's filter differs (it was
-- edited), the members are computed again and the differences reported.
CREATE TABLE "ecosystem_memberships" (
    "ecosystem_id" INTEGER NOT NULL,
    "filter" TEXT NOT NULL,
    "computed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ecosystem_memberships_pkey" PRIMARY KEY ("ecosystem_id"),
    CONSTRAINT "ecosystem_memberships_ecosystem_id_fkey" FOREIGN KEY ("ecosystem_id") REFERENCES "ecosystems"("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- Records changes of one statement, merging each into the transaction's earlier change of the same
-- record: created then updated stays created, deleted then created (a restore) is updated, otherwise
-- the later kind wins; the changed columns accumulate.
CREATE FUNCTION "note_changes"(tx bigint, rows jsonb) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  recorded bigint;
BEGIN
  INSERT INTO changes AS c (xid, resource, kind, object_id, changed_columns)
    SELECT tx, r.resource, r.kind, r.object_id, r.changed_columns
      FROM jsonb_to_recordset(rows) AS r(resource text, kind text, object_id integer, changed_columns text[])
     ORDER BY r.object_id
  ON CONFLICT (xid, resource, object_id) DO UPDATE SET
    kind = CASE WHEN c.kind = 'created' AND EXCLUDED.kind = 'updated' THEN 'created'
                WHEN c.kind = 'deleted' AND EXCLUDED.kind = 'created' THEN 'updated'
                ELSE EXCLUDED.kind END,
    changed_columns = CASE WHEN c.kind = 'created' AND EXCLUDED.kind = 'updated' THEN NULL
                           ELSE ARRAY(SELECT DISTINCT x FROM unnest(coalesce(c.changed_columns, '{}') || coalesce(EXCLUDED.changed_columns, '{}')) x ORDER BY x) END;
  GET DIAGNOSTICS recorded = ROW_COUNT;
  IF recorded > 0 THEN
    INSERT INTO change_commits (xid) VALUES (tx) ON CONFLICT DO NOTHING;
  END IF;
END $$;

-- A record table's trigger. TG_ARGV[0]: the resource; TG_ARGV[1]: columns its record does not show (a
-- change of only those is no change a client can see); TG_ARGV[2]: columns that change only along with
-- others (updated_at), reported but never a change by themselves. A soft delete (deleted_at set) is
-- `deleted`, its undoing `created`.
CREATE FUNCTION "record_changes"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  resource text := TG_ARGV[0];
  hidden text[] := TG_ARGV[1]::text[];
  incidental text[] := coalesce(TG_ARGV[2], '{}')::text[];
  tx bigint := pg_current_xact_id()::text::bigint;
  noted jsonb;
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT jsonb_agg(jsonb_build_object('resource', resource, 'kind', 'created', 'object_id', r.id)) INTO noted FROM new_rows r;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT jsonb_agg(jsonb_build_object('resource', resource, 'kind', 'deleted', 'object_id', r.id)) INTO noted FROM old_rows r;
  ELSE
    SELECT jsonb_agg(jsonb_build_object(
             'resource', resource,
             'kind', CASE WHEN o.j ->> 'deleted_at' IS NULL AND n.j ->> 'deleted_at' IS NOT NULL THEN 'deleted'
                          WHEN o.j ->> 'deleted_at' IS NOT NULL AND n.j ->> 'deleted_at' IS NULL THEN 'created'
                          ELSE 'updated' END,
             'object_id', n.id,
             'changed_columns', d.columns)) INTO noted
      FROM (SELECT r.id, to_jsonb(r) AS j FROM new_rows r) n
      JOIN (SELECT r.id, to_jsonb(r) AS j FROM old_rows r) o ON o.id = n.id
      CROSS JOIN LATERAL (
        SELECT array_agg(e.key ORDER BY e.key) AS columns,
               bool_or(NOT (e.key = ANY (incidental))) AS visible
          FROM jsonb_each(n.j) e
         WHERE NOT (e.key = ANY (hidden)) AND e.value IS DISTINCT FROM o.j -> e.key
      ) d
     WHERE d.visible;
  END IF;
  IF noted IS NOT NULL THEN PERFORM note_changes(tx, noted); END IF;
  RETURN NULL;
END $$;

-- A list table's trigger (a record's tags, a round's investors): a change of the list is an update of
-- the record that shows it. TG_ARGV: the resource, the column naming the record, the record's field,
-- and optionally a table the record must be in (an entity's tags are also its investor profile's).
CREATE FUNCTION "record_list_changes"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  resource text := TG_ARGV[0];
  parent text := TG_ARGV[1];
  field text := TG_ARGV[2];
  required_in text := TG_ARGV[3];
  tx bigint := pg_current_xact_id()::text::bigint;
  noted jsonb;
  touched integer[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    EXECUTE format('SELECT array_agg(DISTINCT (to_jsonb(r) ->> %L)::int) FROM new_rows r', parent) INTO touched;
  ELSIF TG_OP = 'DELETE' THEN
    EXECUTE format('SELECT array_agg(DISTINCT (to_jsonb(r) ->> %L)::int) FROM old_rows r', parent) INTO touched;
  ELSE
    EXECUTE format('SELECT array_agg(DISTINCT p) FROM (SELECT (to_jsonb(r) ->> %1$L)::int AS p FROM new_rows r
                    UNION SELECT (to_jsonb(r) ->> %1$L)::int FROM old_rows r) t', parent) INTO touched;
  END IF;
  IF touched IS NULL THEN RETURN NULL; END IF;
  IF required_in IS NOT NULL THEN
    EXECUTE format('SELECT array_agg(t.id) FROM %I t WHERE t.id = ANY ($1)', required_in) INTO touched USING touched;
    IF touched IS NULL THEN RETURN NULL; END IF;
  END IF;
  SELECT jsonb_agg(jsonb_build_object('resource', resource, 'kind', 'updated', 'object_id', p, 'changed_columns', ARRAY[field]))
    INTO noted FROM unnest(touched) p;
  PERFORM note_changes(tx, noted);
  RETURN NULL;
END $$;

-- An investor's descriptive fields are its entity's: an entity update that changes one of them, or
-- (soft-)deletes the entity, changes the investor too. TG_ARGV[0]: those entity columns.
CREATE FUNCTION "record_investor_changes_of_entities"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  shown text[] := TG_ARGV[0]::text[];
  tx bigint := pg_current_xact_id()::text::bigint;
  noted jsonb;
BEGIN
  SELECT jsonb_agg(jsonb_build_object(
           'resource', 'investor',
           'kind', CASE WHEN o.j ->> 'deleted_at' IS NULL AND n.j ->> 'deleted_at' IS NOT NULL THEN 'deleted'
                        WHEN o.j ->> 'deleted_at' IS NOT NULL AND n.j ->> 'deleted_at' IS NULL THEN 'created'
                        ELSE 'updated' END,
           'object_id', n.id,
           'changed_columns', d.columns)) INTO noted
    FROM (SELECT r.id, to_jsonb(r) AS j FROM new_rows r) n
    JOIN (SELECT r.id, to_jsonb(r) AS j FROM old_rows r) o ON o.id = n.id
    JOIN investors i ON i.id = n.id
    CROSS JOIN LATERAL (
      SELECT array_agg(e.key ORDER BY e.key) AS columns FROM jsonb_each(n.j) e
       WHERE e.key = ANY (shown) AND e.value IS DISTINCT FROM o.j -> e.key
    ) d
   WHERE d.columns IS NOT NULL;
  IF noted IS NOT NULL THEN PERFORM note_changes(tx, noted); END IF;
  RETURN NULL;
END $$;

-- At COMMIT: the transaction's place in commit order (see the top of this file).
CREATE FUNCTION "number_change_commit"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH tick AS (UPDATE change_clock SET position = position + 1 RETURNING position)
  UPDATE change_commits SET position = tick.position, committed_at = clock_timestamp()
    FROM tick WHERE change_commits.xid = NEW.xid;
  RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER "change_commits_number" AFTER INSERT ON "change_commits"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION number_change_commit();

-- The record tables. The hidden columns are checked against the records' fields by a test
-- (test/integration/changes/recording.test.ts), so a new column cannot go unreported unnoticed.
CREATE TRIGGER "entities_changes_insert" AFTER INSERT ON "entities" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('entity', '{slug,country_location_id,city_location_id}', '{updated_at}');
CREATE TRIGGER "entities_changes_update" AFTER UPDATE ON "entities" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('entity', '{slug,country_location_id,city_location_id}', '{updated_at}');
CREATE TRIGGER "entities_changes_delete" AFTER DELETE ON "entities" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('entity', '{}');
CREATE TRIGGER "entities_investor_changes_update" AFTER UPDATE ON "entities" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_investor_changes_of_entities('{uuid,name,type,image,platform_url,hq_country,hq_city,launch_year,deleted_at}');

CREATE TRIGGER "investors_changes_insert" AFTER INSERT ON "investors" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('investor', '{}');
CREATE TRIGGER "investors_changes_update" AFTER UPDATE ON "investors" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('investor', '{}');
CREATE TRIGGER "investors_changes_delete" AFTER DELETE ON "investors" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('investor', '{}');

CREATE TRIGGER "founders_changes_insert" AFTER INSERT ON "founders" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('founder', '{slug,location_country_id,created_at,updated_at}');
CREATE TRIGGER "founders_changes_update" AFTER UPDATE ON "founders" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('founder', '{slug,location_country_id,created_at,updated_at}');
CREATE TRIGGER "founders_changes_delete" AFTER DELETE ON "founders" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('founder', '{}');

CREATE TRIGGER "funding_rounds_changes_insert" AFTER INSERT ON "funding_rounds" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('transaction', '{slug,created_at}');
CREATE TRIGGER "funding_rounds_changes_update" AFTER UPDATE ON "funding_rounds" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('transaction', '{slug,created_at}');
CREATE TRIGGER "funding_rounds_changes_delete" AFTER DELETE ON "funding_rounds" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('transaction', '{}');

CREATE TRIGGER "valuations_changes_insert" AFTER INSERT ON "valuations" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('valuation', '{slug}');
CREATE TRIGGER "valuations_changes_update" AFTER UPDATE ON "valuations" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('valuation', '{slug}');
CREATE TRIGGER "valuations_changes_delete" AFTER DELETE ON "valuations" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('valuation', '{}');

CREATE TRIGGER "news_articles_changes_insert" AFTER INSERT ON "news_articles" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('news', '{}');
CREATE TRIGGER "news_articles_changes_update" AFTER UPDATE ON "news_articles" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('news', '{}');
CREATE TRIGGER "news_articles_changes_delete" AFTER DELETE ON "news_articles" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('news', '{}');

-- The list tables.
CREATE TRIGGER "entity_tags_changes_insert" AFTER INSERT ON "entity_tags" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('entity', 'entity_id', 'tags');
CREATE TRIGGER "entity_tags_changes_delete" AFTER DELETE ON "entity_tags" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('entity', 'entity_id', 'tags');
CREATE TRIGGER "entity_tags_investor_changes_insert" AFTER INSERT ON "entity_tags" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('investor', 'entity_id', 'tags', 'investors');
CREATE TRIGGER "entity_tags_investor_changes_delete" AFTER DELETE ON "entity_tags" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('investor', 'entity_id', 'tags', 'investors');
CREATE TRIGGER "founder_tags_changes_insert" AFTER INSERT ON "founder_tags" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('founder', 'founder_id', 'tags');
CREATE TRIGGER "founder_tags_changes_delete" AFTER DELETE ON "founder_tags" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('founder', 'founder_id', 'tags');
CREATE TRIGGER "founder_backgrounds_changes_insert" AFTER INSERT ON "founder_backgrounds" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('founder', 'founder_id', 'backgrounds');
CREATE TRIGGER "founder_backgrounds_changes_delete" AFTER DELETE ON "founder_backgrounds" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('founder', 'founder_id', 'backgrounds');
CREATE TRIGGER "founder_education_changes_insert" AFTER INSERT ON "founder_education" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('founder', 'founder_id', 'education');
CREATE TRIGGER "founder_education_changes_update" AFTER UPDATE ON "founder_education" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('founder', 'founder_id', 'education');
CREATE TRIGGER "founder_education_changes_delete" AFTER DELETE ON "founder_education" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('founder', 'founder_id', 'education');
CREATE TRIGGER "founder_companies_changes_insert" AFTER INSERT ON "founder_companies" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('founder', 'founder_id', 'companies');
CREATE TRIGGER "founder_companies_changes_update" AFTER UPDATE ON "founder_companies" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('founder', 'founder_id', 'companies');
CREATE TRIGGER "founder_companies_changes_delete" AFTER DELETE ON "founder_companies" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('founder', 'founder_id', 'companies');
CREATE TRIGGER "round_investors_changes_insert" AFTER INSERT ON "round_investors" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('transaction', 'round_id', 'investors');
CREATE TRIGGER "round_investors_changes_update" AFTER UPDATE ON "round_investors" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('transaction', 'round_id', 'investors');
CREATE TRIGGER "round_investors_changes_delete" AFTER DELETE ON "round_investors" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('transaction', 'round_id', 'investors');
CREATE TRIGGER "news_entities_changes_insert" AFTER INSERT ON "news_entities" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('news', 'news_id', 'entities');
CREATE TRIGGER "news_entities_changes_update" AFTER UPDATE ON "news_entities" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('news', 'news_id', 'entities');
CREATE TRIGGER "news_entities_changes_delete" AFTER DELETE ON "news_entities" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_list_changes('news', 'news_id', 'entities');
