-- GET /api/news?filter=amount_usd[gte]:1000000&sort=-amount_usd&limit=5
SELECT (
  SELECT row_to_json(o)
  FROM (
    SELECT r."id" AS "id",
      r."url" AS "url",
      r."title" AS "title",
      r."summary" AS "summary",
      r."image_url" AS "image_url",
      r."source" AS "source",
      r."article_type" AS "article_type",
      to_char(r."publish_date" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "publish_date",
      r."language" AS "language",
      trim_scale(r."amount_usd")::text AS "amount_usd",
      r."round_type" AS "round_type",
      to_char(r."deal_date", 'YYYY-MM-DD') AS "deal_date",
      r."sector" AS "sector",
      r."hq_country" AS "hq_country",
      r."enriched_summary" AS "enriched_summary",
      r."relevance_score" AS "relevance_score",
      r."hub_score" AS "hub_score",
      (
        SELECT coalesce('[' || string_agg((
          SELECT row_to_json(o)
          FROM (
            SELECT t1."entity_id" AS "id",
              (
                SELECT t2."name"
                FROM "entities" t2
                WHERE t2."id" = t1."entity_id"
                LIMIT 1
              ) AS "name",
              t1."mention_role" AS "mention_role",
              t1."is_primary" AS "is_primary",
              t1."sector" AS "sector",
              (
                SELECT t3."hq_country"
                FROM "entities" t3
                WHERE t3."id" = t1."entity_id"
                LIMIT 1
              ) AS "hq_country"
          ) o
        )::text, ',' ORDER BY t1."is_primary" DESC, t1."entity_id" ASC) || ']', '[]')::json
        FROM "news_entities" t1
        WHERE t1."news_id" = r."id"
      ) AS "entities"
  ) o
)::text AS j,
  trim_scale(p.k0)::text AS k0,
  p.k1 AS k1
FROM (
  SELECT r.id,
    r."amount_usd" AS k0,
    r."id" AS k1
  FROM "news_articles" r
  WHERE r."amount_usd" >= $1
  ORDER BY r."amount_usd" DESC NULLS LAST, r."id" ASC
  LIMIT 6
) p
JOIN "news_articles" r ON r.id = p.id
ORDER BY p.k0 DESC NULLS LAST, p.k1 ASC
-- params: ["1000000"]
