/**
 * The exact statement and parameters the compiler (src/compile) writes for representative reads, and
 * src/aggregate/statement.ts for representative aggregates, kept in golden/<case>.sql: a change of plan (a join, an order term, a parameter) shows up as a diff of
 * those files to review, not only as a change of speed. The equivalence and differential tests prove
 * the answers right; these pin how they are asked for.
 *
 * Each statement is captured as the app runs it on a seeded database (recordingStatements wraps the
 * `prepared` method only the compiled reads use), so the golden is what PostgreSQL received, parameters
 * included. Each case must also answer 200 with the rows plain SQL counts, so a golden file never pins
 * a statement that answers wrongly.
 *
 * To accept a reviewed change: `npx vitest run --project pglite test/unit/compile/golden-sql.test.ts -u`.
 * test/unit runs on PGlite only (vitest.config.ts); the compiler writes the same text for PostgreSQL,
 * and these goldens also pass with TEST_DATABASE=postgres.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import '../../helpers/built-schema.ts';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { recordingStatements, type SentStatement } from '../../helpers/compiled-reads.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

let captured: SentStatement[];
let db: TestDatabase;
let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  db = await createTestDatabase();
  await seedDatabase(db, { entities: 50 });
  const recording = recordingStatements(db);
  captured = recording.sent;
  app = await startTestApp({ db: recording.db });
  auth = await createApiKeyAndToken(app);
  const created = await auth.fetch('/api/ecosystems', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ slug: 'golden', name: 'Golden', filter: 'or(launch_year[gte]:2015, tags[in_any]:43)' }),
  });
  expect(created.status).toBe(201);
}, 60_000);

afterAll(async () => {
  await app?.close();
  await db?.destroy();
});

// ───────────── the layout of a golden file ─────────────

// `LEFT JOIN` before `JOIN`, so the pair starts one line (each keyword is copied whole once matched).
const CLAUSES = ['FROM', 'WHERE', 'LEFT JOIN', 'JOIN', 'GROUP BY', 'ORDER BY', 'LIMIT'];

/**
 * The statement with each subquery indented on lines of its own, each clause of a query (and each item
 * of its select list) starting a line. Only whitespace changes: `unlayout` gives the exact text back,
 * and the test checks that it does, so the golden is the statement, not a paraphrase of it. Parentheses
 * that are not subqueries (calls, conditions) stay on one line.
 */
function layout(sql: string): string {
  // A subquery's lines are indented one step past the line it opens on; `line` is the current line's.
  const frames: { subquery: boolean; indent: number; line: number; selectList: boolean }[] = [{ subquery: true, indent: 0, line: 0, selectList: false }];
  const query = () => frames.findLast((frame) => frame.subquery)!;
  const newline = (indent: number) => `\n${'  '.repeat(indent)}`;
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const char = sql[i]!;
    if (char === "'" || char === '"') {
      // A literal or quoted identifier, copied whole (a doubled quote stays inside it).
      let end = i + 1;
      while (end < sql.length && !(sql[end] === char && sql[end + 1] !== char)) end += sql[end] === char ? 2 : 1;
      out += sql.slice(i, end + 1);
      i = end + 1;
      continue;
    }
    const frame = frames[frames.length - 1]!;
    if (char === '(') {
      if (sql.startsWith('SELECT ', i + 1)) {
        const indent = query().line + 1;
        frames.push({ subquery: true, indent, line: indent, selectList: false });
        out += `(${newline(indent)}`;
      } else {
        frames.push({ subquery: false, indent: 0, line: 0, selectList: false });
        out += '(';
      }
      i += 1;
      continue;
    }
    if (char === ')') {
      const closed = frames.pop()!;
      out += closed.subquery ? `${newline(query().line)})` : ')';
      i += 1;
      continue;
    }
    if (frame.subquery) {
      if (sql.startsWith('SELECT ', i)) frame.selectList = true;
      const clause = char === ' ' ? CLAUSES.find((keyword) => sql.startsWith(`${keyword} `, i + 1)) : undefined;
      if (clause) {
        if (clause === 'FROM') frame.selectList = false;
        frame.line = frame.indent;
        out += newline(frame.line) + clause;
        i += 1 + clause.length;
        continue;
      }
      if (char === ',' && frame.selectList && sql[i + 1] === ' ') {
        frame.line = frame.indent + 1;
        out += `,${newline(frame.line)}`;
        i += 2;
        continue;
      }
    }
    out += char;
    i += 1;
  }
  return out;
}

/** The inverse of `layout`: a line break after `(` or before `)` was inserted, any other replaced a space. */
function unlayout(text: string): string {
  return text
    .replace(/\(\n */g, '(')
    .replace(/\n *\)/g, ')')
    .replace(/\n */g, ' ');
}

function goldenFile(request: string, statement: SentStatement): string {
  return `-- ${request}\n${layout(statement.sql)}\n-- params: ${JSON.stringify(statement.params)}\n`;
}

// ───────────── the cases ─────────────

/** A count of rows by plain SQL (never the API): what the answer, or a list inside it, must hold. */
type Count = number | { sql: string; limit?: number };

interface Case {
  /** The golden file's name. */
  name: string;
  /** A REST path with its query, or a GraphQL document whose one root field is aliased `result`. */
  request: { rest: string } | { graphql: string };
  /** A page to request first: its next_cursor replaces `$cursor` in `request` (the next page's statement is the golden). */
  cursorFrom?: string;
  /** Rows of the answer: the list's `data`, or 1 for a record. */
  rows: Count;
  /** Lengths of lists inside the (first) record, by path: `rounds.investors` counts every round's investors. */
  nested?: Record<string, Count>;
}

/** A value given as a list repeats its parameter (`metric=count&metric=sum:amount_usd`). */
const rest = (path: string, query: Record<string, string | string[]> = {}) => {
  const search = new URLSearchParams(Object.entries(query).flatMap(([key, value]) => [value].flat().map((one) => [key, one]))).toString();
  return { rest: search ? `${path}?${search}` : path };
};

const LIVE = 'e.deleted_at IS NULL';

const cases: Case[] = [
  // REST-shaped entity list pages (the ListEntities operation, every field of a record).
  { name: 'entities-default', request: rest('/api/entities'), rows: 25 },
  {
    name: 'entities-sort-filter',
    request: rest('/api/entities', { sort: '-total_funding_usd', filter: 'hq_country:Germany' }),
    rows: { sql: `SELECT count(*) FROM entities e WHERE ${LIVE} AND hq_country = 'Germany'` },
  },
  {
    name: 'entities-cursor-page',
    cursorFrom: '/api/entities?sort=-total_funding_usd&limit=10',
    request: rest('/api/entities', { sort: '-total_funding_usd', limit: '10', cursor: '$cursor' }),
    rows: 10,
  },
  {
    // A nullable first key: NULLS LAST in the order, and `OR ... IS NULL` in the keyset condition.
    name: 'entities-cursor-page-nullable',
    cursorFrom: '/api/entities?sort=-launch_year,name&limit=10',
    request: rest('/api/entities', { sort: '-launch_year,name', limit: '10', cursor: '$cursor' }),
    rows: 10,
  },
  { name: 'entities-offset-page', request: rest('/api/entities', { sort: 'name', limit: '10', offset: '20' }), rows: 10 },
  {
    name: 'entities-tags-in-any',
    request: rest('/api/entities', { filter: 'tags[in_any]:43|28' }),
    rows: { sql: `SELECT count(*) FROM entities e WHERE ${LIVE} AND EXISTS (SELECT 1 FROM entity_tags t WHERE t.entity_id = e.id AND t.tag_id IN (43, 28))`, limit: 25 },
  },
  {
    name: 'entities-investor-name',
    request: rest('/api/entities', { filter: 'investor__name[starts_with]:Sage', sort: 'id' }),
    rows: {
      sql: `SELECT count(*) FROM entities e WHERE ${LIVE} AND EXISTS (SELECT 1 FROM funding_rounds r JOIN round_investors ri ON ri.round_id = r.id
              JOIN entities ie ON ie.id = ri.investor_id WHERE r.entity_id = e.id AND ie.name ILIKE 'Sage%')`,
      limit: 25,
    },
  },
  {
    name: 'entities-or',
    request: rest('/api/entities', { filter: 'or(tags[in_any]:43, launch_year[lt]:2000)', sort: '-launch_year' }),
    rows: {
      sql: `SELECT count(*) FROM entities e WHERE ${LIVE} AND (e.launch_year < 2000 OR EXISTS (SELECT 1 FROM entity_tags t WHERE t.entity_id = e.id AND t.tag_id = 43))`,
      limit: 25,
    },
  },
  {
    // A name search without a sort is ranked (docs/read-api.md): money raised, then name.
    name: 'entities-name-contains',
    request: rest('/api/entities', { filter: 'name[contains]:spark' }),
    rows: { sql: `SELECT count(*) FROM entities e WHERE ${LIVE} AND name ILIKE '%spark%'`, limit: 25 },
  },
  {
    name: 'entity-record-rest',
    request: rest('/api/entities/1'),
    rows: 1,
    nested: {
      tags: { sql: 'SELECT count(*) FROM entity_tags WHERE entity_id = 1' },
      founders: { sql: 'SELECT count(*) FROM founder_companies WHERE entity_id = 1 AND is_founder' },
    },
  },
  {
    // Lists, a path through two list relations (distinct by id), and a relation's own order.
    name: 'entity-record-relations',
    request: {
      graphql: `{ result: entity(id: 1) {
        id name
        tags { id name type }
        founders { id name }
        rounds { id round_type amount_usd date investors { id name is_lead } }
        investors { id name }
      } }`,
    },
    rows: 1,
    nested: {
      tags: { sql: 'SELECT count(*) FROM entity_tags WHERE entity_id = 1' },
      founders: { sql: 'SELECT count(*) FROM founder_companies WHERE entity_id = 1 AND is_founder' },
      rounds: { sql: 'SELECT count(*) FROM funding_rounds WHERE entity_id = 1' },
      'rounds.investors': { sql: 'SELECT count(*) FROM funding_rounds r JOIN round_investors ri ON ri.round_id = r.id WHERE r.entity_id = 1' },
      investors: { sql: 'SELECT count(DISTINCT ri.investor_id) FROM funding_rounds r JOIN round_investors ri ON ri.round_id = r.id WHERE r.entity_id = 1' },
    },
  },
  {
    name: 'entity-investor-profile',
    request: { graphql: '{ result: entity(id: 25) { id name investor_profile { id name portfolio_count portfolio { id name } } } }' },
    rows: 1,
    nested: {
      'investor_profile.portfolio': {
        sql: 'SELECT count(DISTINCT r.entity_id) FROM round_investors ri JOIN funding_rounds r ON r.id = ri.round_id WHERE ri.investor_id = 25',
      },
    },
  },
  {
    // The investor's descriptive columns are its entity's (followColumn), as is its sort by name.
    name: 'investors-list',
    request: rest('/api/investors', { sort: 'name' }),
    rows: { sql: `SELECT count(*) FROM investors i JOIN entities e ON e.id = i.id WHERE ${LIVE}` },
  },
  {
    // amount_usd is a decimal served as text, and sorted and cursored as one.
    name: 'news-amount',
    request: rest('/api/news', { filter: 'amount_usd[gte]:1000000', sort: '-amount_usd', limit: '5' }),
    rows: { sql: 'SELECT count(*) FROM news_articles WHERE amount_usd >= 1000000', limit: 5 },
  },
  {
    name: 'transaction-record',
    request: rest('/api/transactions/1'),
    rows: 1,
    nested: { investors: { sql: 'SELECT count(*) FROM round_investors WHERE round_id = 1' } },
  },
  { name: 'founders-list', request: rest('/api/founders', { sort: '-launch_year,name', limit: '5' }), rows: 5 },
  { name: 'valuations-list', request: rest('/api/valuations', { sort: '-valuation_usd', limit: '5' }), rows: 5 },
  {
    // The list comes from extensions.listFor: the stored filter, ANDed with the request's.
    name: 'ecosystem-entities',
    request: {
      graphql: `{ result: ecosystemEntities(ecosystem: "golden", filter: "hq_country[neq]:United States", sort: "-launch_year", limit: 5) {
        data { id name launch_year tags { id } } page { next_cursor }
      } }`,
    },
    rows: {
      sql: `SELECT count(*) FROM entities e WHERE ${LIVE} AND hq_country <> 'United States'
              AND (launch_year >= 2015 OR EXISTS (SELECT 1 FROM entity_tags t WHERE t.entity_id = e.id AND t.tag_id = 43))`,
      limit: 5,
    },
  },

  // Aggregates (src/aggregate/statement.ts, docs/aggregates.md): one statement each, groups counted by
  // plain SQL (a NULL value is a group of its own, so DISTINCT over the grouped expression counts them).
  {
    name: 'aggregate-scalar-group',
    request: rest('/api/aggregate/entities', { metric: 'count', group_by: 'hq_country' }),
    rows: { sql: `SELECT count(*) FROM (SELECT DISTINCT hq_country FROM entities e WHERE ${LIVE}) g`, limit: 25 },
  },
  {
    name: 'aggregate-date-bucket',
    request: rest('/api/aggregate/transactions', { metric: 'sum:amount_usd', group_by: 'date:year' }),
    rows: { sql: `SELECT count(*) FROM (SELECT DISTINCT date_trunc('year', date) FROM funding_rounds) g`, limit: 25 },
  },
  {
    // The width is a parameter; the bucket is its lower bound.
    name: 'aggregate-numeric-bucket',
    request: rest('/api/aggregate/valuations', { metric: ['count', 'avg:valuation_usd'], group_by: 'valuation_usd:bucket(100000000)' }),
    rows: { sql: 'SELECT count(*) FROM (SELECT DISTINCT floor(valuation_usd / 100000000) FROM valuations) g', limit: 25 },
  },
  {
    // A related record's field: a LATERAL subquery of the round's distinct investors' countries.
    name: 'aggregate-related-dimension',
    request: rest('/api/aggregate/transactions', { metric: 'count', group_by: 'investors.hq_country' }),
    rows: {
      sql: `SELECT count(*) FROM (SELECT DISTINCT ie.hq_country FROM funding_rounds r LEFT JOIN round_investors ri ON ri.round_id = r.id
              LEFT JOIN entities ie ON ie.id = ri.investor_id) g`,
      limit: 25,
    },
  },
  {
    // A filter, `having` over the labels, and a sort by a metric (then the dimension, ascending).
    name: 'aggregate-having-sort',
    request: rest('/api/aggregate/transactions', {
      metric: ['count', 'median:amount_usd'],
      group_by: 'round_type',
      filter: 'date[gte]:2000-01-01',
      having: 'count[gte]:3',
      sort: '-median_amount_usd',
    }),
    rows: {
      sql: `SELECT count(*) FROM (SELECT round_type FROM funding_rounds WHERE date >= '2000-01-01' GROUP BY round_type HAVING count(*) >= 3) g`,
    },
  },
  {
    // The ecosystem's stored filter ANDed with the request's, as on its entity list.
    name: 'aggregate-ecosystem',
    request: {
      graphql: `{ result: ecosystemAggregate(ecosystem: "golden", metrics: ["count", "sum:total_funding_usd"], groupBy: "is_unicorn", filter: "hq_country[neq]:United States") {
        data page { total }
      } }`,
    },
    rows: {
      sql: `SELECT count(*) FROM (SELECT DISTINCT is_unicorn FROM entities e WHERE ${LIVE} AND hq_country <> 'United States'
              AND (launch_year >= 2015 OR EXISTS (SELECT 1 FROM entity_tags t WHERE t.entity_id = e.id AND t.tag_id = 43))) g`,
    },
  },
];

// ───────────── running a case ─────────────

async function getJson(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await auth.fetch(path);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function count(expected: Count): Promise<number> {
  if (typeof expected === 'number') return expected;
  const [row] = await db.sql.query<{ count: number | string }>(expected.sql);
  const total = Number(row!.count);
  // A golden of an empty answer would pin a statement that might select nothing for the wrong reason.
  expect(total, expected.sql).toBeGreaterThan(0);
  return Math.min(total, expected.limit ?? Infinity);
}

/** The values at a dotted path, arrays flattened on the way; its length is what `nested` counts. */
function valuesAt(value: unknown, path: string[]): unknown[] {
  if (path.length === 0) return Array.isArray(value) ? value : [value];
  const [head, ...rest] = path;
  if (Array.isArray(value)) return value.flatMap((item) => valuesAt(item, path));
  if (value === null || typeof value !== 'object') throw new Error(`no ${head} in ${JSON.stringify(value)}`);
  return valuesAt((value as Record<string, unknown>)[head!], rest);
}

/** The answer's rows: the list's data, or the record. */
async function answer(testCase: Case): Promise<{ label: string; rows: unknown[] }> {
  const { request } = testCase;
  if ('rest' in request) {
    let path = request.rest;
    if (testCase.cursorFrom) {
      const first = await getJson(testCase.cursorFrom);
      const cursor = (first.body.page as { next_cursor: string | null } | undefined)?.next_cursor;
      expect(cursor, testCase.cursorFrom).toEqual(expect.any(String));
      path = path.replace('%24cursor', encodeURIComponent(cursor!));
    }
    captured.length = 0;
    const { status, body } = await getJson(path);
    expect(status, JSON.stringify(body)).toBe(200);
    return { label: `GET ${decodeURIComponent(path.replace(/\+/g, ' '))}`, rows: Array.isArray(body.data) ? body.data : [body.data] };
  }
  captured.length = 0;
  const { status, body } = await auth.graphql(request.graphql);
  expect({ status, errors: body.errors }).toEqual({ status: 200, errors: undefined });
  const result = body.data?.result as { data?: unknown[] } | null;
  return { label: `POST /graphql ${request.graphql.replace(/\s+/g, ' ')}`, rows: result && Array.isArray(result.data) ? result.data : [result] };
}

describe('the compiler writes the statement in golden/<case>.sql', () => {
  test('the layout of a golden file changes only whitespace', () => {
    const statement = `SELECT (SELECT row_to_json(o) FROM (SELECT r."a" AS "a", to_char(r."b", 'YYYY-MM-DD"T"') AS "b, (c)", (SELECT coalesce('[' || string_agg(x::text, ',' ORDER BY t1."id" ASC) || ']', '[]')::json FROM "t" t1 WHERE t1."r" = r."id") AS "c") o)::text AS j FROM (SELECT r.id FROM "x" r WHERE (r."n" = $1 AND EXISTS (SELECT 1 FROM "y" t2 WHERE t2."x" = r."id")) ORDER BY r.id ASC LIMIT $2 OFFSET $3) p JOIN "x" r ON r.id = p.id ORDER BY p.k0 ASC`;
    const text = layout(statement);
    expect(unlayout(text)).toBe(statement);
    expect(text).toContain(`\n  FROM (\n    SELECT r."a" AS "a",\n      to_char(r."b", 'YYYY-MM-DD"T"') AS "b, (c)",\n      (\n        SELECT coalesce(`);
    expect(text).toContain(`string_agg(x::text, ',' ORDER BY t1."id" ASC)`);
  });

  test.each(cases)('$name', async (testCase) => {
    const { label, rows } = await answer(testCase);
    expect(rows, label).toHaveLength(await count(testCase.rows));
    expect(rows, label).not.toContain(null);
    for (const [path, expected] of Object.entries(testCase.nested ?? {})) {
      expect(valuesAt(rows[0], path.split('.')), `${label}: ${path}`).toHaveLength(await count(expected));
    }
    // One statement per request: the read was compiled (a fallback runs Prisma's, not `prepared`), or
    // the aggregate was answered by its own statement.
    expect(captured, label).toHaveLength(1);
    const statement = captured[0]!;
    const text = goldenFile(label, statement);
    expect(unlayout(layout(statement.sql))).toBe(statement.sql);
    await expect(text).toMatchFileSnapshot(`golden/${testCase.name}.sql`);
  });
});
