// What an operator sees of requests that go wrong: the request id on every error line, wherever it
// was logged, and a log line and a metric for requests the client abandoned.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PrismaClient, SqlClient } from '../../src/db/client.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';

let db: TestDatabase;
let app: TestApp;
let auth: TestCredentials;

/** Entity reads fail when the filter asks for `name:explode`, and take 700 ms for `name:slow`. */
function troubledPrisma(prisma: PrismaClient): PrismaClient {
  return prisma.$extends({
    query: {
      entity: {
        async findMany({ args, query }) {
          const text = JSON.stringify(args.where ?? {});
          if (text.includes('explode')) throw new Error('the database said something unexpected');
          if (text.includes('slow')) await new Promise((resolve) => setTimeout(resolve, 700));
          return query(args);
        },
      },
    },
  }) as unknown as PrismaClient;
}

/** The same troubles for the compiled reads' statements (src/compile), whose filter values are parameters. */
function troubledSql(sql: SqlClient): SqlClient {
  return {
    ...sql,
    prepared: async (text, params, signal) => {
      if (params.includes('explode')) throw new Error('the database said something unexpected');
      if (params.includes('slow')) await new Promise((resolve) => setTimeout(resolve, 700));
      return sql.prepared(text, params, signal);
    },
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  app = await startTestApp({ db: { ...db, sql: troubledSql(db.sql) }, prisma: troubledPrisma(db.prisma) });
  auth = await createApiKeyAndToken(app);
});

afterAll(async () => {
  await app.close();
});

const lines = () => app.logs.flatMap((chunk) => chunk.split('\n').filter(Boolean).map((line) => JSON.parse(line)));

it.each([
  ['REST', () => auth.fetch('/api/entities?filter=name:explode')],
  ['GraphQL', () => auth.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ entities(filter: "name:explode") { data { id } } }' }),
  })],
])('logs an unexpected error inside %s execution with the request id', async (_name, send) => {
  const before = lines().length;
  const response = await send();
  const requestId = response.headers.get('x-request-id');
  expect(await response.text()).not.toContain('the database said');
  const errors = lines().slice(before).filter((line) => line.level >= 50 && JSON.stringify(line).includes('the database said'));
  expect(errors.length).toBeGreaterThan(0);
  for (const line of errors) expect(line.requestId).toBe(requestId);
});

it.each([
  ['REST', (resolversOnly: TestCredentials) => resolversOnly.fetch('/api/entities?filter=name:explode')],
  ['GraphQL', (resolversOnly: TestCredentials) => resolversOnly.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ entities(filter: "name:explode") { data { id } } }' }),
  })],
])('logs an unexpected error inside the resolvers (%s) with the request id, which yoga masks without the context', async (_name, send) => {
  const resolversApp = await startTestApp({ db: { ...db, sql: troubledSql(db.sql) }, prisma: troubledPrisma(db.prisma), env: { COMPILED_READS: 'false' } });
  try {
    const resolversOnly = await createApiKeyAndToken(resolversApp);
    const response = await send(resolversOnly);
    const requestId = response.headers.get('x-request-id');
    expect(await response.text()).not.toContain('the database said');
    const errors = resolversApp.logs
      .flatMap((chunk) => chunk.split('\n').filter(Boolean).map((line) => JSON.parse(line)))
      .filter((line) => line.level >= 50 && JSON.stringify(line).includes('the database said'));
    expect(errors.length).toBeGreaterThan(0);
    for (const line of errors) expect(line.requestId).toBe(requestId);
  } finally {
    await resolversApp.close();
  }
});

it('logs and counts a request the client abandoned, as 499', async () => {
  const controller = new AbortController();
  const pending = auth.fetch('/api/entities?filter=name:slow', { signal: controller.signal }).catch((error: Error) => error);
  await new Promise((resolve) => setTimeout(resolve, 200));
  controller.abort();
  expect(await pending).toBeInstanceOf(Error);
  await expect
    .poll(() => lines().find((line) => line.msg === 'request abandoned by the client' && line.path === '/api/entities'), { timeout: 5000 })
    .toMatchObject({ status: 499, abandoned: true, requestId: expect.any(String) });
  const metrics = await (await app.fetch('/metrics')).text();
  expect(metrics).toMatch(/http_request_duration_seconds_count\{endpoint="GET \/api\/entities",status="499"\} 1/);
});

it('counts a successful /graphql request under its own endpoint in /metrics, not as unmatched', async () => {
  const { status } = await auth.graphql('{ entities(limit: 1) { data { id } } }');
  expect(status).toBe(200);
  const metrics = await (await app.fetch('/metrics')).text();
  expect(metrics).toMatch(/http_request_duration_seconds_count\{endpoint="POST \/graphql",status="200"\} [1-9]/);
});
