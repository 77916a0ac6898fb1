/**
 * The benchmark scenarios: for each, the request our server gets and the SQL the raw-pg baseline
 * runs to produce the same records (one statement, JSON built in PostgreSQL: the fastest honest way).
 */
export interface Scenario {
  name: string;
  /** Request to our server. */
  ours: { method: 'GET' | 'POST'; path: string; body?: string };
  /** Path on the baseline server (bench/baseline-server.ts serves exactly these). */
  baseline: string;
  /** The same query in PostGraphile's schema, for the optional peer (BENCH_POSTGRAPHILE_URL). */
  peer?: string;
}

export const LIST_FILTER = 'and(launch_year[gte]:2010,is_company:true)';

const TAGS_JSON = `(SELECT coalesce(json_agg(json_build_object('id', t.id, 'name', t.name, 'type', t.type) ORDER BY t.id), '[]')
   FROM entity_tags et JOIN tags t ON t.id = et.tag_id WHERE et.entity_id = e.id)`;
const FOUNDERS_JSON = `(SELECT coalesce(json_agg(json_build_object('id', f.id, 'name', f.name, 'image', f.image, 'platform_url', f.platform_url) ORDER BY f.id), '[]')
   FROM founder_companies fc JOIN founders f ON f.id = fc.founder_id WHERE fc.entity_id = e.id AND fc.is_founder)`;
const ENTITY_COLUMNS = `e.id, e.uuid, e.type, e.is_company, e.is_investor, e.is_university, e.is_crowdfunding, e.is_government,
  e.is_non_profit, e.is_founder, e.name, e.tagline, e.image, e.platform_url, e.launch_year, e.hq_country, e.hq_city,
  e.lat, e.lon, e.created_at, e.updated_at, e.deleted_at`;

const FLAT_COLUMNS = `e.id, e.name, e.tagline, e.hq_country, e.hq_city, e.launch_year, e.is_company,
  e.total_funding_usd, e.platform_url, e.image`;

export const BASELINE_SQL = {
  list: `SELECT ${ENTITY_COLUMNS}, ${TAGS_JSON} AS tags, ${FOUNDERS_JSON} AS founders
    FROM entities e
    WHERE e.deleted_at IS NULL AND e.launch_year >= 2010 AND e.is_company
    ORDER BY e.total_funding_usd DESC, e.id ASC LIMIT 26`,
  byId: `SELECT ${ENTITY_COLUMNS}, ${TAGS_JSON} AS tags, ${FOUNDERS_JSON} AS founders
    FROM entities e WHERE e.id = $1 AND e.deleted_at IS NULL`,
  nested: `SELECT e.name, (
      SELECT coalesce(json_agg(json_build_object('name', f.name, 'companies', (
        SELECT coalesce(json_agg(json_build_object('entity', json_build_object('name', c.name)) ORDER BY fc2.id), '[]')
        FROM founder_companies fc2 JOIN entities c ON c.id = fc2.entity_id WHERE fc2.founder_id = f.id
      )) ORDER BY f.id), '[]')
      FROM founder_companies fc JOIN founders f ON f.id = fc.founder_id WHERE fc.entity_id = e.id AND fc.is_founder
    ) AS founders
    FROM entities e WHERE e.deleted_at IS NULL ORDER BY e.id LIMIT 26`,
  flat: `SELECT ${FLAT_COLUMNS} FROM entities e WHERE e.deleted_at IS NULL ORDER BY e.id LIMIT 26`,
} as const;

export const NESTED_QUERY =
  '{ entities(limit: 25) { data { name founders { name companies { entity { name } } } } } }';

/** The nested query in PostGraphile v5's default (amber) schema: the same records in the same order. */
export const PEER_NESTED_QUERY = `{ allEntities(first: 25, orderBy: PRIMARY_KEY_ASC, condition: {deletedAt: null}) { nodes {
  name
  founderCompaniesByEntityId(filter: {isFounder: {equalTo: true}}, orderBy: FOUNDER_ID_ASC) { nodes { founderByFounderId {
    name founderCompaniesByFounderId(orderBy: PRIMARY_KEY_ASC) { nodes { entityByEntityId { name } } }
  } } }
} } }`;

export const FLAT_QUERY =
  '{ entities(limit: 25) { data { id name tagline hq_country hq_city launch_year is_company total_funding_usd platform_url image } } }';

export const PEER_FLAT_QUERY = `{ allEntities(first: 25, orderBy: PRIMARY_KEY_ASC, condition: {deletedAt: null}) { nodes {
  rowId name tagline hqCountry hqCity launchYear isCompany totalFundingUsd platformUrl image
} } }`;

export function scenarios(sampleIds: number[]): Scenario[] {
  const id = sampleIds[Math.floor(sampleIds.length / 2)]!;
  return [
    {
      name: 'REST list, filter + sort',
      ours: { method: 'GET', path: `/api/entities?filter=${encodeURIComponent(LIST_FILTER)}&sort=-total_funding_usd&limit=25` },
      baseline: '/list',
    },
    { name: 'REST entity by id', ours: { method: 'GET', path: `/api/entities/${id}` }, baseline: `/entities/${id}` },
    {
      name: 'GraphQL 3-level nested',
      ours: { method: 'POST', path: '/graphql', body: JSON.stringify({ query: NESTED_QUERY }) },
      baseline: '/nested',
      peer: PEER_NESTED_QUERY,
    },
    {
      name: 'GraphQL flat, 25 × 10',
      ours: { method: 'POST', path: '/graphql', body: JSON.stringify({ query: FLAT_QUERY }) },
      baseline: '/flat',
      peer: PEER_FLAT_QUERY,
    },
  ];
}
