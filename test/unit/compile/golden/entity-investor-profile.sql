-- POST /graphql { result: entity(id: 25) { id name investor_profile { id name portfolio_count portfolio { id name } } } }
SELECT (
  SELECT row_to_json(o)
  FROM (
    SELECT r."id" AS "id",
      r."name" AS "name",
      (
        SELECT (
          SELECT row_to_json(o)
          FROM (
            SELECT t1."id" AS "id",
              (
                SELECT t2."name"
                FROM "entities" t2
                WHERE t2."id" = t1."id"
                LIMIT 1
              ) AS "name",
              t1."portfolio_count" AS "portfolio_count",
              (
                SELECT coalesce('[' || string_agg(d.j::text, ',' ORDER BY d.o0 ASC) || ']', '[]')::json
                FROM (
                  SELECT DISTINCT ON (t5."id") (
                    SELECT row_to_json(o)
                    FROM (
                      SELECT t5."id" AS "id",
                        t5."name" AS "name"
                    ) o
                  ) AS j,
                    t3."round_id" AS o0
                  FROM "round_investors" t3
                  JOIN "funding_rounds" t4 ON t4."id" = t3."round_id"
                  JOIN "entities" t5 ON t5."id" = t4."entity_id"
                  WHERE t3."investor_id" = t1."id"
                  ORDER BY t5."id", t3."round_id" ASC
                ) d
              ) AS "portfolio"
          ) o
        )
        FROM "investors" t1
        WHERE t1."id" = r."id"
        LIMIT 1
      ) AS "investor_profile"
  ) o
)::text AS j
FROM "entities" r
WHERE (r."id" = $1 AND r."deleted_at" IS NULL)
ORDER BY r."id"
LIMIT 1
-- params: [25]
