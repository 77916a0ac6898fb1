/**
 * Every example of docs/aggregates.md (the lines of its first code block) and README's aggregate, run
 * on the demo data set: each must answer rows, on REST and, for one, the GraphQL example as written.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import type { TestDatabase } from '../../helpers/db.ts';
import { createDemoDatabase } from '../../helpers/demo-database.ts';

const DOC = readFileSync(new URL('../../../docs/aggregates.md', import.meta.url), 'utf8');
const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const EXAMPLES = /## Examples[\s\S]*?```\n([\s\S]*?)```/.exec(DOC)![1]!.trim().split('\n');
const GRAPHQL = /```graphql\n([\s\S]*?)```/.exec(DOC)![1]!;
const README_EXAMPLE = /--data-urlencode 'metric=count' --data-urlencode 'group_by=hq_country'/;

let db: TestDatabase;
let app: TestApp;
let client: TestCredentials;

beforeAll(async () => {
  db = await createDemoDatabase();
  app = await startTestApp({ db });
  client = await createApiKeyAndToken(app);
}, 300_000);

afterAll(async () => {
  await app?.close();
  await db?.destroy();
});

describe('docs/aggregates.md on the demo data', () => {
  it('has examples', () => {
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(10);
  });

  it.each(EXAMPLES)('%s', async (example) => {
    const [path, query = ''] = example.split('?');
    const response = await client.fetch(`${path}?${new URLSearchParams(query).toString()}`);
    const body = (await response.json()) as { data: Record<string, unknown>[]; page: { total: number } };
    expect(response.status, JSON.stringify(body).slice(0, 300)).toBe(200);
    expect(body.data.length).toBeGreaterThan(0);
    expect(body.page.total).toBeGreaterThanOrEqual(body.data.length);
  });

  it('the GraphQL example', async () => {
    const { status, body } = await client.graphql(GRAPHQL);
    expect(status).toBe(200);
    expect((body.data?.aggregate as { data: unknown[] }).data.length).toBeGreaterThan(0);
  });

  it("README's aggregate", async () => {
    expect(README).toMatch(README_EXAMPLE);
    const response = await client.fetch('/api/aggregate/entities?metric=count&group_by=hq_country');
    const body = (await response.json()) as { data: { hq_country: string; count: number }[] };
    expect(body.data[0]).toEqual({ hq_country: 'United States', count: expect.any(Number) });
  });
});
