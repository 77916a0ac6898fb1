-- GET /api/transactions/1
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
      r."round_type" AS "round_type",
      r."amount_usd" AS "amount_usd",
      r."currency" AS "currency",
      to_char(r."date", 'YYYY-MM-DD') AS "date",
      r."valuation_usd" AS "valuation_usd",
      (
        SELECT coalesce('[' || string_agg((
          SELECT row_to_json(o)
          FROM (
            SELECT t2."investor_id" AS "id",
              (
                SELECT t4."name"
                FROM "investors" t3
                JOIN "entities" t4 ON t4."id" = t3."id"
                WHERE t3."id" = t2."investor_id"
                LIMIT 1
              ) AS "name",
              t2."is_lead" AS "is_lead"
          ) o
        )::text, ',' ORDER BY t2."is_lead" DESC, t2."investor_id" ASC) || ']', '[]')::json
        FROM "round_investors" t2
        WHERE t2."round_id" = r."id"
      ) AS "investors",
      r."source_url" AS "source_url"
  ) o
)::text AS j
FROM "funding_rounds" r
WHERE r."id" = $1
ORDER BY r."id"
LIMIT 1
-- params: [1]
