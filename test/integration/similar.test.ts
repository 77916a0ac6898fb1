/**
 * GET /api/entities/{id}/similar, Entity.similar and the similar_companies tool on the demo data set.
 * The ranking is checked against a brute force written here from the raw tables (every company
 * scored by the documented formula, docs/finding-companies.md, "Similar companies"), not against the statement's own
 * shortcuts: the counts kept beside the data and the pruning by the best shared weight.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ALL_PERMISSIONS, createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { createDemoDatabase } from '../helpers/demo-database.ts';
import { callTool, connectMcp } from './mcp/support.ts';

interface Reason {
  kind: string;
  detail: string;
  weight: number;
}
interface Similar {
  id: number;
  name: string;
  score: number;
  reasons: Reason[];
}
interface Row {
  id: number;
  name: string;
  is_company: boolean;
  hq_country: string;
  hq_city: string;
  launch_year: number | null;
}

let db: TestDatabase;
let app: TestApp;
let everything: TestCredentials;
let noInvestors: TestCredentials;
let entities: Map<number, Row>;
const tagsOf = new Map<number, Set<number>>();
const investorsOf = new Map<number, Set<number>>();
const tagDf = new Map<number, number>();
const portfolio = new Map<number, number>();
let active = 0;

const addTo = (map: Map<number, Set<number>>, key: number, value: number) => {
  if (!map.has(key)) map.set(key, new Set());
  map.get(key)!.add(value);
};

beforeAll(async () => {
  db = await createDemoDatabase();
  app = await startTestApp({ db });
  everything = await createApiKeyAndToken(app);
  noInvestors = await createApiKeyAndToken(app, { permissions: ALL_PERMISSIONS.filter((p) => p !== 'read:investors') });
  const rows = await db.sql.query<Row>(
    'SELECT id, name, is_company, hq_country, hq_city, launch_year FROM entities WHERE deleted_at IS NULL',
  );
  entities = new Map(rows.map((row) => [row.id, row]));
  active = rows.length;
  for (const { entity_id, tag_id } of await db.sql.query<{ entity_id: number; tag_id: number }>('SELECT entity_id, tag_id FROM entity_tags')) {
    addTo(tagsOf, entity_id, tag_id);
    if (entities.has(entity_id)) tagDf.set(tag_id, (tagDf.get(tag_id) ?? 0) + 1);
  }
  const backing = await db.sql.query<{ entity_id: number; investor_id: number }>(
    'SELECT DISTINCT r.entity_id, ri.investor_id FROM funding_rounds r JOIN round_investors ri ON ri.round_id = r.id',
  );
  for (const { entity_id, investor_id } of backing) addTo(investorsOf, entity_id, investor_id);
  for (const { id, portfolio_count } of await db.sql.query<{ id: number; portfolio_count: number }>('SELECT id, portfolio_count FROM investors')) {
    portfolio.set(id, portfolio_count);
  }
}, 600_000);

afterAll(async () => {
  await app?.close();
  await db?.destroy();
});

const weight = (df: number) => Math.round(Math.log(1 + active / Math.max(df, 1)) * 1e4) / 1e4;

/** The documented score of `candidate` against `source`, from the raw rows. */
function expectedScore(source: Row, candidate: Row, withInvestors: boolean): number {
  let score = 0;
  for (const tag of tagsOf.get(source.id) ?? []) if (tagsOf.get(candidate.id)?.has(tag)) score += weight(tagDf.get(tag)!);
  if (withInvestors) {
    for (const investor of investorsOf.get(source.id) ?? []) {
      if (entities.has(investor) && investorsOf.get(candidate.id)?.has(investor)) score += weight(portfolio.get(investor)!);
    }
  }
  if (score === 0) return 0; // not a candidate: shares no tag or investor
  if (candidate.hq_country !== '' && candidate.hq_country === source.hq_country) {
    score += candidate.hq_city !== '' && candidate.hq_city === source.hq_city ? 1 : 0.5;
  }
  if (candidate.launch_year != null && source.launch_year != null) {
    score += Math.max(0, 1 - Math.abs(candidate.launch_year - source.launch_year) / 4);
  }
  return score;
}

/** Every live company but the source, ranked by the expected score (ties by id), as the API should. */
function bruteForce(sourceId: number, limit: number, withInvestors: boolean, keep: (row: Row) => boolean = () => true) {
  const source = entities.get(sourceId)!;
  return [...entities.values()]
    .filter((row) => row.is_company && row.id !== sourceId && keep(row))
    .map((row) => ({ id: row.id, score: expectedScore(source, row, withInvestors) }))
    .filter((row) => row.score > 0)
    .sort((a, b) => b.score - a.score || a.id - b.id)
    .slice(0, limit);
}

async function similar(client: TestCredentials, id: number, query = ''): Promise<{ status: number; body: { data: Similar[]; page: { limit: number } } }> {
  const response = await client.fetch(`/api/entities/${id}/similar${query}`);
  return { status: response.status, body: (await response.json()) as never };
}

const idNamed = async (name: string) =>
  (await db.sql.query<{ id: number }>('SELECT id FROM entities WHERE name = $1 AND deleted_at IS NULL ORDER BY id LIMIT 1', [name]))[0]!.id;

/** A company with both tags and investors, and a city: every kind of reason can show. */
async function richCompany(): Promise<number> {
  const [row] = await db.sql.query<{ id: number }>(
    `SELECT e.id FROM entities e WHERE e.is_company AND e.deleted_at IS NULL AND e.hq_city <> '' AND e.launch_year IS NOT NULL
        AND (SELECT count(*) FROM entity_tags t WHERE t.entity_id = e.id) >= 2
        AND EXISTS (SELECT 1 FROM funding_rounds r JOIN round_investors ri ON ri.round_id = r.id WHERE r.entity_id = e.id)
      ORDER BY e.total_funding_usd DESC, e.id LIMIT 1`,
  );
  return row!.id;
}

function expectMatchesBruteForce(data: Similar[], expected: { id: number; score: number }[]) {
  expect(data.map((row) => row.id)).toEqual(expected.map((row) => row.id));
  data.forEach((row, index) => expect(row.score).toBeCloseTo(expected[index]!.score, 6));
}

describe('GET /api/entities/{id}/similar on the demo data', () => {
  it('ranks as the documented score computed from the raw rows, for several companies', async () => {
    const sources = [await richCompany(), await idNamed('Airbnb'), await idNamed('Stripe')];
    for (const id of sources) {
      const { status, body } = await similar(everything, id);
      expect(status, JSON.stringify(body).slice(0, 300)).toBe(200);
      expect(body.page).toEqual({ limit: 10 });
      expect(body.data.length).toBe(10);
      expectMatchesBruteForce(body.data, bruteForce(id, 10, true));
    }
  });

  it('explains each score: the reasons sum to it, each kind as documented', async () => {
    const id = await richCompany();
    const { body } = await similar(everything, id, '?limit=100');
    const kinds = new Set<string>();
    for (const row of body.data) {
      const total = row.reasons.reduce((sum, reason) => sum + reason.weight, 0);
      expect(total).toBeCloseTo(row.score, 6);
      for (const reason of row.reasons) {
        expect(['tag', 'investor', 'location', 'launch_year']).toContain(reason.kind);
        expect(reason.weight).toBeGreaterThan(0);
        kinds.add(reason.kind);
      }
      expect(row.name).toBe(entities.get(row.id)!.name);
    }
    expect([...kinds].sort()).toEqual(['investor', 'launch_year', 'location', 'tag']);
    const tagReason = body.data.flatMap((row) => row.reasons).find((reason) => reason.kind === 'tag')!;
    const [tag] = await db.sql.query<{ id: number }>('SELECT id FROM tags WHERE name = $1', [tagReason.detail]);
    expect(tagReason.weight).toBeCloseTo(weight(tagDf.get(tag!.id)!), 6);
  });

  it('without read:investors leaves investor reasons out of the reasons and the score', async () => {
    const id = await richCompany();
    const { status, body } = await similar(noInvestors, id, '?limit=50');
    expect(status).toBe(200);
    expect(body.data.flatMap((row) => row.reasons).filter((reason) => reason.kind === 'investor')).toEqual([]);
    expectMatchesBruteForce(body.data, bruteForce(id, 50, false));
  });

  it('narrows the candidates with a filter in the entity list grammar', async () => {
    const id = await idNamed('Airbnb');
    const { status, body } = await similar(everything, id, `?filter=${encodeURIComponent('hq_country:Germany')}&limit=20`);
    expect(status).toBe(200);
    expect(body.data.length).toBeGreaterThan(0);
    expect(body.data.every((row) => entities.get(row.id)!.hq_country === 'Germany')).toBe(true);
    expectMatchesBruteForce(body.data, bruteForce(id, 20, true, (row) => row.hq_country === 'Germany'));
  });

  it('takes limit 1..100 (default 10) and a shorter list is the longer one\'s start', async () => {
    const id = await idNamed('Stripe');
    const three = await similar(everything, id, '?limit=3');
    const hundred = await similar(everything, id, '?limit=100');
    expect(three.body.page).toEqual({ limit: 3 });
    expect(hundred.body.data.length).toBe(100);
    expect(three.body.data).toEqual(hundred.body.data.slice(0, 3));
    for (const limit of ['0', '101', 'abc', '2.5']) {
      const response = await everything.fetch(`/api/entities/${id}/similar?limit=${limit}`);
      const body = (await response.json()) as { error: { code: string; details: { path: string }[] } };
      expect(response.status, limit).toBe(400);
      expect(body.error.code).toBe('VALIDATION_ERROR');
      expect(body.error.details[0]!.path).toBe('query.limit');
    }
  });

  it('answers filter errors as the entity list does, and refuses unknown parameters', async () => {
    const id = await idNamed('Stripe');
    for (const [filter, code] of [
      ['hq_country[', 'FILTER_PARSE_ERROR'],
      ['hq_contry:Germany', 'UNKNOWN_FILTER'],
      ['launch_year[gte]:abc', 'FILTER_VALIDATION_ERROR'],
    ] as const) {
      const own = await everything.fetch(`/api/entities/${id}/similar?filter=${encodeURIComponent(filter)}`);
      const list = await everything.fetch(`/api/entities?filter=${encodeURIComponent(filter)}`);
      expect(own.status).toBe(400);
      const [ownBody, listBody] = [(await own.json()) as { error: { code: string } }, (await list.json()) as { error: { code: string } }];
      expect(ownBody.error.code).toBe(code);
      expect(ownBody.error).toEqual(listBody.error);
    }
    const unknown = await everything.fetch(`/api/entities/${id}/similar?limt=5`);
    expect(unknown.status).toBe(400);
  });

  it('needs read:entities (403), checks the path id (400) and answers 404 for an unknown or deleted id', async () => {
    const id = await idNamed('Stripe');
    const reader = await createApiKeyAndToken(app, { permissions: ['read:investors'] });
    const refused = await reader.fetch(`/api/entities/${id}/similar`);
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('read:entities');
    expect((await everything.fetch('/api/entities/abc/similar')).status).toBe(400);
    const missing = await everything.fetch('/api/entities/2000000000/similar');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
    const [gone] = await db.sql.query<{ id: number }>(
      "UPDATE entities SET deleted_at = now() WHERE id = (SELECT max(id) FROM entities WHERE is_company AND deleted_at IS NULL) RETURNING id",
    );
    expect((await everything.fetch(`/api/entities/${gone!.id}/similar`)).status).toBe(404);
    // A deleted company is no one's candidate either.
    const after = await similar(everything, id, '?limit=100');
    expect(after.body.data.some((row) => row.id === gone!.id)).toBe(false);
  });

  it('Entity.similar on GraphQL answers what REST answers', async () => {
    const id = await idNamed('Airbnb');
    const rest = await similar(everything, id, '?limit=5&filter=launch_year[gte]:2005');
    const { status, body } = await everything.graphql(
      `query($id: Int!) { entity(id: $id) { name similar(limit: 5, filter: "launch_year[gte]:2005") {
        data { id name score reasons { kind detail weight } } page { limit } } } }`,
      { id },
    );
    expect(status).toBe(200);
    expect((body.data!.entity as { similar: unknown }).similar).toEqual(rest.body);
  });

  it('the similar_companies MCP tool answers what REST answers', async () => {
    const id = await idNamed('Airbnb');
    const rest = await similar(everything, id, '?limit=4');
    const client = await connectMcp(app, everything.headers);
    try {
      const result = await callTool(client, 'similar_companies', { id, limit: 4 });
      expect(result.isError).not.toBe(true);
      expect(result.structuredContent).toEqual({ data: rest.body.data });
    } finally {
      await client.close();
    }
  });
});
