-- The changes feed (docs/changes.md): every create, update and delete of the six data resources, recorded
-- by the transaction that writes it, whatever wrote it (import, seed, CLI, API), and numbered in commit order.
--
-- A change row is written by a statement-level trigger (one INSERT ... SELECT per writing statement, from its
-- transition tables). Its transaction is noted once in change_commits; a deferred constraint trigger on
-- that note runs at COMMIT and takes the next `position` from change_clock. The clock's row lock is held
-- until the commit completes and PostgreSQL makes a commit visible before it releases locks, so positions
-- become visible in order: a reader that sees position n sees every position below it. Following
-- (position, resource, object_id) therefore never skips a change that commits late, which a serial id or
-- a timestamp would. Within a commit, changes are ordered by resource and record id: they all happened
-- at once, and that order is the primary key's, so no sequence is kept.

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
    -- Byte order, as cursors compare it.
    "resource" TEXT COLLATE "C" NOT NULL,
    "kind" TEXT NOT NULL,
    "object_id" INTEGER NOT NULL,
    -- The table columns whose values changed (NULL for a created record: all of them).
    "changed_columns" TEXT[],
    -- One change per record per transaction: a second write of the record in the same transaction merges in.
    CONSTRAINT "changes_pkey" PRIMARY KEY ("xid", "resource", "object_id")
);
-- Whether a transaction holds changes a later write must merge into (see the trigger functions): few
-- rows, as most changes of an import are creations.
CREATE INDEX "changes_mergeable_idx" ON "changes"("xid", "resource") WHERE "kind" <> 'created';

-- How far retention has pruned (every commit up to this position): a cursor before its end is expired
-- (410), not silently continued.
CREATE TABLE "change_retention" (
    "id" BOOLEAN NOT NULL DEFAULT true,
    "position" BIGINT NOT NULL,
    CONSTRAINT "change_retention_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "change_retention_one_row" CHECK ("id")
);
INSERT INTO "change_retention" ("id", "position") VALUES (true, 0);

-- Where each of the service's own followers of the feed stands (ecosystem membership, webhook events);
-- retention never prunes a change a follower has not passed.
CREATE TABLE "change_followers" (
    "name" TEXT NOT NULL,
    "position" BIGINT NOT NULL,
    "resource" TEXT COLLATE "C" NOT NULL,
    "object_id" INTEGER NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "change_followers_pkey" PRIMARY KEY ("name")
);
INSERT INTO "change_followers" ("name", "position", "resource", "object_id") VALUES ('ecosystem-membership', 0, '', 0), ('webhook-events', 0, '', 0);

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

-- One change per record per transaction: a second write of a record merges into its first change.
-- Created then updated stays created, created or updated then deleted is deleted, deleted then created
-- (a restore) is updated, deleted then updated stays deleted; the changed columns accumulate.
CREATE FUNCTION "merged_change_kind"(earlier text, later text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN earlier = 'created' AND later = 'updated' THEN 'created'
              WHEN earlier = 'deleted' AND later = 'created' THEN 'updated'
              WHEN earlier = 'deleted' AND later = 'updated' THEN 'deleted'
              ELSE later END
$$;
CREATE FUNCTION "merged_change_columns"(earlier_kind text, later_kind text, earlier text[], later text[]) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN merged_change_kind(earlier_kind, later_kind) = 'created' THEN NULL
              ELSE ARRAY(SELECT DISTINCT x FROM unnest(coalesce(earlier, '{}') || coalesce(later, '{}')) x ORDER BY x) END
$$;

-- How a trigger notes one statement's changes (`noted`: the records it changed, as `SELECT kind, id,
-- columns` over its transition tables, which only the trigger function itself can read): an insert
-- that skips records the transaction already changed (a primary-key probe, no lock, no write: the
-- common case of a record created and then filled in, or tagged, by the same import). Only when the
-- transaction holds an earlier change that is not `created` (those stay as they are) are the noted
-- records merged into their earlier changes first, one primary-key update each.
CREATE FUNCTION "changes_insert_statement"(noted text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT format(
    'INSERT INTO changes (xid, resource, kind, object_id, changed_columns)
       SELECT $1, $2, n.kind, n.id, n.columns FROM (%s) n
     ON CONFLICT (xid, resource, object_id) DO NOTHING', noted)
$$;
-- The transaction's note in change_commits, numbered at COMMIT (below).
CREATE FUNCTION "note_change_commit"(tx bigint) RETURNS void LANGUAGE sql AS $$
  INSERT INTO change_commits (xid) VALUES (tx) ON CONFLICT DO NOTHING
$$;

-- What one writing statement changed, as `SELECT kind, id, columns` over its transition tables, by the
-- form of its trigger (TG_ARGV[0]):
-- - `record` (a record table; a, b: the columns its record does not show, a change of only those being
--   no change a client can see; the columns reported only along with others, like updated_at). A soft
--   delete (deleted_at set) is `deleted`, its undoing `created`; TRUNCATE deletes every row. Only
--   updates compare rows (as jsonb, so one function serves every table).
-- - `list` (a list table: a record's tags, a round's investors; a: the column naming the record, b: the
--   record's field, c: a table the record must be in, as an entity's tags are also its investor
--   profile's): a change of the list is an update of the record that shows it.
-- - `investor` (entities; a: the entity columns an investor shows): an investor's descriptive fields
--   are its entity's, so an entity update that changes one of them, or (soft-)deletes the entity,
--   changes the investor too.
CREATE FUNCTION "changes_noted"(op text, tbl text, form text, a text, b text, c text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN form = 'list' THEN format(
      'SELECT ''updated'' AS kind, t.id, ARRAY[%L]::text[] AS columns FROM (%s) t %s',
      b,
      CASE op WHEN 'INSERT' THEN format('SELECT DISTINCT %I AS id FROM new_rows', a)
              WHEN 'DELETE' THEN format('SELECT DISTINCT %I AS id FROM old_rows', a)
              ELSE format('SELECT %1$I AS id FROM new_rows UNION SELECT %1$I FROM old_rows', a) END,
      CASE WHEN c IS NULL THEN '' ELSE format('WHERE EXISTS (SELECT 1 FROM %I x WHERE x.id = t.id)', c) END)
    WHEN op = 'INSERT' THEN 'SELECT ''created'' AS kind, r.id, NULL::text[] AS columns FROM new_rows r'
    WHEN op = 'DELETE' THEN 'SELECT ''deleted'' AS kind, r.id, NULL::text[] AS columns FROM old_rows r'
    WHEN op = 'TRUNCATE' THEN format('SELECT ''deleted'' AS kind, r.id, NULL::text[] AS columns FROM %I r', tbl)
    ELSE format(
      'SELECT CASE WHEN o.j ->> ''deleted_at'' IS NULL AND n.j ->> ''deleted_at'' IS NOT NULL THEN ''deleted''
                   WHEN o.j ->> ''deleted_at'' IS NOT NULL AND n.j ->> ''deleted_at'' IS NULL THEN ''created''
                   ELSE ''updated'' END AS kind,
              n.id, d.columns
         FROM (SELECT r.id, to_jsonb(r) AS j FROM new_rows r) n
         JOIN (SELECT r.id, to_jsonb(r) AS j FROM old_rows r) o ON o.id = n.id
         %s
        CROSS JOIN LATERAL (
          SELECT array_agg(e.key ORDER BY e.key) AS columns, bool_or(NOT (e.key = ANY (%L::text[]))) AS visible
            FROM jsonb_each(n.j) e
           WHERE %s AND e.value IS DISTINCT FROM o.j -> e.key
        ) d
        WHERE d.visible',
      CASE WHEN form = 'investor' THEN 'JOIN investors i ON i.id = n.id' ELSE '' END,
      coalesce(CASE WHEN form = 'record' THEN b END, '{}'),
      CASE WHEN form = 'investor' THEN format('e.key = ANY (%L::text[])', a) ELSE format('NOT (e.key = ANY (%L::text[]))', a) END)
  END
$$;

-- Every recording trigger: TG_ARGV[0] the form (above), TG_ARGV[1] the resource, then the form's a, b, c.
CREATE FUNCTION "record_changes"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  tx bigint := pg_current_xact_id()::text::bigint;
  of_resource text := TG_ARGV[1];
  noted text := changes_noted(TG_OP, TG_TABLE_NAME, TG_ARGV[0], TG_ARGV[2], TG_ARGV[3], TG_ARGV[4]);
  earlier record;
  merged bigint := 0;
  step bigint;
  inserted bigint;
BEGIN
  IF EXISTS (SELECT 1 FROM changes WHERE xid = tx AND resource = of_resource AND kind <> 'created') THEN
    FOR earlier IN EXECUTE format('SELECT n.kind, n.id, n.columns FROM (%s) n', noted) LOOP
      UPDATE changes c SET kind = merged_change_kind(c.kind, earlier.kind),
                           changed_columns = merged_change_columns(c.kind, earlier.kind, c.changed_columns, earlier.columns)
       WHERE c.xid = tx AND c.resource = of_resource AND c.object_id = earlier.id AND c.kind <> 'created';
      GET DIAGNOSTICS step = ROW_COUNT;
      merged := merged + step;
    END LOOP;
  END IF;
  EXECUTE changes_insert_statement(noted) USING tx, of_resource;
  GET DIAGNOSTICS inserted = ROW_COUNT;
  IF merged + inserted > 0 THEN PERFORM note_change_commit(tx); END IF;
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
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'entity', '{slug,country_location_id,city_location_id}', '{updated_at}');
CREATE TRIGGER "entities_changes_update" AFTER UPDATE ON "entities" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'entity', '{slug,country_location_id,city_location_id}', '{updated_at}');
CREATE TRIGGER "entities_changes_delete" AFTER DELETE ON "entities" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'entity', '{}');
CREATE TRIGGER "entities_investor_changes_update" AFTER UPDATE ON "entities" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('investor', 'investor', '{uuid,name,type,image,platform_url,hq_country,hq_city,launch_year,deleted_at}');

CREATE TRIGGER "investors_changes_insert" AFTER INSERT ON "investors" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'investor', '{}');
CREATE TRIGGER "investors_changes_update" AFTER UPDATE ON "investors" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'investor', '{}');
CREATE TRIGGER "investors_changes_delete" AFTER DELETE ON "investors" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'investor', '{}');

CREATE TRIGGER "founders_changes_insert" AFTER INSERT ON "founders" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'founder', '{slug,location_country_id,created_at,updated_at}');
CREATE TRIGGER "founders_changes_update" AFTER UPDATE ON "founders" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'founder', '{slug,location_country_id,created_at,updated_at}');
CREATE TRIGGER "founders_changes_delete" AFTER DELETE ON "founders" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'founder', '{}');

CREATE TRIGGER "funding_rounds_changes_insert" AFTER INSERT ON "funding_rounds" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'transaction', '{slug,created_at}');
CREATE TRIGGER "funding_rounds_changes_update" AFTER UPDATE ON "funding_rounds" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'transaction', '{slug,created_at}');
CREATE TRIGGER "funding_rounds_changes_delete" AFTER DELETE ON "funding_rounds" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'transaction', '{}');

CREATE TRIGGER "valuations_changes_insert" AFTER INSERT ON "valuations" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'valuation', '{slug}');
CREATE TRIGGER "valuations_changes_update" AFTER UPDATE ON "valuations" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'valuation', '{slug}');
CREATE TRIGGER "valuations_changes_delete" AFTER DELETE ON "valuations" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'valuation', '{}');

CREATE TRIGGER "news_articles_changes_insert" AFTER INSERT ON "news_articles" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'news', '{}');
CREATE TRIGGER "news_articles_changes_update" AFTER UPDATE ON "news_articles" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'news', '{}');
CREATE TRIGGER "news_articles_changes_delete" AFTER DELETE ON "news_articles" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'news', '{}');

CREATE TRIGGER "entities_changes_truncate" BEFORE TRUNCATE ON "entities"
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'entity');
CREATE TRIGGER "investors_changes_truncate" BEFORE TRUNCATE ON "investors"
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'investor');
CREATE TRIGGER "founders_changes_truncate" BEFORE TRUNCATE ON "founders"
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'founder');
CREATE TRIGGER "funding_rounds_changes_truncate" BEFORE TRUNCATE ON "funding_rounds"
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'transaction');
CREATE TRIGGER "valuations_changes_truncate" BEFORE TRUNCATE ON "valuations"
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'valuation');
CREATE TRIGGER "news_articles_changes_truncate" BEFORE TRUNCATE ON "news_articles"
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'news');

-- The list tables.
CREATE TRIGGER "entity_tags_changes_insert" AFTER INSERT ON "entity_tags" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'entity', 'entity_id', 'tags');
CREATE TRIGGER "entity_tags_changes_delete" AFTER DELETE ON "entity_tags" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'entity', 'entity_id', 'tags');
CREATE TRIGGER "entity_tags_investor_changes_insert" AFTER INSERT ON "entity_tags" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'investor', 'entity_id', 'tags', 'investors');
CREATE TRIGGER "entity_tags_investor_changes_delete" AFTER DELETE ON "entity_tags" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'investor', 'entity_id', 'tags', 'investors');
CREATE TRIGGER "founder_tags_changes_insert" AFTER INSERT ON "founder_tags" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'founder', 'founder_id', 'tags');
CREATE TRIGGER "founder_tags_changes_delete" AFTER DELETE ON "founder_tags" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'founder', 'founder_id', 'tags');
CREATE TRIGGER "founder_backgrounds_changes_insert" AFTER INSERT ON "founder_backgrounds" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'founder', 'founder_id', 'backgrounds');
CREATE TRIGGER "founder_backgrounds_changes_delete" AFTER DELETE ON "founder_backgrounds" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'founder', 'founder_id', 'backgrounds');
CREATE TRIGGER "founder_education_changes_insert" AFTER INSERT ON "founder_education" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'founder', 'founder_id', 'education');
CREATE TRIGGER "founder_education_changes_update" AFTER UPDATE ON "founder_education" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'founder', 'founder_id', 'education');
CREATE TRIGGER "founder_education_changes_delete" AFTER DELETE ON "founder_education" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'founder', 'founder_id', 'education');
CREATE TRIGGER "founder_companies_changes_insert" AFTER INSERT ON "founder_companies" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'founder', 'founder_id', 'companies');
CREATE TRIGGER "founder_companies_changes_update" AFTER UPDATE ON "founder_companies" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'founder', 'founder_id', 'companies');
CREATE TRIGGER "founder_companies_changes_delete" AFTER DELETE ON "founder_companies" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'founder', 'founder_id', 'companies');
CREATE TRIGGER "round_investors_changes_insert" AFTER INSERT ON "round_investors" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'transaction', 'round_id', 'investors');
CREATE TRIGGER "round_investors_changes_update" AFTER UPDATE ON "round_investors" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'transaction', 'round_id', 'investors');
CREATE TRIGGER "round_investors_changes_delete" AFTER DELETE ON "round_investors" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'transaction', 'round_id', 'investors');
CREATE TRIGGER "news_entities_changes_insert" AFTER INSERT ON "news_entities" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'news', 'news_id', 'entities');
CREATE TRIGGER "news_entities_changes_update" AFTER UPDATE ON "news_entities" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'news', 'news_id', 'entities');
CREATE TRIGGER "news_entities_changes_delete" AFTER DELETE ON "news_entities" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'news', 'news_id', 'entities');
