/**
 * Similar companies as one SQL statement (docs/finding-companies.md, "Similar companies"). The source's signals (its tags
 * and, when the caller may read investors, its investors) each get a weight from how rare they are,
 * ln(1 + N / df), from counts kept beside the data (tags.entity_count, entity_stats.active_entities,
 * investors.portfolio_count), so no request counts them. A candidate's shared weight is the sum of the
 * weights it shares; location and launch year add at most BONUS_MAX.
 *
 * A common tag is on 85,000 of a million entities, so the statement avoids reading every carrier:
 *  1. bound: real candidates scored from below, the `limit`-th best of which is a lower bound L on
 *     the `limit`-th best score: the first `limit` eligible carriers of all the source's tags, of all
 *     of them in its city launched within a year of it, and of its rarest tags down to those expected
 *     on PILOT_SPREAD × limit entities; the best investor carriers.
 *  2. Only candidates sharing at least x = L − BONUS_MAX can reach the top. Investor carriers are few
 *     (their index entries are read, their shared weight computed); a candidate sharing no investor
 *     must carry a set of the source's tags weighing x, so the statement lists the smallest such sets
 *     and asks the GIN index of similarity_profiles for each set's carriers (`tag_ids @> set`): a
 *     common tag then only narrows. When L exceeds all the tags' weight by more than 1.5, such a
 *     candidate must also be in the source's city, launched within a year (near): a place index
 *     narrows the carriers further.
 *  3. The candidates are scored from their profiles and walked best first; rows are read (for the
 *     filter) until `limit` pass.
 * Without a bound (fewer than `limit` eligible candidates found, or more than MAX_TAGS tags), every
 * carrier is summed from the index entries as before the bound, and the floor (the limit-th best
 * eligible shared weight less BONUS_MAX) leaves the candidates whose rows are read: slower, the same answer.
 *
 *   WITH src, corpus, sig (signal, weight), st (tags, rarest first), inv/invt (investor carriers),
 *        pilot, mode (L, x, near), subsets, tagged, cand (with a bound) | shared, floor, scored (without), best
 *   SELECT found, json of the top `limit` with their reasons, how the candidates were found (plan)
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
/** Above this, location and launch year together mean the same city and launch years at most one apart. */
const NEAR_BONUS = LOCATION_WEIGHT.country + 1;
/** Sources with more tags than this are not pruned: the tag sets that reach the bound are enumerated (2^tags). */
export const MAX_TAGS = 12;

/**
 * Besides all the source's tags, the bound reads the carriers of its rarest tags expected on this many
 * times `limit` entities, so that a filter keeping one candidate in twenty still leaves `limit` of them.
 */
const PILOT_SPREAD = 50;

/** How many of the best candidates the floor's walk may read before it gives up and scores them all. */
const FLOOR_WALK = 5_000;

/** Weights are integers of this many parts of 1 inside the statement. */
const UNIT = 10_000;
const units = (value: string) => `round(${value} / ${UNIT}.0, 4)`;

export interface SimilarStatement {
  sql: string;
  params: unknown[];
}

/** How the statement found its candidates (the `plan` column): for tests and the bench, not for clients. */
export interface SimilarPlan {
  /** Whether the bound pruned (false: every carrier was summed). */
  pruned: boolean;
  /** The lower bound on the `limit`-th score, or null. */
  bound: number | null;
  /** Whether only carriers in the source's city, launched within a year of it, were listed. */
  near: boolean;
  /** Tag sets whose carriers were listed. */
  subsets: number[][];
  /** Candidates whose shared weight was computed. */
  examined: number;
}

/**
 * `where`: the filter's where input (readListRequest) over the candidate rows. `prune: false` sums
 * every carrier as the statement did before the bound (the tests compare the two answers).
 */
export function similarStatement(
  models: Models, id: number, limit: number, withInvestors: boolean, where: object, prune = true,
): SimilarStatement {
  const statement = new Statement(models);
  const inputs = { source: statement.param(id), top: statement.param(limit), investors: statement.param(withInvestors), pruning: statement.param(prune) };
  const sql = `${similarCtes(statement, inputs, where)}
SELECT (SELECT count(*) FROM src)::int AS found, ${SIMILAR_ROWS}::text AS rows,
  (SELECT json_build_object('pruned', coalesce(mode.pruned, false), 'near', mode.pruned AND mode.near, 'bound', ${units('mode.l')},
     'subsets', (SELECT coalesce(json_agg(m.tags), '[]'::json) FROM subsets m), 'examined', (SELECT count(*) FROM cand) + (SELECT count(*) FROM shared))
     FROM mode)::text AS plan`;
  return { sql, params: statement.params };
}

/** SQL expressions of the statement's inputs: the source entity's id (a parameter, or a column of an outer row), the limit, two booleans. */
export interface SimilarInputs {
  source: string;
  top: string;
  investors: string;
  pruning: string;
}

/**
 * The statement's WITH clause, up to `best` (the top `limit` companies). `source` may be a column of
 * an outer query's row: the clause is then a correlated subquery, evaluated per row of a list
 * (src/compile/similar-select.ts), so a list's similar companies are one statement.
 */
export function similarCtes(statement: Statement, { source, top, investors, pruning }: SimilarInputs, where: object): string {
  // Candidates are live companies other than the source, narrowed by the client's filter.
  const liveOnly = onlyLiveness(where);
  const eligible = `c.deleted_at IS NULL AND c.is_company AND c.id <> ${source}::int AND ${whereSql(statement, statement.model('Entity'), 'c', where)}`;
  // Weights are summed in units of 1e-4 as integers: exact (reasons add up to the score to the last
  // digit, equal sums tie and fall to the id) and cheaper to add up over many candidates than numerics.
  const w = (df: string) => `round(ln(1 + corpus.n / greatest(${df}, 1)) * ${UNIT})::int`;
  const loc = `CASE WHEN c.hq_country = '' OR c.hq_country <> src.hq_country THEN 0
              WHEN c.hq_city <> '' AND c.hq_city = src.hq_city THEN ${LOCATION_WEIGHT.city * UNIT} ELSE ${LOCATION_WEIGHT.country * UNIT} END`;
  const yr = `round(greatest(0, 1 - abs(c.launch_year - src.launch_year) / ${LAUNCH_YEAR_SPAN}.0) * ${UNIT})::int`;
  // The first `limit` eligible carriers that `where(profile)` selects, with their tags and bonus: from the
  // profiles alone when the client filters nothing (they say whether an entity is a live company).
  const carriers = (where: (p: string) => string) =>
    liveOnly
      ? `SELECT c.entity_id AS id, c.tag_ids, ${loc} AS loc, ${yr} AS yr FROM similarity_profiles c CROSS JOIN src
          WHERE ${where('c')} AND c.live AND c.is_company AND c.entity_id <> ${source}::int LIMIT ${top}::int`
      : `SELECT c.id, ts.tag_ids, ${loc} AS loc, ${yr} AS yr FROM similarity_profiles ts JOIN entities c ON c.id = ts.entity_id
          CROSS JOIN src WHERE ${where('ts')} AND ${eligible} LIMIT ${top}::int`;
  // Profiles in the source's city (location weight 1) launched at most a year apart from it.
  const near = (p: string) => `${p}.hq_country = src.hq_country AND ${p}.hq_country <> '' AND ${p}.hq_city = src.hq_city AND ${p}.hq_city <> ''
         AND ${p}.launch_year BETWEEN src.launch_year - 1 AND src.launch_year + 1`;
  // The weight of the source's tags among `tags` (a similarity_profiles array).
  const tagShare = (tags: string) => `coalesce((SELECT sum(q.w) FROM st q WHERE q.ref = ANY ((${tags})::int[])), 0)`;
  return `WITH src AS (
  SELECT e.id, e.hq_country, e.hq_city, e.launch_year FROM entities e WHERE e.id = ${source}::int AND e.deleted_at IS NULL
), corpus AS (
  SELECT greatest(max(s.active_entities), 1)::float8 AS n FROM entity_stats s
), sig AS (
  SELECT 'tag'::text AS kind, t.id AS ref, t.name AS detail, ${w('t.entity_count')} AS w, t.entity_count AS df
    FROM src JOIN entity_tags st ON st.entity_id = src.id JOIN tags t ON t.id = st.tag_id CROSS JOIN corpus
  UNION ALL
  SELECT 'investor', i.id, ie.name, ${w('i.portfolio_count')}, i.portfolio_count
    FROM (SELECT DISTINCT ri.investor_id FROM src JOIN funding_rounds r ON r.entity_id = src.id
            JOIN round_investors ri ON ri.round_id = r.id WHERE ${investors}::boolean) si
    JOIN investors i ON i.id = si.investor_id JOIN entities ie ON ie.id = i.id AND ie.deleted_at IS NULL CROSS JOIN corpus
), st AS MATERIALIZED (
  -- The source's tags rarest first; \`carriers\`: how many entities carry this tag and all rarer ones,
  -- were tags independent (an estimate, only used to choose which sets the bound reads).
  SELECT s.ref, s.w, (row_number() OVER o - 1)::int AS k, corpus.n * exp(sum(ln(greatest(s.df, 1) / corpus.n)) OVER o) AS carriers
    FROM sig s CROSS JOIN corpus WHERE s.kind = 'tag' WINDOW o AS (ORDER BY s.w DESC, s.ref)
), inv AS MATERIALIZED (
  SELECT b.id, sum(s.w)::int AS w FROM sig s CROSS JOIN LATERAL (
    SELECT DISTINCT r.entity_id AS id FROM round_investors ri JOIN funding_rounds r ON r.id = ri.round_id WHERE ri.investor_id = s.ref
  ) b WHERE s.kind = 'investor' GROUP BY b.id
), invt AS MATERIALIZED (
  -- Investor carriers are few (an investor backs a few hundred companies): their shared weight, tags
  -- included, is computed for all of them.
  SELECT i.id, i.w + ${tagShare('(SELECT ts.tag_ids FROM similarity_profiles ts WHERE ts.entity_id = i.id)')} AS w FROM inv i
), pilot AS (
  -- Real candidates scored from below (investors left out of the tag carriers' scores): any
  -- limit of them bound the limit-th best score from below, whichever they are. The sets read go
  -- from all the source's tags down to its rarest tags expected on PILOT_SPREAD × limit entities.
  SELECT p.id, max(p.score) AS score FROM (
    SELECT c.id, ${tagShare('c.tag_ids')} + c.loc + coalesce(c.yr, 0) AS score
      FROM (SELECT l.k, (SELECT array_agg(x.ref) FROM st x WHERE x.k <= l.k) AS tags FROM st l
             WHERE l.k >= coalesce((SELECT max(x.k) FROM st x WHERE x.carriers >= ${PILOT_SPREAD} * ${top}::int), 0)) l
      CROSS JOIN LATERAL (
        -- The planner cannot know how many carry a set only known at run time; the test repeated
        -- (not indexable) makes it expect few, so it takes the GIN index over a scan of every set.
        ${carriers((p) => `${p}.tag_ids @> l.tags AND (${p}.tag_ids @> l.tags) IS TRUE`)}
      ) c
    UNION ALL
    (SELECT c.id, i.w + c.loc + coalesce(c.yr, 0)
      FROM (SELECT * FROM invt ORDER BY w DESC LIMIT ${FLOOR_WALK}) i
      CROSS JOIN LATERAL (SELECT c.id, ${loc} AS loc, ${yr} AS yr FROM entities c CROSS JOIN src WHERE c.id = i.id AND ${eligible} OFFSET 0) c
     LIMIT ${top}::int)
    UNION ALL
    -- Carriers of all the source's tags in its city, launched within a year of it: when there are
    -- enough, the bound says only such candidates can reach the top (near, below).
    -- Worth reading only when all the tags' carriers are many.
    (SELECT c.id, ${tagShare('c.tag_ids')} + c.loc + coalesce(c.yr, 0) FROM src CROSS JOIN LATERAL (
       ${carriers((p) => `${p}.tag_ids @> (SELECT array_agg(x.ref) FROM st x) AND ${near(p)}`)}
     ) c WHERE (SELECT min(x.carriers) FROM st x) >= ${PILOT_SPREAD} * ${top}::int)
  ) p GROUP BY p.id
), mode AS (
  -- near: a candidate sharing no investor shares at most all the source's tags, so it needs location
  -- and launch year to add more than 1.5 (the same city, launch years at most one apart).
  SELECT ${pruning}::boolean AND b.l IS NOT NULL AND b.l > ${BONUS_MAX * UNIT} AND (SELECT count(*) FROM st) <= ${MAX_TAGS} AS pruned, b.l, b.l - ${BONUS_MAX * UNIT} AS x,
         coalesce(b.l - (SELECT sum(st.w) FROM st) > ${NEAR_BONUS * UNIT}, false) AS near
    FROM (SELECT CASE WHEN count(*) < ${top}::int THEN NULL ELSE min(k.score) END AS l
            FROM (SELECT p.score FROM pilot p ORDER BY p.score DESC LIMIT ${top}::int) k) b
), subsets AS (
  -- The smallest sets of the source's tags weighing at least x: a candidate sharing no investor
  -- must carry one of them to reach the bound.
  SELECT m.tags FROM mode, (
    SELECT g.mask, array_agg(st.ref ORDER BY st.ref) AS tags, sum(st.w) AS w, min(st.w) AS least
      FROM generate_series(1, (1 << least((SELECT count(*) FROM st), ${MAX_TAGS})::int) - 1) g(mask) JOIN st ON g.mask & (1 << st.k) <> 0
     GROUP BY g.mask
  ) m WHERE mode.pruned AND m.w >= mode.x AND m.w - m.least < mode.x
), tagged AS MATERIALIZED (
  SELECT DISTINCT p.entity_id AS id, p.tag_ids, p.hq_country, p.hq_city, p.launch_year FROM subsets m CROSS JOIN src CROSS JOIN LATERAL (
    SELECT p.* FROM similarity_profiles p WHERE p.tag_ids @> m.tags AND p.live AND p.is_company AND p.entity_id <> ${source}::int
       AND ${near('p')}
  ) p WHERE (SELECT mode.near FROM mode)
  UNION
  SELECT DISTINCT p.entity_id AS id, p.tag_ids, p.hq_country, p.hq_city, p.launch_year FROM subsets m CROSS JOIN LATERAL (
    SELECT p.* FROM similarity_profiles p WHERE p.tag_ids @> m.tags AND p.live AND p.is_company AND p.entity_id <> ${source}::int
  ) p WHERE NOT (SELECT mode.near FROM mode)
), cand AS MATERIALIZED (
  -- With a bound: everyone who may reach it, scored from the profiles (investor carriers from their rows).
  SELECT k.id, k.shared, k.loc, k.yr, k.shared + k.loc + coalesce(k.yr, 0) AS score FROM (
    SELECT c.id, ${tagShare('c.tag_ids')} AS shared, ${loc} AS loc, ${yr} AS yr
      FROM tagged c CROSS JOIN src WHERE NOT EXISTS (SELECT 1 FROM inv i WHERE i.id = c.id)
    UNION ALL
    SELECT c.id, i.w, ${loc}, ${yr} FROM invt i CROSS JOIN src
      CROSS JOIN LATERAL (SELECT c.* FROM entities c WHERE c.id = i.id AND ${eligible} OFFSET 0) c
     WHERE i.w >= (SELECT mode.x FROM mode)
  ) k WHERE (SELECT mode.pruned FROM mode) AND k.shared >= (SELECT mode.x FROM mode)
), shared AS MATERIALIZED (
  -- No bound: every carrier, its shared weight summed from the index entries.
  SELECT h.id, sum(h.w)::int AS w FROM (
    SELECT et.entity_id AS id, s.w FROM st s JOIN entity_tags et ON et.tag_id = s.ref
    UNION ALL
    SELECT i.id, i.w FROM inv i
  ) h WHERE NOT (SELECT mode.pruned FROM mode) GROUP BY h.id
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
  SELECT c.id, c.name, c.hq_country, c.hq_city, c.launch_year, sh.w AS shared, ${loc} AS loc, ${yr} AS yr
    FROM (SELECT * FROM shared sh WHERE sh.w >= (SELECT floor.w FROM floor)) sh
    CROSS JOIN src
    CROSS JOIN LATERAL (SELECT c.* FROM entities c WHERE c.id = sh.id AND ${eligible} OFFSET 0) c
), best AS (
  (SELECT s.id, s.name, s.hq_country, s.hq_city, s.launch_year, s.loc, s.yr, s.shared + s.loc + coalesce(s.yr, 0) AS score
     FROM scored s ORDER BY score DESC, s.id LIMIT ${top}::int)
  UNION ALL
  -- With a bound, the candidates best first: rows are read (for the filter) until limit pass.
  (SELECT k.id, c.name, c.hq_country, c.hq_city, c.launch_year, k.loc, k.yr, k.score
     FROM (SELECT * FROM cand ORDER BY score DESC, id) k
     CROSS JOIN LATERAL (SELECT c.* FROM entities c WHERE c.id = k.id AND ${eligible} OFFSET 0) c
    ORDER BY k.score DESC, k.id LIMIT ${top}::int)
)`;
}

/** The answer's companies best first, as JSON (read after similarCtes): `[{id, name, score, reasons: [{kind, detail, weight}]}]`. */
export const SIMILAR_ROWS = `(SELECT coalesce(json_agg(json_build_object('id', b.id, 'name', b.name, 'score', ${units('b.score')}, 'reasons', ${reasons()})
     ORDER BY b.score DESC, b.id), '[]'::json) FROM best b CROSS JOIN src)`;

/** Whether a where input asks no more than that the entity is not deleted (the list's own scope). */
function onlyLiveness(where: unknown): boolean {
  if (!where || typeof where !== 'object' || Array.isArray(where)) return false;
  return Object.entries(where).every(
    ([key, value]) =>
      value === undefined ||
      (key === 'deleted_at' && value === null) ||
      (key === 'AND' && (Array.isArray(value) ? value : [value]).every(onlyLiveness)),
  );
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
