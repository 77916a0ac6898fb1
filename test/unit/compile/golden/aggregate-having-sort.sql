-- GET /api/aggregate/transactions?metric=count&metric=median:amount_usd&group_by=round_type&filter=date[gte]:2000-01-01&having=count[gte]:3&sort=-median_amount_usd
WITH g AS (
  SELECT r."round_type" AS "round_type",
    count(*) AS "count",
    percentile_cont(0.5) WITHIN GROUP (ORDER BY r."amount_usd"::float8) AS "median_amount_usd"
  FROM "funding_rounds" r
  WHERE r."date" >= $1
  GROUP BY 1
), h AS (
  SELECT *
  FROM g h
  WHERE h."count" >= $2
) SELECT (
  SELECT count(*)
  FROM h
)::int AS total,
  (
    SELECT coalesce(json_agg(json_build_object('round_type', p."round_type", 'count', p."count", 'median_amount_usd', p."median_amount_usd") ORDER BY p."median_amount_usd" DESC NULLS LAST, p."round_type" ASC NULLS LAST), '[]'::json)
    FROM (
      SELECT *
      FROM h
      ORDER BY h."median_amount_usd" DESC NULLS LAST, h."round_type" ASC NULLS LAST
      LIMIT $3 OFFSET $4
    ) p
  )::text AS rows
-- params: ["2000-01-01T00:00:00.000Z",3,25,0]
