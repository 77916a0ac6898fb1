/**
 * One statement per batch of records (src/match/run.ts) finds each record's candidates (the blocking
 * of record linkage): entities with the record's normalised domain, with its external id, with its
 * normalised name (the `search_name` column, written by the database's search_text(), which
 * normalises the record's name in the same statement), and, only for a name with no exact hit, those
 * of the names within one edit of it or carrying its rare words (FUZZY below). Every way is an index
 * lookup with a limit, so a record costs a bounded amount whatever its name.
 *
 * Each candidate row carries what the comparisons read (src/match/compare.ts), with the frequencies
 * that weigh an agreement: of its name's words, its name, country, city, domain and external id.
 */
import type { CancelSignal, SqlClient } from '../db/client.ts';
import type { MatchRecord } from './input.ts';

export interface CandidateRow {
  idx: number;
  id: number;
  name: string;
  website: string;
  website_domain: string;
  hq_country: string;
  hq_city: string;
  launch_year: number | null;
  /** The candidate's normalised name, and the record's (of its first NAME_CHARACTERS characters; "" for none). */
  search_name: string;
  key: string;
  /** Entities carrying each word of search_name, and of key, in order (0 for a word no entity has). */
  word_counts: number[];
  key_word_counts: number[];
  /** Live entities with the candidate's normalised name, country, city, and the record's domain and id. */
  name_count: number;
  country_count: number;
  city_count: number;
  domain_count: number;
  id_count: number;
  /** The candidate's ids of the record's external id source (null when the record gave none). */
  source_ids: string[] | null;
}

/** Candidates per record and way of finding them: enough to see that a name is shared, few enough to stay cheap. */
const PER_WAY = 6;
/** A name is read up to here, and its rare words looked for among its first NAME_WORDS: a longer one costs more and tells no more. */
export const NAME_CHARACTERS = 200;
export const NAME_WORDS = 10;
/** Counts that weigh an agreement stop here: a value this common already says almost nothing. */
const COUNT_CAP = 1000;

const capped = (from: string) => `(SELECT count(*)::int FROM (${from} LIMIT ${COUNT_CAP}) n)`;
// A lookup per word (an index probe each), not a join the planner may turn into a scan of all the words per row.
const wordCounts = (name: string) =>
  `ARRAY(SELECT coalesce((SELECT c.entities FROM entity_name_word_counts c WHERE c.word = w.word), 0)
           FROM unnest(string_to_array(${name}, ' ')) WITH ORDINALITY w(word, n) ORDER BY w.n)`;

/**
 * A record's fuzzy candidates, for a name with no exact hit: the names within one edit of it (they
 * share one of its variants, the match_linkage migration's symmetric-deletion index) first, then the
 * names carrying its rarest words (up to three words, each on at most 20 entities by the derived
 * counts: a common word finds too much to say anything), those with more of them and rarer ones
 * first; their live entities, each name's most funded first. Every step is an index lookup with a
 * limit: a record costs at most 33 variant probes, one count probe per word, three word lists of at
 * most 21 names, and FUZZY_NAMES names' entity reads.
 */
const FUZZY_NAMES = PER_WAY + 2;
const FUZZY = `
      WITH near AS (
        SELECT DISTINCT v.name FROM match_name_variants(r.key) p
         CROSS JOIN LATERAL (SELECT l.name FROM entity_name_variants l WHERE l.variant = p LIMIT ${FUZZY_NAMES}) v
      ), rare AS (
        SELECT c.word, c.entities FROM (SELECT DISTINCT word FROM unnest((string_to_array(r.key, ' '))[1:${NAME_WORDS}]) word) k
          JOIN entity_name_word_counts c ON c.word = k.word
         WHERE c.entities <= 20
         ORDER BY c.entities, c.word LIMIT 3
      ), names AS (
        SELECT name, 0 AS tier, 0 AS words, 0 AS carriers FROM near
        UNION ALL
        SELECT x.name, 1, -count(*), sum(rare.entities) FROM rare
         CROSS JOIN LATERAL (SELECT DISTINCT l.name FROM entity_name_words l WHERE l.word = rare.word LIMIT 21) x GROUP BY x.name
      ), chosen AS (
        SELECT name, row_number() OVER (ORDER BY tier, words, carriers, abs(length(name) - length(r.key)), name) AS rank
          FROM (SELECT DISTINCT ON (name) name, tier, words, carriers FROM names ORDER BY name, tier) ranked
         ORDER BY rank LIMIT ${FUZZY_NAMES}
      )
      SELECT e.id FROM chosen s CROSS JOIN LATERAL (
        SELECT e.id, e.total_funding_usd FROM entities e
         WHERE (e.search_name COLLATE "C") = s.name AND e.deleted_at IS NULL
         ORDER BY e.total_funding_usd DESC, e.id LIMIT ${FUZZY_NAMES}) e
       ORDER BY s.rank, e.total_funding_usd DESC, e.id
       LIMIT ${FUZZY_NAMES}`;

const STATEMENT = `WITH r AS (
    SELECT i.idx, nullif(search_text(left(i.name, ${NAME_CHARACTERS})), '') AS key,
           nullif(i.domain, '') AS domain, nullif(i.src, '') AS src, i.xid
      FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[]) AS i(idx, name, domain, src, xid)
  ), exact AS (
    SELECT r.idx, c.id FROM r CROSS JOIN LATERAL (
      SELECT e.id FROM entities e WHERE r.key IS NOT NULL AND (e.search_name COLLATE "C") = r.key AND e.deleted_at IS NULL
       ORDER BY e.total_funding_usd DESC, e.id LIMIT ${PER_WAY}) c
  ), found AS (
    SELECT r.idx, c.id FROM r CROSS JOIN LATERAL (
      SELECT e.id FROM entities e WHERE r.domain IS NOT NULL AND e.website_domain = r.domain AND e.deleted_at IS NULL ORDER BY e.id LIMIT ${PER_WAY}) c
    UNION
    SELECT r.idx, c.entity_id FROM r CROSS JOIN LATERAL (
      SELECT x.entity_id FROM entity_external_ids x JOIN entities e ON e.id = x.entity_id
       WHERE r.src IS NOT NULL AND x.source = r.src AND x.external_id = r.xid AND e.deleted_at IS NULL ORDER BY x.entity_id LIMIT ${PER_WAY}) c
    UNION
    SELECT idx, id FROM exact
    UNION
    SELECT r.idx, c.id FROM r CROSS JOIN LATERAL (${FUZZY}) c
     WHERE r.key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM exact WHERE exact.idx = r.idx)
  )
  SELECT f.idx, e.id, e.name, e.website, e.website_domain, e.hq_country, e.hq_city, e.launch_year,
         e.search_name, coalesce(r.key, '') AS key,
         ${wordCounts('e.search_name')} AS word_counts,
         ${wordCounts('r.key')} AS key_word_counts,
         ${capped(`SELECT 1 FROM entities s WHERE (s.search_name COLLATE "C") = e.search_name AND s.deleted_at IS NULL`)} AS name_count,
         coalesce((SELECT l.entity_count FROM locations l WHERE l.id = e.country_location_id), 0) AS country_count,
         coalesce((SELECT l.entity_count FROM locations l WHERE l.id = e.city_location_id), 0) AS city_count,
         CASE WHEN r.domain IS NULL THEN 0 ELSE
           ${capped(`SELECT 1 FROM entities s WHERE s.website_domain = r.domain AND s.deleted_at IS NULL`)} END AS domain_count,
         CASE WHEN r.src IS NULL THEN 0 ELSE
           ${capped(`SELECT 1 FROM entity_external_ids x WHERE x.source = r.src AND x.external_id = r.xid`)} END AS id_count,
         CASE WHEN r.src IS NULL THEN NULL ELSE
           ARRAY(SELECT x.external_id FROM entity_external_ids x WHERE x.entity_id = e.id AND x.source = r.src ORDER BY x.external_id) END AS source_ids
    -- Each candidate's row by its key (OFFSET 0 keeps the planner from hashing the whole table to join a few).
    FROM found f JOIN r ON r.idx = f.idx CROSS JOIN LATERAL (SELECT * FROM entities e WHERE e.id = f.id OFFSET 0) e
   ORDER BY f.idx, e.id`;

export async function findCandidates(sql: Pick<SqlClient, 'prepared'>, records: readonly MatchRecord[], signal?: CancelSignal): Promise<CandidateRow[]> {
  const params = [
    records.map((_, index) => index),
    records.map((record) => record.name),
    records.map((record) => record.domain),
    records.map((record) => record.external_id?.source ?? ''),
    records.map((record) => record.external_id?.id ?? ''),
  ];
  const rows = await sql.prepared<CandidateRow>(STATEMENT, params, signal);
  return rows.map((row) => ({ ...row, idx: Number(row.idx), id: Number(row.id) }));
}

/** The statistics the comparisons' u probabilities come from: `comparison.level` → value. */
export async function readStatistics(sql: Pick<SqlClient, 'prepared'>, signal?: CancelSignal): Promise<Map<string, number>> {
  const rows = await sql.prepared<{ comparison: string; level: string; value: number }>(
    'SELECT comparison, level, value FROM match_statistics',
    [],
    signal,
  );
  return new Map(rows.map((row) => [`${row.comparison}.${row.level}`, Number(row.value)]));
}
