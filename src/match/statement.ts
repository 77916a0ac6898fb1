/**
 * One statement per batch finds every record's candidates: entities with the record's normalised
 * domain, with its external id, with its normalised name (the `search_name` column, written by the
 * database's search_text(), which normalises the record's name in the same statement), and, only
 * for names with no exact hit, the entities of the closest names by trigram similarity
 * (match_fuzzy_candidates(): pg_trgm's GIN index over the list of distinct names, then the name's btree).
 * Each candidate row carries what scoring compares (src/match/score.ts).
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
  /** search_name equals the record's normalised name. */
  same_name: boolean;
  /** 0..1: the better of trigram similarity and 1 - edit distance / length, of the normalised names. */
  name_score: number;
  /** The candidate's ids of the record's external id source (null when the record gave none). */
  source_ids: string[] | null;
}

/** Candidates per record and way of finding them: enough to see that a name is shared, few enough to stay cheap. */
const PER_WAY = 6;

function matchStatement(trgm: string, fuzzy: string): string {
  const live = 'e.deleted_at IS NULL';
  return `WITH r AS (
    SELECT i.idx, nullif(search_text(i.name), '') AS key, nullif(i.domain, '') AS domain, nullif(i.src, '') AS src, i.xid
      FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[]) AS i(idx, name, domain, src, xid)
  ), found AS (
    SELECT r.idx, c.id FROM r CROSS JOIN LATERAL (
      SELECT e.id FROM entities e WHERE r.domain IS NOT NULL AND e.website_domain = r.domain AND ${live} ORDER BY e.id LIMIT ${PER_WAY}) c
    UNION
    SELECT r.idx, c.entity_id FROM r CROSS JOIN LATERAL (
      SELECT x.entity_id FROM entity_external_ids x JOIN entities e ON e.id = x.entity_id
       WHERE r.src IS NOT NULL AND x.source = r.src AND x.external_id = r.xid AND ${live} ORDER BY x.entity_id LIMIT ${PER_WAY}) c
    UNION
    SELECT r.idx, c.id FROM r CROSS JOIN LATERAL (
      SELECT e.id FROM entities e WHERE r.key IS NOT NULL AND (e.search_name COLLATE "C") = r.key AND ${live}
       ORDER BY e.total_funding_usd DESC, e.id LIMIT ${PER_WAY}) c
    UNION
    -- Similar names only for a name with no exact hit (a function of the match_fuzzy_names migration).
    -- The condition names only r, so it gates the function scan (a one-time filter per record).
    SELECT r.idx, c.id FROM r CROSS JOIN LATERAL (
      SELECT m.id FROM match_fuzzy_candidates(r.key, ${PER_WAY}) m
       WHERE r.key IS NOT NULL
         AND NOT EXISTS (SELECT 1 FROM entities s WHERE (s.search_name COLLATE "C") = r.key AND s.deleted_at IS NULL)) c
  )
  SELECT f.idx, e.id, e.name, e.website, e.website_domain, e.hq_country, e.hq_city, e.launch_year,
         coalesce(e.search_name = r.key, false) AS same_name,
         CASE WHEN r.key IS NULL THEN 0 ELSE greatest(${trgm}.similarity(e.search_name, r.key),
           1 - ${fuzzy}.levenshtein(left(e.search_name, 255), left(r.key, 255))::float8 / greatest(length(e.search_name), length(r.key), 1)) END::float8 AS name_score,
         CASE WHEN r.src IS NULL THEN NULL ELSE
           ARRAY(SELECT x.external_id FROM entity_external_ids x WHERE x.entity_id = e.id AND x.source = r.src ORDER BY x.external_id) END AS source_ids
    FROM found f JOIN r ON r.idx = f.idx JOIN entities e ON e.id = f.id
   ORDER BY f.idx, e.id`;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const schemasOf = new WeakMap<object, Promise<{ trgm: string; fuzzy: string }>>();

/** Where pg_trgm and fuzzystrmatch live (tests' schemas do not have them on their search path). */
function extensionSchemas(sql: Pick<SqlClient, 'prepared'>): Promise<{ trgm: string; fuzzy: string }> {
  let found = schemasOf.get(sql);
  if (!found) {
    found = sql
      .prepared<{ extname: string; schema: string }>(
        `SELECT e.extname, n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
          WHERE e.extname IN ('pg_trgm', 'fuzzystrmatch')`,
        [],
      )
      .then((rows) => {
        const of = (name: string) => quote(rows.find((row) => row.extname === name)?.schema ?? 'public');
        return { trgm: of('pg_trgm'), fuzzy: of('fuzzystrmatch') };
      });
    found.catch(() => schemasOf.delete(sql));
    schemasOf.set(sql, found);
  }
  return found;
}

export async function findCandidates(sql: Pick<SqlClient, 'prepared'>, records: readonly MatchRecord[], signal?: CancelSignal): Promise<CandidateRow[]> {
  const { trgm, fuzzy } = await extensionSchemas(sql);
  const params = [
    records.map((_, index) => index),
    records.map((record) => record.name),
    records.map((record) => record.domain),
    records.map((record) => record.external_id?.source ?? ''),
    records.map((record) => record.external_id?.id ?? ''),
  ];
  const rows = await sql.prepared<CandidateRow>(matchStatement(trgm, fuzzy), params, signal);
  return rows.map((row) => ({ ...row, idx: Number(row.idx), id: Number(row.id), name_score: Number(row.name_score) }));
}
