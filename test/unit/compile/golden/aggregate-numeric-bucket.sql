-- GET /api/aggregate/valuations?metric=count&metric=avg:valuation_usd&group_by=valuation_usd:bucket(100000000)
WITH g AS (
  SELECT floor(r."valuation_usd"::numeric / $1::numeric) * $1::numeric AS "valuation_usd_bucket(100000000)",
    count(*) AS "count",
    avg(r."valuation_usd")::float8 AS "avg_valuation_usd"
  FROM "valuations" r
  WHERE TRUE
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
    SELECT coalesce(json_agg(json_build_object('valuation_usd_bucket(100000000)', p."valuation_usd_bucket(100000000)", 'count', p."count", 'avg_valuation_usd', p."avg_valuation_usd") ORDER BY p."count" DESC NULLS LAST, p."valuation_usd_bucket(100000000)" ASC NULLS LAST), '[]'::json)
    FROM (
      SELECT *
      FROM h
      ORDER BY h."count" DESC NULLS LAST, h."valuation_usd_bucket(100000000)" ASC NULLS LAST
      LIMIT $2 OFFSET $3
    ) p
  )::text AS rows
-- params: ["100000000",25,0]
