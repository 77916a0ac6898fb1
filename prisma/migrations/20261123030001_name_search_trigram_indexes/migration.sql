-- Case-insensitive name search (`name[contains]:airbnb`, `name[starts_with]:air`, `title[contains]:...`)
-- is ILIKE, which a btree cannot serve; trigram GIN indexes can, at any table size.
-- The extension lives in one schema of the database (public by default); the indexes name its
-- operator class by that schema, so schemas whose search_path lacks it (tests give each file its
-- own schema) can use it too. pg_trgm is a trusted extension: a database owner may create it.
CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public;

DO $$
DECLARE
  trgm_schema text := (SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
                        WHERE e.extname = 'pg_trgm');
BEGIN
  EXECUTE format('CREATE INDEX "entities_name_trgm_idx" ON "entities" USING gin ("name" %I.gin_trgm_ops)', trgm_schema);
  EXECUTE format('CREATE INDEX "founders_name_trgm_idx" ON "founders" USING gin ("name" %I.gin_trgm_ops)', trgm_schema);
  EXECUTE format('CREATE INDEX "news_articles_title_trgm_idx" ON "news_articles" USING gin ("title" %I.gin_trgm_ops)', trgm_schema);
END
$$;
