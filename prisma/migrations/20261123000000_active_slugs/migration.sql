-- A deleted (inactive) ecosystem or team gives its slug back: slugs are unique among the active
-- records of an organisation only. Prisma's schema language cannot say "unique where active", so
-- prisma/schema.prisma declares plain indexes and these partial unique indexes enforce the rule.
DROP INDEX "ecosystems_org_id_slug_key";
CREATE UNIQUE INDEX "ecosystems_org_id_slug_active_key" ON "ecosystems"("org_id", "slug") WHERE "is_active";

DROP INDEX "teams_org_id_slug_key";
CREATE UNIQUE INDEX "teams_org_id_slug_active_key" ON "teams"("org_id", "slug") WHERE "is_active";
