-- GET /api/aggregate/transactions?metric=sum:amount_usd&group_by=date:year
WITH g AS (
  SELECT date_trunc('year', r."date"::timestamp)::date AS "date_year",
    sum(r."amount_usd") AS "sum_amount_usd"
  FROM "funding_rounds" r
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
    SELECT coalesce(json_agg(json_build_object('date_year', to_char(p."date_year", 'YYYY-MM-DD'), 'sum_amount_usd', p."sum_amount_usd") ORDER BY p."sum_amount_usd" DESC NULLS LAST, p."date_year" ASC NULLS LAST), '[]'::json)
    FROM (
      SELECT *
      FROM h
      ORDER BY h."sum_amount_usd" DESC NULLS LAST, h."date_year" ASC NULLS LAST
      LIMIT $1 OFFSET $2
    ) p
  )::text AS rows
-- params: [25,0]
