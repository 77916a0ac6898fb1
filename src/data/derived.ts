/**
 * Columns that summarise other rows, recomputed from the rows themselves after every import and seed
 * (never trusted from files):
 * - entities.total_funding_usd: sum of the entity's rounds (acquisitions excluded: that money goes to
 *   the sellers), entities.is_unicorn: a valuation, or a round's valuation_usd, of $1B or more;
 * - investors.*: per investor over the rounds it joined (acquisitions excluded): investments_count,
 *   lead_investments_count, portfolio_count (distinct companies), exits_count (portfolio companies with an
 *   acquisition or IPO round), total_invested_usd (each round's amount split evenly among its investors);
 * - investor profiles and entities.is_investor agree: a flagged entity gets a profile and vice versa;
 * - locations.entity_count: entities (not deleted) with the location as HQ country or city;
 * - tags.entity_count and entity_stats.active_entities: entities (not deleted) carrying each tag, and
 *   all of them: how rare a tag is, for the similar-companies score (docs/finding-companies.md, "Similar companies");
 * - entity_name_word_counts and match_statistics: how often entities carry each name word and share a
 *   value, what matching's u probabilities are made of (match_statistics_refresh(), the match_linkage
 *   migration; docs/finding-companies.md, "Matching a CRM export").
 * Each UPDATE touches only rows whose value changes, so a no-op recompute writes nothing.
 */
import type { SqlTx } from './sql/unnest.ts';

const SYNC_INVESTOR_PROFILES = `
INSERT INTO investors (id)
SELECT e.id FROM entities e WHERE e.is_investor AND NOT EXISTS (SELECT 1 FROM investors i WHERE i.id = e.id);
UPDATE entities e SET is_investor = true FROM investors i WHERE i.id = e.id AND NOT e.is_investor;`;

const ENTITY_TOTALS = `
WITH funding AS (
  SELECT entity_id, SUM(amount_usd)::bigint AS total FROM funding_rounds
   WHERE round_type <> 'acquisition' AND amount_usd IS NOT NULL GROUP BY entity_id
), unicorns AS (
  SELECT entity_id FROM valuations WHERE valuation_usd >= 1000000000
  UNION SELECT entity_id FROM funding_rounds WHERE valuation_usd >= 1000000000
), target AS (
  SELECT e.id, COALESCE(f.total, 0) AS total, (u.entity_id IS NOT NULL) AS unicorn
    FROM entities e LEFT JOIN funding f ON f.entity_id = e.id LEFT JOIN unicorns u ON u.entity_id = e.id
)
UPDATE entities e SET total_funding_usd = t.total, is_unicorn = t.unicorn
  FROM target t
 WHERE t.id = e.id AND (e.total_funding_usd, e.is_unicorn) IS DISTINCT FROM (t.total, t.unicorn);`;

const INVESTOR_STATS = `
WITH participation AS (
  SELECT ri.investor_id, ri.is_lead, r.entity_id,
         r.amount_usd / COUNT(*) OVER (PARTITION BY r.id) AS share
    FROM round_investors ri JOIN funding_rounds r ON r.id = ri.round_id
   WHERE r.round_type <> 'acquisition'
), exited AS (
  SELECT DISTINCT entity_id FROM funding_rounds WHERE round_type IN ('acquisition', 'ipo')
), stats AS (
  SELECT p.investor_id,
         COALESCE(SUM(p.share), 0)::bigint AS total,
         COUNT(*)::int AS investments,
         COUNT(DISTINCT p.entity_id)::int AS portfolio,
         COUNT(DISTINCT p.entity_id) FILTER (WHERE x.entity_id IS NOT NULL)::int AS exits,
         COUNT(*) FILTER (WHERE p.is_lead)::int AS leads
    FROM participation p LEFT JOIN exited x ON x.entity_id = p.entity_id
   GROUP BY p.investor_id
), target AS (
  SELECT i.id, COALESCE(s.total, 0) AS total, COALESCE(s.investments, 0) AS investments,
         COALESCE(s.portfolio, 0) AS portfolio, COALESCE(s.exits, 0) AS exits, COALESCE(s.leads, 0) AS leads
    FROM investors i LEFT JOIN stats s ON s.investor_id = i.id
)
UPDATE investors i
   SET total_invested_usd = t.total, investments_count = t.investments, portfolio_count = t.portfolio,
       exits_count = t.exits, lead_investments_count = t.leads
  FROM target t
 WHERE t.id = i.id
   AND (i.total_invested_usd, i.investments_count, i.portfolio_count, i.exits_count, i.lead_investments_count)
       IS DISTINCT FROM (t.total, t.investments, t.portfolio, t.exits, t.leads);`;

const LOCATION_COUNTS = `
WITH uses AS (
  SELECT country_location_id AS id FROM entities WHERE deleted_at IS NULL AND country_location_id IS NOT NULL
  UNION ALL
  SELECT city_location_id FROM entities WHERE deleted_at IS NULL AND city_location_id IS NOT NULL
), target AS (
  SELECT l.id, COALESCE(c.n, 0) AS n
    FROM locations l LEFT JOIN (SELECT id, count(*)::int AS n FROM uses GROUP BY id) c ON c.id = l.id
)
UPDATE locations l SET entity_count = t.n FROM target t WHERE t.id = l.id AND l.entity_count <> t.n;`;

const SIMILARITY_COUNTS = `
WITH target AS (
  SELECT t.id, COALESCE(c.n, 0) AS n
    FROM tags t LEFT JOIN (SELECT et.tag_id, count(*)::int AS n FROM entity_tags et JOIN entities e ON e.id = et.entity_id
                            WHERE e.deleted_at IS NULL GROUP BY et.tag_id) c ON c.tag_id = t.id
)
UPDATE tags t SET entity_count = x.n FROM target x WHERE x.id = t.id AND t.entity_count <> x.n;
UPDATE entity_stats s SET active_entities = c.n FROM (SELECT count(*)::int AS n FROM entities WHERE deleted_at IS NULL) c
 WHERE s.active_entities <> c.n;`;

export async function recomputeDerived(tx: SqlTx): Promise<void> {
  await tx.exec(SYNC_INVESTOR_PROFILES);
  await tx.exec(ENTITY_TOTALS);
  await tx.exec(INVESTOR_STATS);
  await tx.exec(LOCATION_COUNTS);
  await tx.exec(SIMILARITY_COUNTS);
  await tx.exec('SELECT match_statistics_refresh()');
}

/** Tables whose SERIAL id an import or seed may fill with explicit values. */
export const SERIAL_TABLES = [
  'locations',
  'tags',
  'entities',
  'founders',
  'founder_companies',
  'founder_education',
  'backgrounds',
  'funding_rounds',
  'valuations',
  'news_articles',
] as const;

/** Moves the table's id sequence past its largest id, so the next default id is free. */
export async function bumpSequence(tx: SqlTx, table: string): Promise<void> {
  await tx.query(
    `SELECT setval(pg_get_serial_sequence($1, 'id'), COALESCE((SELECT MAX(id) FROM ${table}), 0) + 1, false)`,
    [table],
  );
}

export async function bumpSequences(tx: SqlTx): Promise<void> {
  for (const table of SERIAL_TABLES) await bumpSequence(tx, table);
}
