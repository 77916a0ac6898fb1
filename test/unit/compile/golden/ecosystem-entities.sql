-- POST /graphql { result: ecosystemEntities(ecosystem: "golden", filter: "hq_country[neq]:United States", sort: "-launch_year", limit: 5) { data { id name launch_year tags { id } } page { next_cursor } } }
SELECT (
  SELECT row_to_json(o)
  FROM (
    SELECT r."id" AS "id",
      r."name" AS "name",
      r."launch_year" AS "launch_year",
      (
        SELECT coalesce('[' || string_agg((
          SELECT row_to_json(o)
          FROM (
            SELECT t2."id" AS "id"
          ) o
        )::text, ',' ORDER BY t1."tag_id" ASC) || ']', '[]')::json
        FROM "entity_tags" t1
        JOIN "tags" t2 ON t2."id" = t1."tag_id"
        WHERE t1."entity_id" = r."id"
      ) AS "tags"
  ) o
)::text AS j,
  p.k0 AS k0,
  p.k1 AS k1
FROM (
  SELECT r.id,
    r."launch_year" AS k0,
    r."id" AS k1
  FROM "entities" r
  WHERE (r."hq_country" <> $1 AND ((r."launch_year" >= $2 OR EXISTS (
    SELECT 1
    FROM "entity_tags" w1
    WHERE w1."entity_id" = r."id" AND w1."tag_id" = ANY($3)
  )) AND r."deleted_at" IS NULL))
  ORDER BY r."launch_year" DESC NULLS LAST, r."id" ASC
  LIMIT 6
) p
JOIN "entities" r ON r.id = p.id
ORDER BY p.k0 DESC NULLS LAST, p.k1 ASC
-- params: ["United States",2015,[43]]
