-- POST /graphql { result: ecosystemAggregate(ecosystem: "golden", metrics: ["count", "sum:total_funding_usd"], groupBy: "is_unicorn", filter: "hq_country[neq]:United States") { data page { total } } }
WITH g AS (
  SELECT r."is_unicorn" AS "is_unicorn",
    count(*) AS "count",
    sum(r."total_funding_usd") AS "sum_total_funding_usd"
  FROM "entities" r
  WHERE (r."hq_country" <> $1 AND ((r."launch_year" >= $2 OR EXISTS (
    SELECT 1
    FROM "entity_tags" t1
    WHERE t1."entity_id" = r."id" AND t1."tag_id" = ANY($3)
  )) AND r."deleted_at" IS NULL))
  GROUP BY 1
), h AS (
  SELECT *
  FROM g h
  WHERE TRUE
) SELECT (
  SELECT count(*)
  FROM h
)::int AS total,
  (
    SELECT coalesce(json_agg(json_build_object('is_unicorn', p."is_unicorn", 'count', p."count", 'sum_total_funding_usd', p."sum_total_funding_usd") ORDER BY p."count" DESC NULLS LAST, p."is_unicorn" ASC NULLS LAST), '[]'::json)
    FROM (
      SELECT *
      FROM h
      ORDER BY h."count" DESC NULLS LAST, h."is_unicorn" ASC NULLS LAST
      LIMIT $4 OFFSET $5
    ) p
  )::text AS rows
-- params: ["United States",2015,[43],25,0]
