-- GET /api/entities
SELECT (
  SELECT row_to_json(o)
  FROM (
    SELECT r."id" AS "id",
      r."uuid" AS "uuid",
      r."type" AS "type",
      r."is_company" AS "is_company",
      r."is_investor" AS "is_investor",
      r."is_university" AS "is_university",
      r."is_crowdfunding" AS "is_crowdfunding",
      r."is_government" AS "is_government",
      r."is_non_profit" AS "is_non_profit",
      r."is_founder" AS "is_founder",
      r."name" AS "name",
      r."tagline" AS "tagline",
      r."image" AS "image",
      r."platform_url" AS "platform_url",
      r."website" AS "website",
      (
        SELECT coalesce('[' || string_agg((
          SELECT row_to_json(o)
          FROM (
            SELECT t1."source" AS "source",
              t1."external_id" AS "id"
          ) o
        )::text, ',' ORDER BY t1."source" ASC, t1."external_id" ASC) || ']', '[]')::json
        FROM "entity_external_ids" t1
        WHERE t1."entity_id" = r."id"
      ) AS "external_ids",
      r."launch_year" AS "launch_year",
      r."hq_country" AS "hq_country",
      r."hq_city" AS "hq_city",
      r."lat" AS "lat",
      r."lon" AS "lon",
      to_char(r."created_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "created_at",
      to_char(r."updated_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "updated_at",
      to_char(r."deleted_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "deleted_at",
      (
        SELECT coalesce('[' || string_agg((
          SELECT row_to_json(o)
          FROM (
            SELECT t3."id" AS "id",
              t3."name" AS "name",
              t3."type" AS "type"
          ) o
        )::text, ',' ORDER BY t2."tag_id" ASC) || ']', '[]')::json
        FROM "entity_tags" t2
        JOIN "tags" t3 ON t3."id" = t2."tag_id"
        WHERE t2."entity_id" = r."id"
      ) AS "tags",
      (
        SELECT coalesce('[' || string_agg((
          SELECT row_to_json(o)
          FROM (
            SELECT t5."id" AS "id",
              t5."name" AS "name",
              t5."image" AS "image",
              t5."platform_url" AS "platform_url"
          ) o
        )::text, ',' ORDER BY t4."founder_id" ASC) || ']', '[]')::json
        FROM "founder_companies" t4
        JOIN "founders" t5 ON t5."id" = t4."founder_id"
        WHERE t4."entity_id" = r."id" AND t4."is_founder" = $1
      ) AS "founders"
  ) o
)::text AS j,
  p.k0 AS k0
FROM (
  SELECT r.id,
    r."id" AS k0
  FROM "entities" r
  WHERE r."deleted_at" IS NULL
  ORDER BY r."id" ASC
  LIMIT 26
) p
JOIN "entities" r ON r.id = p.id
ORDER BY p.k0 ASC
-- params: [true]
