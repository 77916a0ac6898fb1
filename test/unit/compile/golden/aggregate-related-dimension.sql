-- GET /api/aggregate/transactions?metric=count&group_by=investors.hq_country
WITH g AS (
  SELECT t1.v AS "investors_hq_country",
    count(*) AS "count"
  FROM "funding_rounds" r
  LEFT JOIN LATERAL (
    SELECT DISTINCT t4."hq_country" AS v
    FROM "round_investors" t2
    JOIN "investors" t3 ON t3."id" = t2."investor_id"
    JOIN "entities" t4 ON t4."id" = t3."id"
    WHERE t2."round_id" = r."id"
  ) t1 ON TRUE
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
    SELECT coalesce(json_agg(json_build_object('investors_hq_country', p."investors_hq_country", 'count', p."count") ORDER BY p."count" DESC NULLS LAST, p."investors_hq_country" ASC NULLS LAST), '[]'::json)
    FROM (
      SELECT *
      FROM h
      ORDER BY h."count" DESC NULLS LAST, h."investors_hq_country" ASC NULLS LAST
      LIMIT $1 OFFSET $2
    ) p
  )::text AS rows
-- params: [25,0]
