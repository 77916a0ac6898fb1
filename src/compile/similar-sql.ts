/**
 * Similar companies as one SQL statement (docs/finding-companies.md, "Similar companies"). The source's signals (its tags
 * and, when the caller may read investors, its investors) each get a weight from how rare they are,
 * ln(1 + N / df), from counts kept beside the data (tags.entity_count, entity_stats.active_entities,
 * investors.portfolio_count), so no request counts them. Candidates are the entities on those signals'
 * index entries (entity_tags(tag_id, entity_id), round_investors(investor_id, round_id)); each gets
 * the sum of the weights it shares. Location and launch year add at most BONUS_MAX, so only candidates
 * within BONUS_MAX of the limit-th best shared weight (among those the filter keeps) can reach the top:
 * only those rows of `entities` are read and scored, which keeps a million-entity table fast.
 *
 *   WITH src, corpus, sig (signal, weight), hits (candidate, signal), shared (candidate, Σ weight),
 *        floor (limit-th best eligible shared weight − BONUS_MAX), scored (+ location, + launch year)
 *   SELECT found, json of the top `limit` with their reasons
 */
import type { Models } from './model.ts';
import { Statement } from './statement.ts';
import { whereSql } from './where.ts';

/** Same city (in the same country), or same country only. */
export const LOCATION_WEIGHT = { city: 1, country: 0.5 } as const;
/** Launch years `d` apart add max(0, 1 - d / LAUNCH_YEAR_SPAN): 1 for the same year, 0 from four years apart. */
export const LAUNCH_YEAR_SPAN = 4;
/** The most location and launch year add together. */
export const BONUS_MAX = LOCATION_WEIGHT.city + 1;

/** How many of the best candidates the floor's walk may read before it gives up and scores them all. */
const FLOOR_WALK = 5_000;

/** Weights are integers of this many parts of 1 inside the statement. */
const UNIT = 10_000;
const units = (value: string) => `round(${value} / ${UNIT}.0, 4)`;

export interface SimilarStatement {
  sql: string;
  params: unknown[];
}

/** `where`: the filter's where input (readListRequest) over the candidate rows. */
export function similarStatement(models: Models, id: number, limit: number, withInvestors: boolean, where: object): SimilarStatement {
  const statement = new Statement(models);
  const source = statement.param(id);
  const top = statement.param(limit);
  const investors = statement.param(withInvestors);
  // Candidates are live companies other than the source, narrowed by the client's filter.
  const eligible = `c.deleted_at IS NULL AND c.is_company AND c.id <> ${source}::int AND ${whereSql(statement, statement.model('Entity'), 'c', where)}`;
  // Weights are summed in units of 1e-4 as integers: exact (reasons add up to the score to the last
  // digit, equal sums tie and fall to the id) and cheaper to add up over many candidates than numerics.
  const w = (df: string) => `round(ln(1 + corpus.n / greatest(${df}, 1)) * ${UNIT})::int`;
  const sql = `
WITH src AS (
  SELECT e.id, e.hq_country, e.hq_city, e.launch_year FROM entities e WHERE e.id = ${source}::int AND e.deleted_at IS NULL
), corpus AS (
  SELECT greatest(max(s.active_entities), 1)::float8 AS n FROM entity_stats s
), sig AS (
  SELECT 'tag'::text AS kind, t.id AS ref, t.name AS detail, ${w('t.entity_count')} AS w
    FROM src JOIN entity_tags st ON st.entity_id = src.id JOIN tags t ON t.id = st.tag_id CROSS JOIN corpus
  UNION ALL
  SELECT 'investor', i.id, ie.name, ${w('i.portfolio_count')}
    FROM (SELECT DISTINCT ri.investor_id FROM src JOIN funding_rounds r ON r.entity_id = src.id
            JOIN round_investors ri ON ri.round_id = r.id WHERE ${investors}::boolean) si
    JOIN investors i ON i.id = si.investor_id JOIN entities ie ON ie.id = i.id AND ie.deleted_at IS NULL CROSS JOIN corpus
), hits AS (
  SELECT et.entity_id AS id, s.w FROM sig s JOIN entity_tags et ON et.tag_id = s.ref WHERE s.kind = 'tag'
  UNION ALL
  SELECT b.id, s.w FROM sig s CROSS JOIN LATERAL (
    SELECT DISTINCT r.entity_id AS id FROM round_investors ri JOIN funding_rounds r ON r.id = ri.round_id WHERE ri.investor_id = s.ref
  ) b WHERE s.kind = 'investor'
), shared AS MATERIALIZED (
  SELECT h.id, sum(h.w) AS w FROM hits h GROUP BY h.id
), floor AS (
  -- Walks the candidates best first, reading each one's row (a subquery per row, so the walk stops
  -- at the limit-th eligible one rather than joining every candidate). Were the order lost, the
  -- minimum of any limit eligible weights is still at most the limit-th best: a lower floor, the same answer.
  -- Only the best FLOOR_WALK candidates are sorted (a bounded top-N sort); if fewer than limit of
  -- them pass, the floor is the lowest possible and every candidate is scored.
  SELECT CASE WHEN count(*) < ${top}::int THEN -1 ELSE min(k.w) END - ${BONUS_MAX * UNIT} AS w FROM (
    SELECT sh.w FROM (SELECT * FROM shared ORDER BY w DESC LIMIT ${FLOOR_WALK}) sh
     WHERE (SELECT true FROM entities c WHERE c.id = sh.id AND ${eligible}) LIMIT ${top}::int
  ) k
), scored AS (
  SELECT c.id, c.name, c.hq_country, c.hq_city, c.launch_year, sh.w AS shared,
         CASE WHEN c.hq_country = '' OR c.hq_country <> src.hq_country THEN 0
              WHEN c.hq_city <> '' AND c.hq_city = src.hq_city THEN ${LOCATION_WEIGHT.city * UNIT} ELSE ${LOCATION_WEIGHT.country * UNIT} END AS loc,
         round(greatest(0, 1 - abs(c.launch_year - src.launch_year) / ${LAUNCH_YEAR_SPAN}.0) * ${UNIT})::int AS yr
    FROM (SELECT * FROM shared sh WHERE sh.w >= (SELECT floor.w FROM floor)) sh
    CROSS JOIN src
    CROSS JOIN LATERAL (SELECT c.* FROM entities c WHERE c.id = sh.id AND ${eligible} OFFSET 0) c
), best AS (
  SELECT s.*, s.shared + s.loc + coalesce(s.yr, 0) AS score FROM scored s ORDER BY score DESC, s.id LIMIT ${top}::int
)
SELECT (SELECT count(*) FROM src)::int AS found,
  (SELECT coalesce(json_agg(json_build_object('id', b.id, 'name', b.name, 'score', ${units('b.score')}, 'reasons', ${reasons()})
     ORDER BY b.score DESC, b.id), '[]'::json) FROM best b CROSS JOIN src)::text AS rows`;
  return { sql, params: statement.params };
}

/** The reasons of candidate `b` against `src`, strongest first: they sum to its score. */
function reasons(): string {
  const shares = `
    SELECT s.kind, s.detail, s.w FROM sig s
     WHERE (s.kind = 'tag' AND EXISTS (SELECT 1 FROM entity_tags x WHERE x.entity_id = b.id AND x.tag_id = s.ref))
        OR (s.kind = 'investor' AND EXISTS (SELECT 1 FROM funding_rounds r JOIN round_investors ri ON ri.round_id = r.id
                                             WHERE r.entity_id = b.id AND ri.investor_id = s.ref))
    UNION ALL
    SELECT 'location', CASE WHEN b.loc = ${LOCATION_WEIGHT.city * UNIT} THEN 'same city: ' || b.hq_city || ', ' || b.hq_country
                            ELSE 'same country: ' || b.hq_country END, b.loc WHERE b.loc > 0
    UNION ALL
    SELECT 'launch_year', CASE WHEN b.launch_year = src.launch_year THEN 'launched ' || b.launch_year || ', the same year'
                               ELSE 'launched ' || b.launch_year || ', ' || abs(b.launch_year - src.launch_year) || ' year'
                                    || CASE WHEN abs(b.launch_year - src.launch_year) = 1 THEN '' ELSE 's' END || ' apart' END,
           b.yr WHERE b.yr > 0`;
  return `(SELECT json_agg(json_build_object('kind', g.kind, 'detail', g.detail, 'weight', ${units('g.w')}) ORDER BY g.w DESC, g.kind, g.detail)
     FROM (${shares}) g)`;
}
