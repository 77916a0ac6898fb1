-- GET /api/aggregate/entities?metric=count&group_by=hq_country
WITH g AS (
  SELECT r."hq_country" AS "hq_country",
    count(*) AS "count"
  FROM "entities" r
  WHERE r."deleted_at" IS NULL
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
    SELECT coalesce(json_agg(json_build_object('hq_country', p."hq_country", 'count', p."count") ORDER BY p."count" DESC NULLS LAST, p."hq_country" ASC NULLS LAST), '[]'::json)
    FROM (
      SELECT *
      FROM h
      ORDER BY h."count" DESC NULLS LAST, h."hq_country" ASC NULLS LAST
      LIMIT $1 OFFSET $2
    ) p
  )::text AS rows
-- params: [25,0]
