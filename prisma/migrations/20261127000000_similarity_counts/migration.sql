-- What similar companies are scored with (docs/similar-companies.md): a tag counts more the fewer
-- entities carry it, so each tag keeps how many active (not deleted) entities carry it, and one row
-- keeps how many active entities there are. Derived columns like locations.entity_count, recomputed
-- by every import and seed (src/data/derived.ts): counting them per request took a scan of every
-- entity carrying the source's tags, a quarter of the table at a million entities.
-- Counting reads every tag assignment once; at a million entities that may outlast the service's
-- statement timeout on a busy server, and a migration must finish: no limit for this transaction.
SET LOCAL statement_timeout = 0;

ALTER TABLE "tags" ADD COLUMN "entity_count" INTEGER NOT NULL DEFAULT 0;

UPDATE "tags" t SET "entity_count" = c.n
  FROM (SELECT et.tag_id, count(*)::int AS n FROM entity_tags et JOIN entities e ON e.id = et.entity_id
         WHERE e.deleted_at IS NULL GROUP BY et.tag_id) c
 WHERE c.tag_id = t.id;

CREATE TABLE "entity_stats" (
    "id" BOOLEAN NOT NULL DEFAULT true,
    "active_entities" INTEGER NOT NULL,
    CONSTRAINT "entity_stats_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "entity_stats_one_row" CHECK ("id")
);
INSERT INTO "entity_stats" ("id", "active_entities") SELECT true, count(*)::int FROM entities WHERE deleted_at IS NULL;
