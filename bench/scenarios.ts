/**
 * The benchmark scenarios: for each, the request our server gets and the one statement the physical
 * limit runs to produce the same records (the whole body built by PostgreSQL: the least a server can do).
 */
export interface Scenario {
  name: string;
  /** Request to our server. */
  ours: { method: 'GET' | 'POST'; path: string; body?: string };
  /** Path on the physical-limit server (bench/physical-limit-server.ts serves exactly these). */
  limit: string;
  /** The same query in PostGraphile's schema, for the optional peer (BENCH_POSTGRAPHILE_URL). */
  peer?: string;
}

export const LIST_FILTER = 'and(launch_year[gte]:2010,is_company:true)';

/**
 * The records' JSON exactly as our compiled statements have PostgreSQL write it (src/compile; the
 * bench checks that both servers answer the same records, byte for byte), so the limit and we ask
 * PostgreSQL for the same work.
 */
const UTC = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const jsonArray = (element: string, order: string, from: string) =>
  `(SELECT coalesce('[' || string_agg((${element})::text, ',' ORDER BY ${order}) || ']', '[]')::json ${from})`;
const object = (columns: string) => `(SELECT row_to_json(o) FROM (SELECT ${columns}) o)`;

const ENTITY_JSON = object(`r.id, r.uuid, r.type, r.is_company, r.is_investor, r.is_university, r.is_crowdfunding,
  r.is_government, r.is_non_profit, r.is_founder, r.name, r.tagline, r.image, r.platform_url, r.website,
  ${jsonArray(object('x.source, x.external_id AS id'), 'x.source, x.external_id', 'FROM entity_external_ids x WHERE x.entity_id = r.id')} AS external_ids,
  r.launch_year, r.hq_country,
  r.hq_city, r.lat, r.lon, ${UTC('r.created_at')} AS created_at, ${UTC('r.updated_at')} AS updated_at, ${UTC('r.deleted_at')} AS deleted_at,
  ${jsonArray(object('t2.id, t2.name, t2.type'), 't1.tag_id', 'FROM entity_tags t1 JOIN tags t2 ON t2.id = t1.tag_id WHERE t1.entity_id = r.id')} AS tags,
  ${jsonArray(object('t4.id, t4.name, t4.image, t4.platform_url'), 't3.founder_id',
    'FROM founder_companies t3 JOIN founders t4 ON t4.id = t3.founder_id WHERE t3.entity_id = r.id AND t3.is_founder = $1')} AS founders`);

const FLAT_JSON = object('r.id, r.name, r.tagline, r.hq_country, r.hq_city, r.launch_year, r.is_company, r.total_funding_usd, r.platform_url, r.image');

const NESTED_JSON = object(`r.name, ${jsonArray(
  object(`t2.name, ${jsonArray(
    object(`(SELECT ${object('t4.name')} FROM entities t4 WHERE t4.id = t3.entity_id LIMIT 1) AS entity`),
    't3.id',
    'FROM founder_companies t3 WHERE t3.founder_id = t2.id',
  )} AS companies`),
  't1.founder_id',
  'FROM founder_companies t1 JOIN founders t2 ON t2.id = t1.founder_id WHERE t1.entity_id = r.id AND t1.is_founder = $1',
)} AS founders`);

/**
 * A page of 25 (one row more is read to know whether a next page exists, as ours does), its JSON
 * written whole by PostgreSQL: `prefix` rows `suffix`. `cursor` is the next page's position when there is one.
 */
function page(row: string, pageSql: string, order: string, prefix: string, suffix: (next: string) => string): string {
  return `SELECT '${prefix}' || coalesce(string_agg(q.j, ',' ORDER BY q.n) FILTER (WHERE q.n <= 25), '') || ${suffix(
    `CASE WHEN count(*) > 25 THEN to_json(max(q.cursor) FILTER (WHERE q.n = 25))::text ELSE 'null' END`,
  )} AS body
  FROM (SELECT ${row}::text AS j, p.cursor, row_number() OVER (ORDER BY ${order}) AS n
        FROM (${pageSql}) p JOIN entities r ON r.id = p.id) q`;
}

/**
 * The physical limit's statements (bench/physical-limit-server.ts): each response body, whole, as
 * the one text value of one named statement, with the parameters ours binds and the page's LIMIT
 * written into the text as ours writes it (so both are planned once per session).
 */
export const LIMIT_SQL = {
  list: {
    text: page(
      ENTITY_JSON,
      `SELECT r.id, r.total_funding_usd AS k0, r.id AS k1, r.total_funding_usd::text || ',' || r.id AS cursor FROM entities r
       WHERE ((r.launch_year >= $2 AND r.is_company = $3) AND r.deleted_at IS NULL) ORDER BY r.total_funding_usd DESC, r.id ASC LIMIT 26`,
      'p.k0 DESC, p.k1 ASC',
      '{"data":[',
      (next) => `'],"page":{"limit":25,"offset":0,"next_cursor":' || ${next} || '}}'`,
    ),
    values: [true, 2010, true],
  },
  byId: {
    text: `SELECT '{"data":' || ${ENTITY_JSON}::text || '}' AS body FROM entities r WHERE (r.id = $2 AND r.deleted_at IS NULL) ORDER BY r.id LIMIT 1`,
    values: [true],
  },
  nested: {
    text: page(
      NESTED_JSON,
      'SELECT r.id, r.id AS k0, r.id::text AS cursor FROM entities r WHERE r.deleted_at IS NULL ORDER BY r.id ASC LIMIT 26',
      'p.k0 ASC',
      '{"data":{"entities":{"data":[',
      () => `']}}}'`,
    ),
    values: [true],
  },
  flat: {
    text: page(
      FLAT_JSON,
      'SELECT r.id, r.id AS k0, r.id::text AS cursor FROM entities r WHERE r.deleted_at IS NULL ORDER BY r.id ASC LIMIT 26',
      'p.k0 ASC',
      '{"data":{"entities":{"data":[',
      () => `']}}}'`,
    ),
    values: [],
  },
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
      limit: '/list',
    },
    { name: 'REST entity by id', ours: { method: 'GET', path: `/api/entities/${id}` }, limit: `/entities/${id}` },
    {
      name: 'GraphQL 3-level nested',
      ours: { method: 'POST', path: '/graphql', body: JSON.stringify({ query: NESTED_QUERY }) },
      limit: '/nested',
      peer: PEER_NESTED_QUERY,
    },
    {
      name: 'GraphQL flat, 25 × 10',
      ours: { method: 'POST', path: '/graphql', body: JSON.stringify({ query: FLAT_QUERY }) },
      limit: '/flat',
      peer: PEER_FLAT_QUERY,
    },
  ];
}
