-- GET /api/investors?sort=name
SELECT (
  SELECT row_to_json(o)
  FROM (
    SELECT r."id" AS "id",
      (
        SELECT t1."uuid"
        FROM "entities" t1
        WHERE t1."id" = r."id"
        LIMIT 1
      ) AS "uuid",
      (
        SELECT t2."name"
        FROM "entities" t2
        WHERE t2."id" = r."id"
        LIMIT 1
      ) AS "name",
      (
        SELECT t3."type"
        FROM "entities" t3
        WHERE t3."id" = r."id"
        LIMIT 1
      ) AS "type",
      (
        SELECT t4."image"
        FROM "entities" t4
        WHERE t4."id" = r."id"
        LIMIT 1
      ) AS "image",
      (
        SELECT t5."platform_url"
        FROM "entities" t5
        WHERE t5."id" = r."id"
        LIMIT 1
      ) AS "platform_url",
      (
        SELECT t6."hq_country"
        FROM "entities" t6
        WHERE t6."id" = r."id"
        LIMIT 1
      ) AS "hq_country",
      (
        SELECT t7."hq_city"
        FROM "entities" t7
        WHERE t7."id" = r."id"
        LIMIT 1
      ) AS "hq_city",
      (
        SELECT t8."launch_year"
        FROM "entities" t8
        WHERE t8."id" = r."id"
        LIMIT 1
      ) AS "launch_year",
      r."total_invested_usd" AS "total_invested_usd",
      r."investments_count" AS "investments_count",
      r."portfolio_count" AS "portfolio_count",
      r."exits_count" AS "exits_count",
      r."lead_investments_count" AS "lead_investments_count",
      (
        SELECT coalesce('[' || string_agg((
          SELECT row_to_json(o)
          FROM (
            SELECT t11."id" AS "id",
              t11."name" AS "name",
              t11."type" AS "type"
          ) o
        )::text, ',' ORDER BY t10."tag_id" ASC) || ']', '[]')::json
        FROM "entities" t9
        JOIN "entity_tags" t10 ON t10."entity_id" = t9."id"
        JOIN "tags" t11 ON t11."id" = t10."tag_id"
        WHERE t9."id" = r."id"
      ) AS "tags"
  ) o
)::text AS j,
  p.k0 AS k0,
  p.k1 AS k1
FROM (
  SELECT r.id,
    (
      SELECT w2."name"
      FROM "entities" w2
      WHERE w2."id" = r."id"
    ) AS k0,
    r."id" AS k1
  FROM "investors" r
  WHERE EXISTS (
    SELECT 1
    FROM "entities" w1
    WHERE w1."id" = r."id" AND w1."deleted_at" IS NULL
  )
  ORDER BY (
    SELECT w2."name"
    FROM "entities" w2
    WHERE w2."id" = r."id"
  ) ASC, r."id" ASC
  LIMIT 26
) p
JOIN "investors" r ON r.id = p.id
ORDER BY p.k0 ASC, p.k1 ASC
-- params: []
