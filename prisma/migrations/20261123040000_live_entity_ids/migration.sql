-- An offset page first reads the ids it skips (src/schema/list-query.ts). In the default order (id)
-- over live entities, this partial index lets PostgreSQL skip by reading index entries alone (an
-- index-only scan, no heap visit to check deleted_at): a deep offset costs the entries it skips.
-- Not in prisma/schema.prisma: Prisma's schema language has no partial indexes.
CREATE INDEX "entities_live_id_idx" ON "entities"("id") WHERE "deleted_at" IS NULL;
