-- GET /api/founders?sort=-launch_year,name&limit=5
SELECT (
  SELECT row_to_json(o)
  FROM (
    SELECT r."id" AS "id",
      r."uuid" AS "uuid",
      r."name" AS "name",
      r."tagline" AS "tagline",
      r."image" AS "image",
      r."platform_url" AS "platform_url",
      r."gender" AS "gender",
      r."is_serial_founder" AS "is_serial_founder",
      r."is_super_founder" AS "is_super_founder",
      r."is_promising_founder" AS "is_promising_founder",
      r."is_strong_founder" AS "is_strong_founder",
      r."launch_year" AS "launch_year",
      r."hq_country" AS "hq_country",
      r."hq_city" AS "hq_city",
      (
        SELECT coalesce('[' || string_agg((
          SELECT row_to_json(o)
          FROM (
            SELECT t2."id" AS "id",
              t2."name" AS "name",
              t2."type" AS "type"
          ) o
        )::text, ',' ORDER BY t1."tag_id" ASC) || ']', '[]')::json
        FROM "founder_tags" t1
        JOIN "tags" t2 ON t2."id" = t1."tag_id"
        WHERE t1."founder_id" = r."id"
      ) AS "tags",
      (
        SELECT coalesce('[' || string_agg((
          SELECT row_to_json(o)
          FROM (
            SELECT t3."university_id" AS "university_id",
              (
                SELECT t4."name"
                FROM "entities" t4
                WHERE t4."id" = t3."university_id"
                LIMIT 1
              ) AS "university_name",
              t3."degree" AS "degree",
              t3."year_start" AS "year_start",
              t3."year_end" AS "year_end",
              t3."majors" AS "majors"
          ) o
        )::text, ',' ORDER BY t3."id" ASC) || ']', '[]')::json
        FROM "founder_education" t3
        WHERE t3."founder_id" = r."id"
      ) AS "education",
      (
        SELECT coalesce('[' || string_agg((
          SELECT row_to_json(o)
          FROM (
            SELECT t5."entity_id" AS "entity_id",
              (
                SELECT t6."name"
                FROM "entities" t6
                WHERE t6."id" = t5."entity_id"
                LIMIT 1
              ) AS "entity_name",
              t5."is_founder" AS "is_founder",
              t5."is_past" AS "is_past",
              t5."raw_title" AS "raw_title",
              t5."year_start" AS "year_start",
              t5."year_end" AS "year_end"
          ) o
        )::text, ',' ORDER BY t5."id" ASC) || ']', '[]')::json
        FROM "founder_companies" t5
        WHERE t5."founder_id" = r."id"
      ) AS "companies",
      (
        SELECT coalesce('[' || string_agg((
          SELECT row_to_json(o)
          FROM (
            SELECT t8."id" AS "id",
              t8."name" AS "name"
          ) o
        )::text, ',' ORDER BY t7."background_id" ASC) || ']', '[]')::json
        FROM "founder_backgrounds" t7
        JOIN "backgrounds" t8 ON t8."id" = t7."background_id"
        WHERE t7."founder_id" = r."id"
      ) AS "backgrounds"
  ) o
)::text AS j,
  p.k0 AS k0,
  p.k1 AS k1,
  p.k2 AS k2
FROM (
  SELECT r.id,
    r."launch_year" AS k0,
    r."name" AS k1,
    r."id" AS k2
  FROM "founders" r
  WHERE TRUE
  ORDER BY r."launch_year" DESC NULLS LAST, r."name" ASC, r."id" ASC
  LIMIT 6
) p
JOIN "founders" r ON r.id = p.id
ORDER BY p.k0 DESC NULLS LAST, p.k1 ASC, p.k2 ASC
-- params: []
