/**
 * The one statement a search runs (docs/finding-companies.md, "Search"). Names are compared as the
 * database's `search_text()` writes them (the generated `search_name` columns), and the query is
 * normalised by the same function inside the statement, so the two never disagree.
 *
 * Per kind, bounded tiers of candidates, each a few rows from an index:
 * - exact: the normalised name equals the query (btree equality), score 1;
 * - prefix: the name starts with the query (a btree range of the list of distinct names, then each
 *   name's most prominent rows), score 0.9;
 * - one edit (organisations): the names that share a spelling with the query in matching's
 *   symmetric-deletion index (the name without spaces, or with one letter deleted): spacing alone
 *   (`micro soft`, score 0.95) or one edit (`ubr` → Uber, which shares too few trigrams with it);
 * - fuzzy: trigram similarity of the whole name or of its words (GIN over the list of distinct names,
 *   then each name's rows by the btree), score 0.8 × similarity; only scanned when the prefix tier
 *   came back short of `limit`, since none of it could rank higher.
 * Within a tier the most funded come first (founders: by id); the hits are ordered by the score they
 * show, then by prominence.
 */
import type { CancelSignal, SqlClient } from '../db/client.ts';

export const SEARCH_KINDS = ['entity', 'investor', 'founder'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

export interface SearchHit {
  type: SearchKind;
  id: number;
  name: string;
  matched: string;
  score: number;
}

export interface SearchQuery {
  q: string;
  kinds: readonly SearchKind[];
  limit: number;
  /** The query read as a website's normalised domain (a domain, URL or e-mail address), else null. */
  domain: string | null;
}

/**
 * Where hits come from: organisations (entities; an investor is an entity with an investor profile,
 * so companies and investors share one scan) and founders.
 */
interface Source {
  name: 'org' | 'founder';
  /** Rows of the source, the searched one named `x`. */
  from: string;
  /** Which of them may be hits. */
  live: string;
  /** The kind a row is a hit of. */
  type: string;
  /** Larger is more prominent: money raised and invested (USD). */
  prominence: string;
  /**
   * How a tier cuts its candidates at `limit`: a stored column, since a tier may match tens of
   * thousands of rows at scale (`brigh`), and a look-up per row would cost more than the search.
   */
  cut: string;
  /** The next tie-breaker: rounds raised and portfolio companies, or companies founded. */
  count: string;
  /** The source's list of names (kept by triggers): the prefix and fuzzy tiers find names there first. */
  names: string;
  /** The function listing the names of `names` most similar to the query (the fuzzy tier's names). */
  similarNames: string;
  /** The symmetric-deletion index of the source's names (spellings one edit apart share a row), if it has one. */
  variants: string | null;
  /** The order of one name's rows in its btree, `cut`'s order: columns of `x`, each with its direction. */
  byName: string[];
}

const COMPANIES_OF_FOUNDER = 'founder_companies fc JOIN entities c ON c.id = fc.entity_id WHERE fc.founder_id = x.id AND c.deleted_at IS NULL';

/**
 * The sources of these kinds. Searched together, an organisation is one hit: an investor when it is
 * an investment firm (type `investor`), else an entity; searched alone, each kind has all of its own.
 */
function sources(kinds: readonly SearchKind[]): Source[] {
  const found: Source[] = [];
  const entities = kinds.includes('entity');
  const investors = kinds.includes('investor');
  if (entities || investors) {
    // The investor profile by correlated look-ups, not a join: the planner hashes all of investors for a join.
    const profile = (column: string) => `(SELECT i.${column} FROM investors i WHERE i.id = x.id)`;
    const invests = 'EXISTS (SELECT 1 FROM investors i WHERE i.id = x.id)';
    found.push({
      name: 'org',
      from: 'entities x',
      live: `x.deleted_at IS NULL${entities ? '' : ` AND ${invests}`}`,
      type: !investors ? `'entity'` : !entities ? `'investor'` : `CASE WHEN x.type = 'investor' AND ${invests} THEN 'investor' ELSE 'entity' END`,
      prominence: `(x.total_funding_usd + coalesce(${profile('total_invested_usd')}, 0))`,
      // `+ 0`: no index sorts by it, so the planner never walks the funding index filtering by name.
      cut: 'x.total_funding_usd + 0 DESC',
      count: `(coalesce(${profile('portfolio_count')}, 0) + (SELECT count(*) FROM funding_rounds r WHERE r.entity_id = x.id))`,
      names: 'entity_search_names',
      similarNames: 'similar_entity_names',
      variants: 'entity_name_variants',
      byName: ['total_funding_usd DESC', 'id'],
    });
  }
  if (kinds.includes('founder')) {
    found.push({
      name: 'founder',
      from: 'founders x',
      live: 'true',
      type: `'founder'`,
      prominence: `(SELECT coalesce(sum(c.total_funding_usd), 0) FROM ${COMPANIES_OF_FOUNDER})`,
      cut: 'x.id + 0',
      count: `(SELECT count(*) FROM ${COMPANIES_OF_FOUNDER})`,
      names: 'founder_search_names',
      similarNames: 'similar_founder_names',
      variants: null,
      byName: ['id'],
    });
  }
  return found;
}

/** `$1` the query, `$2` the limit, `$3` the domain (or null). The query is normalised once, in `q`. */
const T = '(SELECT t FROM q)';
/**
 * The limit and the domain, read from `q` rather than as `$2` and `$3`: a custom plan of given
 * values is then estimated as the generic plan is, so the server keeps the generic plan after five
 * searches instead of planning every search again (several milliseconds, more than a search runs).
 */
const L = '(SELECT n FROM q)';
const D = '(SELECT domain FROM q)';

/** How many fuzzy candidates per source are scored by edit distance (trigram order picks them). */
const FUZZY_POOL = 100;
/** How many names one edit from the query (or spaced otherwise) are read: the closest first. */
const VARIANT_NAMES = 40;

/** The schemas of the two extensions the statement calls (tests' schemas do not have them on their path). */
export interface ExtensionSchemas {
  trgm: string;
  fuzzy: string;
}

/**
 * A fuzzy match's quality, 0..1: the better of trigram similarity (of the whole name, or of its best
 * word run) and edit distance, to the whole name (spaced as written, or both without spaces) or, one
 * edit dearer, to its beginning (`stipe` is one edit from `stripe`, a typo trigrams alone rank below `stion`).
 */
function fuzzyQuality({ trgm, fuzzy }: ExtensionSchemas): string {
  const name = 'left(x.search_name, 255)';
  const edits = `least(${fuzzy}.levenshtein(${T}, ${name}), ${fuzzy}.levenshtein(${T}, left(${name}, length(${T}))) + 1,
                       ${fuzzy}.levenshtein(${T}, left(${name}, length(${T}) + 1)) + 1,
                       ${fuzzy}.levenshtein(replace(${T}, ' ', ''), replace(${name}, ' ', '')))`;
  const trigrams = `greatest(${trgm}.similarity(x.search_name, ${T}), ${trgm}.word_similarity(${T}, x.search_name))`;
  return `greatest(${trigrams}, 1 - ${edits}::float8 / greatest(length(${T}), 1))`;
}

/**
 * The rows of the names `names` lists (a FROM item `n` with a `name` column), each name's rows in the
 * order of its btree and at most `perName` of them, then the first `limit` of all by `first`, then
 * that order. Many rows may share a name (a seeded million: ~120 per name), and this reads a few per
 * name instead of every row that matched.
 */
function rowsOfNames(source: Source, names: string, perName: string, first: string, limit: string): string {
  const columns = source.byName.map((column) => `x.${column.split(' ')[0]!}`).join(', ');
  const within = (table: string) => source.byName.map((column) => `${table}.${column}`).join(', ');
  return `SELECT c.id FROM ${names} CROSS JOIN LATERAL (
      SELECT ${columns} FROM ${source.from}
       WHERE ${source.live} AND (x.search_name COLLATE "C") = n.name ORDER BY ${within('x')} LIMIT ${perName}) c
      ORDER BY ${first}${within('c')} LIMIT ${limit}`;
}

/**
 * The prefix tier: the names of the source's name list in the query's range (a btree range: its bounds
 * are a parameter, so a plan for any query still uses the index, where LIKE would not), then the
 * `limit` most prominent rows by `cut` of all of them.
 */
function prefixTier(source: Source): string {
  const names = `${source.names} n`;
  const range = `WHERE ${T} <> '' AND n.name >= ${T} AND n.name < ${T} || chr(1114111)`;
  return `${source.name}_prefix AS (${rowsOfNames(source, `(SELECT DISTINCT n.name FROM ${names} ${range}) n`, L, '', L)})`;
}

/**
 * The fuzzy tier, only when the prefix tier came back short: the FUZZY_POOL names of the source's
 * name list most similar to the query (the trigram index of a few thousand names, where one over the
 * rows would recheck every row of every similar name), then their rows, the most similar names' first,
 * each name's by `cut`: FUZZY_POOL rows in all.
 */
function fuzzyTier(source: Source): string {
  const of = source.name;
  // A function of the name lists migration, which keeps the planner on the trigram index.
  // Ordered here and by the same keys first below, so the rows are read name by name (an incremental
  // sort) and reading stops at FUZZY_POOL rows: the most similar name may alone fill the pool.
  const similar = `(SELECT n.name, n.similarity FROM ${source.similarNames}(${T}, ${FUZZY_POOL}) n
      WHERE ${T} <> '' AND (SELECT count(*) FROM ${of}_prefix) < ${L} ORDER BY n.similarity DESC, n.name) n`;
  return `${of}_fuzzy AS (${rowsOfNames(source, similar, String(FUZZY_POOL), 'n.similarity DESC, n.name, ', String(FUZZY_POOL))})`;
}

/**
 * The one-edit tier (a source with a variants index): the names sharing one of the query's spellings
 * (match_name_variants(): the query without spaces, and with each letter deleted; none under 3 or
 * over 32 letters), the same letters first, then by edit distance: VARIANT_NAMES names, each name's
 * most prominent rows, `limit` rows in all. At most 33 index probes, whatever the query. The
 * variants are of `q.t`, a column, not of the subquery T: only so does the planner inline the
 * function, where a call plans its body again at every search (milliseconds).
 */
function variantTier(source: Source, { fuzzy }: ExtensionSchemas): string {
  const names = `(SELECT n.name, n.rank FROM (
      SELECT DISTINCT v.name, (replace(v.name, ' ', '') <> replace(${T}, ' ', ''))::int * 100 + ${fuzzy}.levenshtein(${T}, left(v.name, 255)) AS rank
        FROM q CROSS JOIN LATERAL match_name_variants(q.t) p(variant)
        CROSS JOIN LATERAL (SELECT l.name FROM ${source.variants} l WHERE l.variant = p.variant LIMIT ${VARIANT_NAMES}) v) n
      ORDER BY n.rank, n.name LIMIT ${VARIANT_NAMES}) n`;
  return `${source.name}_variants AS (${rowsOfNames(source, names, L, 'n.rank, n.name, ', L)})`;
}

/** The source's tiers and its scored hits, as CTEs named after the source. */
function sourceCtes(source: Source, order: number, schemas: ExtensionSchemas): string[] {
  const ranked = source.variants ? ['variants'] : [];
  const { name: of, from, live, prominence } = source;
  const tiers: [tier: string, where: string][] = [['exact', `(x.search_name COLLATE "C") = ${T}`]];
  if (of === 'org') tiers.push(['domain', `${D} IS NOT NULL AND x.website_domain = ${D}`]);
  const ctes = tiers.map(([tier, where]) => {
    // A query that normalises to nothing (`!!!`) matches no name; the guard is a one-time filter.
    const named = tier === 'domain' ? '' : `${T} <> '' AND `;
    return `${of}_${tier} AS (SELECT x.id FROM ${from} WHERE ${named}${live} AND ${where} ORDER BY ${source.cut}, x.id LIMIT ${L})`;
  });
  ctes.push(prefixTier(source), fuzzyTier(source), ...(source.variants ? [variantTier(source, schemas)] : []));
  const candidates = [...tiers.map(([tier]) => tier), 'prefix', 'fuzzy', ...ranked].map((tier) => `SELECT id FROM ${of}_${tier}`).join(' UNION ');
  const byDomain = of === 'org' ? `x.website_domain = ${D}` : 'false';
  // The text that matched: the website when the query was its domain.
  const matched = of === 'org' ? `CASE WHEN ${byDomain} THEN x.website ELSE x.name END` : 'x.name';
  // Each candidate's row by its primary key (LIMIT 1 keeps the look-up a loop of index probes: a plan
  // for any `limit` estimates candidates enough to hash the whole table instead).
  const hits = `${of}_hits AS (
    SELECT ${source.type}::text AS type, ${order} AS source_order, x.id, x.name, ${matched} AS matched,
           round(CASE WHEN ${byDomain} OR x.search_name = ${T} THEN 1 WHEN replace(x.search_name, ' ', '') = replace(${T}, ' ', '') THEN 0.95
                      WHEN starts_with(x.search_name, ${T}) THEN 0.9
                      ELSE 0.8 * ${fuzzyQuality(schemas)} END::numeric, 3) AS score,
           ${prominence} AS prominence, ${source.count} AS count
      FROM (${candidates}) c CROSS JOIN LATERAL (SELECT * FROM ${from} WHERE x.id = c.id LIMIT 1) x)`;
  return [...ctes, hits];
}

/**
 * The statement's text for these kinds (one text per combination, so each is prepared once). Hits are
 * ordered by the score they show (rounded as shown), so a client reads them best first by either;
 * among equal scores the more prominent comes first (`air`: Airbnb before AirWatch, both 0.9).
 */
export function searchStatement(kinds: readonly SearchKind[], schemas: ExtensionSchemas): string {
  const quoted = { trgm: quoteIdentifier(schemas.trgm), fuzzy: quoteIdentifier(schemas.fuzzy) };
  const searched = sources(kinds);
  const ctes = searched.flatMap((source, order) => sourceCtes(source, order, quoted));
  const hits = searched.map((source) => `SELECT * FROM ${source.name}_hits`).join(' UNION ALL ');
  return `WITH q AS (SELECT search_query($1::text) AS t, $2::int AS n, $3::text AS domain),
    ${ctes.join(',\n')}
    SELECT type, id, name, matched, score::float8 AS score FROM (${hits}) h
     ORDER BY score DESC, prominence DESC, count DESC, source_order, type, id LIMIT ${L}`;
}

const quoteIdentifier = (name: string) => `"${name.replace(/"/g, '""')}"`;

const extensionSchemas = new WeakMap<object, Promise<ExtensionSchemas>>();

function lookUpSchemas(sql: Pick<SqlClient, 'prepared'>): Promise<ExtensionSchemas> {
  let schemas = extensionSchemas.get(sql);
  if (!schemas) {
    schemas = sql
      .prepared<{ extname: string; schema: string }>(
        `SELECT e.extname, n.nspname AS schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
          WHERE e.extname IN ('pg_trgm', 'fuzzystrmatch')`,
        [],
      )
      .then((rows) => {
        const of = (name: string) => rows.find((row) => row.extname === name)?.schema ?? 'public';
        return { trgm: of('pg_trgm'), fuzzy: of('fuzzystrmatch') };
      });
    schemas.catch(() => extensionSchemas.delete(sql));
    extensionSchemas.set(sql, schemas);
  }
  return schemas;
}

export async function runSearch(sql: Pick<SqlClient, 'prepared'>, query: SearchQuery, signal?: CancelSignal): Promise<SearchHit[]> {
  const text = searchStatement(query.kinds, await lookUpSchemas(sql));
  return sql.prepared<SearchHit>(text, [query.q, query.limit, query.domain], signal);
}
