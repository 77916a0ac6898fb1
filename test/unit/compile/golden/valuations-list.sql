-- GET /api/valuations?sort=-valuation_usd&limit=5
SELECT (
  SELECT row_to_json(o)
  FROM (
    SELECT r."id" AS "id",
      (
        SELECT (
          SELECT row_to_json(o)
          FROM (
            SELECT t1."id" AS "id",
              t1."name" AS "name"
          ) o
        )
        FROM "entities" t1
        WHERE t1."id" = r."entity_id"
        LIMIT 1
      ) AS "entity",
      r."valuation_usd" AS "valuation_usd",
      to_char(r."date", 'YYYY-MM-DD') AS "date",
      r."source" AS "source",
      r."transaction_id" AS "transaction_id"
  ) o
)::text AS j,
  p.k0::text AS k0,
  p.k1 AS k1
FROM (
  SELECT r.id,
    r."valuation_usd" AS k0,
    r."id" AS k1
  FROM "valuations" r
  WHERE TRUE
  ORDER BY r."valuation_usd" DESC, r."id" ASC
  LIMIT 6
) p
JOIN "valuations" r ON r.id = p.id
ORDER BY p.k0 DESC, p.k1 ASC
-- params: []
