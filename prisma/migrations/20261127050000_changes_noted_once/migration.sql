-- The change feed's statement triggers compare each updated row's old and new values as JSON. The
-- planner pulled the subqueries that make that JSON up into the lateral comparison, so `to_jsonb` of
-- the old row ran once per column compared: an UPDATE of 12,000 entities spent 7.5 s in the entity
-- trigger's insert (0.6 ms a row), and the first demo load's recompute of entity totals took 14-16 s,
-- past the 15 s statement timeout on PostgreSQL. `OFFSET 0` keeps each subquery whole, so each row's
-- JSON is made once: the same insert 1.2 s, the recompute 6.4 s (sessions without JIT, as the
-- service's). Nothing else changes: the same rows, kinds and columns are noted.
CREATE OR REPLACE FUNCTION "changes_noted"(op text, tbl text, form text, a text, b text, c text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE
    WHEN form = 'list' THEN format(
      'SELECT ''updated'' AS kind, t.id, ARRAY[%L]::text[] AS columns FROM (%s) t %s',
      b,
      CASE op WHEN 'INSERT' THEN format('SELECT DISTINCT %I AS id FROM new_rows', a)
              WHEN 'DELETE' THEN format('SELECT DISTINCT %I AS id FROM old_rows', a)
              ELSE format('SELECT %1$I AS id FROM new_rows UNION SELECT %1$I FROM old_rows', a) END,
      CASE WHEN c IS NULL THEN '' ELSE format('WHERE EXISTS (SELECT 1 FROM %I x WHERE x.id = t.id)', c) END)
    WHEN op = 'INSERT' THEN 'SELECT ''created'' AS kind, r.id, NULL::text[] AS columns FROM new_rows r'
    WHEN op = 'DELETE' THEN 'SELECT ''deleted'' AS kind, r.id, NULL::text[] AS columns FROM old_rows r'
    WHEN op = 'TRUNCATE' THEN format('SELECT ''deleted'' AS kind, r.id, NULL::text[] AS columns FROM %I r', tbl)
    ELSE format(
      'SELECT CASE WHEN o.j ->> ''deleted_at'' IS NULL AND n.j ->> ''deleted_at'' IS NOT NULL THEN ''deleted''
                   WHEN o.j ->> ''deleted_at'' IS NOT NULL AND n.j ->> ''deleted_at'' IS NULL THEN ''created''
                   ELSE ''updated'' END AS kind,
              n.id, d.columns
         FROM (SELECT r.id, to_jsonb(r) AS j FROM new_rows r OFFSET 0) n
         JOIN (SELECT r.id, to_jsonb(r) AS j FROM old_rows r OFFSET 0) o ON o.id = n.id
         %s
        CROSS JOIN LATERAL (
          SELECT array_agg(e.key ORDER BY e.key) AS columns, bool_or(NOT (e.key = ANY (%L::text[]))) AS visible
            FROM jsonb_each(n.j) e
           WHERE %s AND e.value IS DISTINCT FROM o.j -> e.key
        ) d
        WHERE d.visible',
      CASE WHEN form = 'investor' THEN 'JOIN investors i ON i.id = n.id' ELSE '' END,
      coalesce(CASE WHEN form = 'record' THEN b END, '{}'),
      CASE WHEN form = 'investor' THEN format('e.key = ANY (%L::text[])', a) ELSE format('NOT (e.key = ANY (%L::text[]))', a) END)
  END
$$;
