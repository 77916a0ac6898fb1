-- POST /graphql { result: entity(id: 1) { id name tags { id name type } founders { id name } rounds { id round_type amount_usd date investors { id name is_lead } } investors { id name } } }
SELECT (
  SELECT row_to_json(o)
  FROM (
    SELECT r."id" AS "id",
      r."name" AS "name",
      (
        SELECT coalesce('[' || string_agg((
          SELECT row_to_json(o)
          FROM (
            SELECT t2."id" AS "id",
              t2."name" AS "name",
              t2."type" AS "type"
          ) o
        )::text, ',' ORDER BY t1."tag_id" ASC) || ']', '[]')::json
        FROM "entity_tags" t1
        JOIN "tags" t2 ON t2."id" = t1."tag_id"
        WHERE t1."entity_id" = r."id"
      ) AS "tags",
      (
        SELECT coalesce('[' || string_agg((
          SELECT row_to_json(o)
          FROM (
            SELECT t4."id" AS "id",
              t4."name" AS "name"
          ) o
        )::text, ',' ORDER BY t3."founder_id" ASC) || ']', '[]')::json
        FROM "founder_companies" t3
        JOIN "founders" t4 ON t4."id" = t3."founder_id"
        WHERE t3."entity_id" = r."id" AND t3."is_founder" = $1
      ) AS "founders",
      (
        SELECT coalesce('[' || string_agg((
          SELECT row_to_json(o)
          FROM (
            SELECT t5."id" AS "id",
              t5."round_type" AS "round_type",
              t5."amount_usd" AS "amount_usd",
              to_char(t5."date", 'YYYY-MM-DD') AS "date",
              (
                SELECT coalesce('[' || string_agg((
                  SELECT row_to_json(o)
                  FROM (
                    SELECT t6."investor_id" AS "id",
                      (
                        SELECT t8."name"
                        FROM "investors" t7
                        JOIN "entities" t8 ON t8."id" = t7."id"
                        WHERE t7."id" = t6."investor_id"
                        LIMIT 1
                      ) AS "name",
                      t6."is_lead" AS "is_lead"
                  ) o
                )::text, ',' ORDER BY t6."is_lead" DESC, t6."investor_id" ASC) || ']', '[]')::json
                FROM "round_investors" t6
                WHERE t6."round_id" = t5."id"
              ) AS "investors"
          ) o
        )::text, ',' ORDER BY t5."date" DESC, t5."id" ASC) || ']', '[]')::json
        FROM "funding_rounds" t5
        WHERE t5."entity_id" = r."id"
      ) AS "rounds",
      (
        SELECT coalesce('[' || string_agg(d.j::text, ',' ORDER BY d.o0 ASC, d.o1 ASC) || ']', '[]')::json
        FROM (
          SELECT DISTINCT ON (t11."id") (
            SELECT row_to_json(o)
            FROM (
              SELECT t11."id" AS "id",
                (
                  SELECT t12."name"
                  FROM "entities" t12
                  WHERE t12."id" = t11."id"
                  LIMIT 1
                ) AS "name"
            ) o
          ) AS j,
            t9."id" AS o0,
            t10."investor_id" AS o1
          FROM "funding_rounds" t9
          JOIN "round_investors" t10 ON t10."round_id" = t9."id"
          JOIN "investors" t11 ON t11."id" = t10."investor_id"
          WHERE t9."entity_id" = r."id"
          ORDER BY t11."id", t9."id" ASC, t10."investor_id" ASC
        ) d
      ) AS "investors"
  ) o
)::text AS j
FROM "entities" r
WHERE (r."id" = $2 AND r."deleted_at" IS NULL)
ORDER BY r."id"
LIMIT 1
-- params: [true,1]
