-- GET /api/entities?filter=name[contains]:spark
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
              t4."name" AS "name",
              t4."image" AS "image",
              t4."platform_url" AS "platform_url"
          ) o
        )::text, ',' ORDER BY t3."founder_id" ASC) || ']', '[]')::json
        FROM "founder_companies" t3
        JOIN "founders" t4 ON t4."id" = t3."founder_id"
        WHERE t3."entity_id" = r."id" AND t3."is_founder" = $1
      ) AS "founders"
  ) o
)::text AS j,
  p.k0::text AS k0,
  p.k1 AS k1,
  p.k2 AS k2
FROM (
  SELECT r.id,
    r."total_funding_usd" AS k0,
    r."name" AS k1,
    r."id" AS k2
  FROM "entities" r
  WHERE (r."name" ILIKE $2 AND r."deleted_at" IS NULL)
  ORDER BY r."total_funding_usd" DESC, r."name" ASC, r."id" ASC
  LIMIT 26
) p
JOIN "entities" r ON r.id = p.id
ORDER BY p.k0 DESC, p.k1 ASC, p.k2 ASC
-- params: [true,"%spark%"]
