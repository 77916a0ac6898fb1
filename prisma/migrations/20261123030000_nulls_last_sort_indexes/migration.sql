-- NULLs sort last in both directions (`sort=-launch_year` starts with the newest year, not the unknown
-- ones). The (column, id) indexes serve the ascending order (NULLS LAST is btree's default); a
-- descending NULLS LAST order is not a backward scan of them, so each nullable sortable column gets its
-- own (column DESC NULLS LAST, id) index. test/integration/sort-indexes.test.ts checks both directions.

CREATE INDEX "entities_launch_year_desc_id_idx" ON "entities"("launch_year" DESC NULLS LAST, "id");
CREATE INDEX "entities_lat_desc_id_idx" ON "entities"("lat" DESC NULLS LAST, "id");
CREATE INDEX "entities_lon_desc_id_idx" ON "entities"("lon" DESC NULLS LAST, "id");
CREATE INDEX "entities_deleted_at_desc_id_idx" ON "entities"("deleted_at" DESC NULLS LAST, "id");
CREATE INDEX "founders_launch_year_desc_id_idx" ON "founders"("launch_year" DESC NULLS LAST, "id");
CREATE INDEX "funding_rounds_amount_usd_desc_id_idx" ON "funding_rounds"("amount_usd" DESC NULLS LAST, "id");
CREATE INDEX "funding_rounds_valuation_usd_desc_id_idx" ON "funding_rounds"("valuation_usd" DESC NULLS LAST, "id");
CREATE INDEX "valuations_transaction_id_desc_id_idx" ON "valuations"("transaction_id" DESC NULLS LAST, "id");
CREATE INDEX "news_articles_amount_usd_desc_id_idx" ON "news_articles"("amount_usd" DESC NULLS LAST, "id");
CREATE INDEX "news_articles_deal_date_desc_id_idx" ON "news_articles"("deal_date" DESC NULLS LAST, "id");
