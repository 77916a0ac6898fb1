-- Identifiers a data team joins on (docs/finding-companies.md, "Identifiers"): an entity's website, and
-- its ids in other systems. `website_domain` is derived by the writers (importer, seeder) with the one
-- normalisation of src/identifiers/domain.ts (IDN to punycode, which SQL has no function for), so a
-- lookup by domain is an index probe.
ALTER TABLE "entities"
  ADD COLUMN "website" TEXT NOT NULL DEFAULT '',
  ADD COLUMN "website_domain" TEXT NOT NULL DEFAULT '';

-- Domain lookups (`website[eq]:`, matching) and the order of `sort=website`.
CREATE INDEX "entities_website_domain_id_idx" ON "entities" ("website_domain", "id");

CREATE TABLE "entity_external_ids" (
    "entity_id" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "external_id" TEXT NOT NULL,
    CONSTRAINT "entity_external_ids_pkey" PRIMARY KEY ("entity_id", "source", "external_id"),
    CONSTRAINT "entity_external_ids_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "entities"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "entity_external_ids_source_external_id_idx" ON "entity_external_ids" ("source", "external_id");

-- The changes feed: the derived column is not a field of the record, so a change of only it is no
-- change a client sees; a change of the external ids is an update of the entity's `external_ids`.
DROP TRIGGER "entities_changes_insert" ON "entities";
DROP TRIGGER "entities_changes_update" ON "entities";
CREATE TRIGGER "entities_changes_insert" AFTER INSERT ON "entities" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'entity', '{slug,country_location_id,city_location_id,website_domain}', '{updated_at}');
CREATE TRIGGER "entities_changes_update" AFTER UPDATE ON "entities" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('record', 'entity', '{slug,country_location_id,city_location_id,website_domain}', '{updated_at}');
CREATE TRIGGER "entity_external_ids_changes_insert" AFTER INSERT ON "entity_external_ids" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'entity', 'entity_id', 'external_ids');
CREATE TRIGGER "entity_external_ids_changes_delete" AFTER DELETE ON "entity_external_ids" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION record_changes('list', 'entity', 'entity_id', 'external_ids');
