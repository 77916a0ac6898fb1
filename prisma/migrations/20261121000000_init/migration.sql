-- Initial schema. Hand-written in Prisma's layout and naming (see DESIGN.md: no schema engine offline);
-- test/integration/migrations.test.ts checks it against prisma/schema.prisma.

-- ───────────── reference data ─────────────

CREATE TABLE "locations" (
    "id" SERIAL NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "country_code" TEXT,
    "parent_id" INTEGER,
    CONSTRAINT "locations_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "locations_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "locations"("id") ON DELETE SET NULL ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "locations_kind_name_parent_id_key" ON "locations"("kind", "name", "parent_id");
CREATE INDEX "locations_name_idx" ON "locations"("name");

CREATE TABLE "tags" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    CONSTRAINT "tags_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "tags_type_name_key" ON "tags"("type", "name");

CREATE TABLE "entities" (
    "id" SERIAL NOT NULL,
    "uuid" UUID NOT NULL,
    "slug" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "is_company" BOOLEAN NOT NULL DEFAULT false,
    "is_investor" BOOLEAN NOT NULL DEFAULT false,
    "is_university" BOOLEAN NOT NULL DEFAULT false,
    "is_crowdfunding" BOOLEAN NOT NULL DEFAULT false,
    "is_government" BOOLEAN NOT NULL DEFAULT false,
    "is_non_profit" BOOLEAN NOT NULL DEFAULT false,
    "is_founder" BOOLEAN NOT NULL DEFAULT false,
    "name" TEXT NOT NULL,
    "tagline" TEXT NOT NULL DEFAULT '',
    "image" TEXT NOT NULL DEFAULT '',
    "platform_url" TEXT NOT NULL DEFAULT '',
    "launch_year" INTEGER,
    "hq_country" TEXT NOT NULL DEFAULT '',
    "hq_city" TEXT NOT NULL DEFAULT '',
    "country_location_id" INTEGER,
    "city_location_id" INTEGER,
    "lat" DOUBLE PRECISION,
    "lon" DOUBLE PRECISION,
    "total_funding_usd" BIGINT NOT NULL DEFAULT 0,
    "is_unicorn" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "deleted_at" TIMESTAMPTZ(3),
    CONSTRAINT "entities_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "entities_country_location_id_fkey" FOREIGN KEY ("country_location_id") REFERENCES "locations"("id") ON DELETE SET NULL ON UPDATE CASCADE,
    CONSTRAINT "entities_city_location_id_fkey" FOREIGN KEY ("city_location_id") REFERENCES "locations"("id") ON DELETE SET NULL ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "entities_uuid_key" ON "entities"("uuid");
CREATE UNIQUE INDEX "entities_slug_key" ON "entities"("slug");
CREATE INDEX "entities_launch_year_id_idx" ON "entities"("launch_year", "id");
CREATE INDEX "entities_hq_country_id_idx" ON "entities"("hq_country", "id");
CREATE INDEX "entities_hq_city_id_idx" ON "entities"("hq_city", "id");
CREATE INDEX "entities_country_location_id_idx" ON "entities"("country_location_id");
CREATE INDEX "entities_city_location_id_idx" ON "entities"("city_location_id");
CREATE INDEX "entities_type_id_idx" ON "entities"("type", "id");
CREATE INDEX "entities_name_id_idx" ON "entities"("name", "id");
CREATE INDEX "entities_total_funding_usd_id_idx" ON "entities"("total_funding_usd", "id");
CREATE INDEX "entities_created_at_id_idx" ON "entities"("created_at", "id");
CREATE INDEX "entities_updated_at_id_idx" ON "entities"("updated_at", "id");
CREATE INDEX "entities_deleted_at_idx" ON "entities"("deleted_at");

CREATE TABLE "entity_tags" (
    "entity_id" INTEGER NOT NULL,
    "tag_id" INTEGER NOT NULL,
    CONSTRAINT "entity_tags_pkey" PRIMARY KEY ("entity_id", "tag_id"),
    CONSTRAINT "entity_tags_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "entities"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "entity_tags_tag_id_fkey" FOREIGN KEY ("tag_id") REFERENCES "tags"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "entity_tags_tag_id_entity_id_idx" ON "entity_tags"("tag_id", "entity_id");

CREATE TABLE "founders" (
    "id" SERIAL NOT NULL,
    "uuid" UUID NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "tagline" TEXT NOT NULL DEFAULT '',
    "image" TEXT NOT NULL DEFAULT '',
    "platform_url" TEXT NOT NULL DEFAULT '',
    "gender" TEXT NOT NULL DEFAULT '',
    "is_serial_founder" BOOLEAN NOT NULL DEFAULT false,
    "is_super_founder" BOOLEAN NOT NULL DEFAULT false,
    "is_promising_founder" BOOLEAN NOT NULL DEFAULT false,
    "is_strong_founder" BOOLEAN NOT NULL DEFAULT false,
    "launch_year" INTEGER,
    "hq_country" TEXT NOT NULL DEFAULT '',
    "hq_city" TEXT NOT NULL DEFAULT '',
    "location_country_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "founders_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "founders_location_country_id_fkey" FOREIGN KEY ("location_country_id") REFERENCES "locations"("id") ON DELETE SET NULL ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "founders_uuid_key" ON "founders"("uuid");
CREATE UNIQUE INDEX "founders_slug_key" ON "founders"("slug");
CREATE INDEX "founders_name_id_idx" ON "founders"("name", "id");
CREATE INDEX "founders_launch_year_id_idx" ON "founders"("launch_year", "id");
CREATE INDEX "founders_hq_country_id_idx" ON "founders"("hq_country", "id");
CREATE INDEX "founders_location_country_id_idx" ON "founders"("location_country_id");

CREATE TABLE "founder_tags" (
    "founder_id" INTEGER NOT NULL,
    "tag_id" INTEGER NOT NULL,
    CONSTRAINT "founder_tags_pkey" PRIMARY KEY ("founder_id", "tag_id"),
    CONSTRAINT "founder_tags_founder_id_fkey" FOREIGN KEY ("founder_id") REFERENCES "founders"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "founder_tags_tag_id_fkey" FOREIGN KEY ("tag_id") REFERENCES "tags"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "founder_tags_tag_id_founder_id_idx" ON "founder_tags"("tag_id", "founder_id");

CREATE TABLE "founder_companies" (
    "id" SERIAL NOT NULL,
    "founder_id" INTEGER NOT NULL,
    "entity_id" INTEGER NOT NULL,
    "is_founder" BOOLEAN NOT NULL DEFAULT true,
    "is_past" BOOLEAN NOT NULL DEFAULT false,
    "raw_title" TEXT NOT NULL DEFAULT '',
    "year_start" INTEGER,
    "year_end" INTEGER,
    CONSTRAINT "founder_companies_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "founder_companies_founder_id_fkey" FOREIGN KEY ("founder_id") REFERENCES "founders"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "founder_companies_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "entities"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "founder_companies_founder_id_entity_id_key" ON "founder_companies"("founder_id", "entity_id");
CREATE INDEX "founder_companies_entity_id_founder_id_idx" ON "founder_companies"("entity_id", "founder_id");

CREATE TABLE "founder_education" (
    "id" SERIAL NOT NULL,
    "founder_id" INTEGER NOT NULL,
    "university_id" INTEGER NOT NULL,
    "degree" TEXT NOT NULL DEFAULT '',
    "year_start" INTEGER,
    "year_end" INTEGER,
    "majors" TEXT[] DEFAULT ARRAY[]::TEXT[],
    CONSTRAINT "founder_education_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "founder_education_founder_id_fkey" FOREIGN KEY ("founder_id") REFERENCES "founders"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "founder_education_university_id_fkey" FOREIGN KEY ("university_id") REFERENCES "entities"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "founder_education_founder_id_idx" ON "founder_education"("founder_id");
CREATE INDEX "founder_education_university_id_idx" ON "founder_education"("university_id");

CREATE TABLE "backgrounds" (
    "id" SERIAL NOT NULL,
    "name" TEXT NOT NULL,
    CONSTRAINT "backgrounds_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "backgrounds_name_key" ON "backgrounds"("name");

CREATE TABLE "founder_backgrounds" (
    "founder_id" INTEGER NOT NULL,
    "background_id" INTEGER NOT NULL,
    CONSTRAINT "founder_backgrounds_pkey" PRIMARY KEY ("founder_id", "background_id"),
    CONSTRAINT "founder_backgrounds_founder_id_fkey" FOREIGN KEY ("founder_id") REFERENCES "founders"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "founder_backgrounds_background_id_fkey" FOREIGN KEY ("background_id") REFERENCES "backgrounds"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "founder_backgrounds_background_id_idx" ON "founder_backgrounds"("background_id");

CREATE TABLE "investors" (
    "id" INTEGER NOT NULL,
    "total_invested_usd" BIGINT NOT NULL DEFAULT 0,
    "investments_count" INTEGER NOT NULL DEFAULT 0,
    "portfolio_count" INTEGER NOT NULL DEFAULT 0,
    "exits_count" INTEGER NOT NULL DEFAULT 0,
    "lead_investments_count" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "investors_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "investors_id_fkey" FOREIGN KEY ("id") REFERENCES "entities"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "investors_total_invested_usd_id_idx" ON "investors"("total_invested_usd", "id");
CREATE INDEX "investors_investments_count_id_idx" ON "investors"("investments_count", "id");

CREATE TABLE "funding_rounds" (
    "id" SERIAL NOT NULL,
    "slug" TEXT NOT NULL,
    "entity_id" INTEGER NOT NULL,
    "round_type" TEXT NOT NULL,
    "amount_usd" BIGINT,
    "currency" TEXT NOT NULL DEFAULT 'USD',
    "date" DATE NOT NULL,
    "valuation_usd" BIGINT,
    "source_url" TEXT NOT NULL DEFAULT '',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "funding_rounds_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "funding_rounds_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "entities"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "funding_rounds_slug_key" ON "funding_rounds"("slug");
CREATE INDEX "funding_rounds_entity_id_idx" ON "funding_rounds"("entity_id");
CREATE INDEX "funding_rounds_date_id_idx" ON "funding_rounds"("date", "id");
CREATE INDEX "funding_rounds_amount_usd_id_idx" ON "funding_rounds"("amount_usd", "id");
CREATE INDEX "funding_rounds_round_type_id_idx" ON "funding_rounds"("round_type", "id");

CREATE TABLE "round_investors" (
    "round_id" INTEGER NOT NULL,
    "investor_id" INTEGER NOT NULL,
    "is_lead" BOOLEAN NOT NULL DEFAULT false,
    CONSTRAINT "round_investors_pkey" PRIMARY KEY ("round_id", "investor_id"),
    CONSTRAINT "round_investors_round_id_fkey" FOREIGN KEY ("round_id") REFERENCES "funding_rounds"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "round_investors_investor_id_fkey" FOREIGN KEY ("investor_id") REFERENCES "investors"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "round_investors_investor_id_round_id_idx" ON "round_investors"("investor_id", "round_id");

CREATE TABLE "valuations" (
    "id" SERIAL NOT NULL,
    "slug" TEXT NOT NULL,
    "entity_id" INTEGER NOT NULL,
    "valuation_usd" BIGINT NOT NULL,
    "date" DATE NOT NULL,
    "source" TEXT NOT NULL DEFAULT '',
    "transaction_id" INTEGER,
    CONSTRAINT "valuations_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "valuations_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "entities"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "valuations_transaction_id_fkey" FOREIGN KEY ("transaction_id") REFERENCES "funding_rounds"("id") ON DELETE SET NULL ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "valuations_slug_key" ON "valuations"("slug");
CREATE INDEX "valuations_entity_id_idx" ON "valuations"("entity_id");
CREATE INDEX "valuations_date_id_idx" ON "valuations"("date", "id");
CREATE INDEX "valuations_valuation_usd_id_idx" ON "valuations"("valuation_usd", "id");
CREATE INDEX "valuations_transaction_id_idx" ON "valuations"("transaction_id");

CREATE TABLE "news_articles" (
    "id" SERIAL NOT NULL,
    "url" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "summary" TEXT NOT NULL DEFAULT '',
    "image_url" TEXT NOT NULL DEFAULT '',
    "source" TEXT NOT NULL DEFAULT '',
    "article_type" TEXT NOT NULL DEFAULT '',
    "publish_date" TIMESTAMPTZ(3) NOT NULL,
    "language" TEXT NOT NULL DEFAULT 'en',
    "amount_usd" DECIMAL(20,2),
    "round_type" TEXT NOT NULL DEFAULT '',
    "deal_date" DATE,
    "sector" TEXT NOT NULL DEFAULT '',
    "hq_country" TEXT NOT NULL DEFAULT '',
    "enriched_summary" TEXT NOT NULL DEFAULT '',
    "relevance_score" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "hub_score" DOUBLE PRECISION NOT NULL DEFAULT 0,
    CONSTRAINT "news_articles_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "news_articles_url_key" ON "news_articles"("url");
CREATE INDEX "news_articles_publish_date_id_idx" ON "news_articles"("publish_date", "id");
CREATE INDEX "news_articles_source_id_idx" ON "news_articles"("source", "id");
CREATE INDEX "news_articles_article_type_id_idx" ON "news_articles"("article_type", "id");
CREATE INDEX "news_articles_amount_usd_id_idx" ON "news_articles"("amount_usd", "id");

CREATE TABLE "news_entities" (
    "news_id" INTEGER NOT NULL,
    "entity_id" INTEGER NOT NULL,
    "mention_role" TEXT NOT NULL DEFAULT 'mentioned',
    "is_primary" BOOLEAN NOT NULL DEFAULT false,
    "sector" TEXT NOT NULL DEFAULT '',
    CONSTRAINT "news_entities_pkey" PRIMARY KEY ("news_id", "entity_id"),
    CONSTRAINT "news_entities_news_id_fkey" FOREIGN KEY ("news_id") REFERENCES "news_articles"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "news_entities_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "entities"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "news_entities_entity_id_news_id_idx" ON "news_entities"("entity_id", "news_id");

-- ───────────── organisations and management ─────────────

CREATE TABLE "organizations" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

CREATE TABLE "ecosystems" (
    "id" SERIAL NOT NULL,
    "org_id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "filter" TEXT NOT NULL,
    "region" TEXT NOT NULL DEFAULT '',
    "image_url" TEXT NOT NULL DEFAULT '',
    "partner_logos" JSONB NOT NULL DEFAULT '[]',
    "tabs_config" JSONB NOT NULL DEFAULT '{}',
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "sort_order" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "ecosystems_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "ecosystems_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "ecosystems_org_id_slug_key" ON "ecosystems"("org_id", "slug");
CREATE INDEX "ecosystems_org_id_is_active_sort_order_id_idx" ON "ecosystems"("org_id", "is_active", "sort_order", "id");

CREATE TABLE "landscapes" (
    "id" SERIAL NOT NULL,
    "ecosystem_id" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "sort_order" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "landscapes_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "landscapes_ecosystem_id_fkey" FOREIGN KEY ("ecosystem_id") REFERENCES "ecosystems"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE INDEX "landscapes_ecosystem_id_sort_order_id_idx" ON "landscapes"("ecosystem_id", "sort_order", "id");

CREATE TABLE "landscape_entities" (
    "landscape_id" INTEGER NOT NULL,
    "entity_id" INTEGER NOT NULL,
    "position" INTEGER NOT NULL,
    CONSTRAINT "landscape_entities_pkey" PRIMARY KEY ("landscape_id", "entity_id"),
    CONSTRAINT "landscape_entities_landscape_id_fkey" FOREIGN KEY ("landscape_id") REFERENCES "landscapes"("id") ON DELETE CASCADE ON UPDATE CASCADE,
    CONSTRAINT "landscape_entities_entity_id_fkey" FOREIGN KEY ("entity_id") REFERENCES "entities"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "landscape_entities_landscape_id_position_key" ON "landscape_entities"("landscape_id", "position");

CREATE TABLE "teams" (
    "id" SERIAL NOT NULL,
    "org_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "teams_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "teams_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "teams_org_id_slug_key" ON "teams"("org_id", "slug");

CREATE TABLE "team_members" (
    "id" SERIAL NOT NULL,
    "team_id" INTEGER NOT NULL,
    "user_id" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "joined_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "team_members_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "team_members_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "team_members_team_id_user_id_key" ON "team_members"("team_id", "user_id");
CREATE INDEX "team_members_user_id_idx" ON "team_members"("user_id");

CREATE TABLE "team_invitations" (
    "id" SERIAL NOT NULL,
    "team_id" INTEGER NOT NULL,
    "invited_email" TEXT NOT NULL,
    "invited_user_id" TEXT NOT NULL,
    "invited_by" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'pending',
    "token_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "responded_at" TIMESTAMPTZ(3),
    CONSTRAINT "team_invitations_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "team_invitations_team_id_fkey" FOREIGN KEY ("team_id") REFERENCES "teams"("id") ON DELETE CASCADE ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "team_invitations_token_hash_key" ON "team_invitations"("token_hash");
CREATE INDEX "team_invitations_team_id_status_idx" ON "team_invitations"("team_id", "status");
CREATE INDEX "team_invitations_invited_user_id_idx" ON "team_invitations"("invited_user_id");

CREATE TABLE "api_keys" (
    "id" SERIAL NOT NULL,
    "org_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "client_id" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "permissions" TEXT[],
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id"),
    CONSTRAINT "api_keys_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE RESTRICT ON UPDATE CASCADE
);
CREATE UNIQUE INDEX "api_keys_client_id_key" ON "api_keys"("client_id");
CREATE INDEX "api_keys_org_id_revoked_at_id_idx" ON "api_keys"("org_id", "revoked_at", "id");
CREATE INDEX "api_keys_created_by_idx" ON "api_keys"("created_by");

CREATE TABLE "usage_buckets" (
    "bucket" TIMESTAMPTZ(3) NOT NULL,
    "client_id" TEXT NOT NULL,
    "endpoint" TEXT NOT NULL,
    "request_count" BIGINT NOT NULL DEFAULT 0,
    "error_count" BIGINT NOT NULL DEFAULT 0,
    CONSTRAINT "usage_buckets_pkey" PRIMARY KEY ("client_id", "bucket", "endpoint")
);

CREATE TABLE "signing_keys" (
    "kid" TEXT NOT NULL,
    "alg" TEXT NOT NULL,
    "public_jwk" JSONB NOT NULL,
    "private_jwk" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "retired_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    CONSTRAINT "signing_keys_pkey" PRIMARY KEY ("kid")
);
