-- Sorting by any short sortable column, and keyset paging after it, is an index range scan:
-- one (column, id) index each. Long free text (tagline, summary, enriched_summary) is left out:
-- btree entries are capped at about 2.7 kB, and those columns are filtered alongside others.
-- test/integration/sort-indexes.test.ts checks every sortable column against EXPLAIN.

-- entities
CREATE INDEX "entities_is_company_id_idx" ON "entities"("is_company", "id");
CREATE INDEX "entities_is_investor_id_idx" ON "entities"("is_investor", "id");
CREATE INDEX "entities_is_university_id_idx" ON "entities"("is_university", "id");
CREATE INDEX "entities_is_crowdfunding_id_idx" ON "entities"("is_crowdfunding", "id");
CREATE INDEX "entities_is_government_id_idx" ON "entities"("is_government", "id");
CREATE INDEX "entities_is_non_profit_id_idx" ON "entities"("is_non_profit", "id");
CREATE INDEX "entities_is_founder_id_idx" ON "entities"("is_founder", "id");
CREATE INDEX "entities_is_unicorn_id_idx" ON "entities"("is_unicorn", "id");
CREATE INDEX "entities_image_id_idx" ON "entities"("image", "id");
CREATE INDEX "entities_platform_url_id_idx" ON "entities"("platform_url", "id");
CREATE INDEX "entities_lat_id_idx" ON "entities"("lat", "id");
CREATE INDEX "entities_lon_id_idx" ON "entities"("lon", "id");

-- founders
CREATE INDEX "founders_gender_id_idx" ON "founders"("gender", "id");
CREATE INDEX "founders_is_serial_founder_id_idx" ON "founders"("is_serial_founder", "id");
CREATE INDEX "founders_is_super_founder_id_idx" ON "founders"("is_super_founder", "id");
CREATE INDEX "founders_is_promising_founder_id_idx" ON "founders"("is_promising_founder", "id");
CREATE INDEX "founders_is_strong_founder_id_idx" ON "founders"("is_strong_founder", "id");
CREATE INDEX "founders_hq_city_id_idx" ON "founders"("hq_city", "id");
CREATE INDEX "founders_image_id_idx" ON "founders"("image", "id");
CREATE INDEX "founders_platform_url_id_idx" ON "founders"("platform_url", "id");

-- investors
CREATE INDEX "investors_portfolio_count_id_idx" ON "investors"("portfolio_count", "id");
CREATE INDEX "investors_exits_count_id_idx" ON "investors"("exits_count", "id");
CREATE INDEX "investors_lead_investments_count_id_idx" ON "investors"("lead_investments_count", "id");

-- funding_rounds
CREATE INDEX "funding_rounds_currency_id_idx" ON "funding_rounds"("currency", "id");
CREATE INDEX "funding_rounds_valuation_usd_id_idx" ON "funding_rounds"("valuation_usd", "id");
CREATE INDEX "funding_rounds_source_url_id_idx" ON "funding_rounds"("source_url", "id");

-- valuations
CREATE INDEX "valuations_source_id_idx" ON "valuations"("source", "id");

-- news_articles
CREATE INDEX "news_articles_title_id_idx" ON "news_articles"("title", "id");
CREATE INDEX "news_articles_image_url_id_idx" ON "news_articles"("image_url", "id");
CREATE INDEX "news_articles_language_id_idx" ON "news_articles"("language", "id");
CREATE INDEX "news_articles_round_type_id_idx" ON "news_articles"("round_type", "id");
CREATE INDEX "news_articles_deal_date_id_idx" ON "news_articles"("deal_date", "id");
CREATE INDEX "news_articles_sector_id_idx" ON "news_articles"("sector", "id");
CREATE INDEX "news_articles_hq_country_id_idx" ON "news_articles"("hq_country", "id");
CREATE INDEX "news_articles_relevance_score_id_idx" ON "news_articles"("relevance_score", "id");
CREATE INDEX "news_articles_hub_score_id_idx" ON "news_articles"("hub_score", "id");

-- A country is one row: the (kind, name, parent_id) key cannot say so, as NULL parents are distinct.
CREATE UNIQUE INDEX "locations_country_name_key" ON "locations"("name") WHERE "kind" = 'country';
