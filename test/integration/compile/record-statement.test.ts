/**
 * A by-id read's statement is written once per plan: every request binds its id into a text the
 * connection has prepared before, instead of writing the where and the statement again. Proven by
 * counting calls of the record declaration's `where` (src/schema/list-query.ts), which only writing a
 * statement makes, and by the statements PostgreSQL received.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { getSchema } from '../../../src/api-schema.ts';
import type { RecordDefinition } from '../../../src/schema/list-query.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { recordingStatements, type SentStatement } from '../../helpers/compiled-reads.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

let statements: SentStatement[];
let whereCalls = 0;
let restore: () => void;
let db: TestDatabase;
let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  const record = getSchema().getQueryType()!.getFields().entity!.extensions.record as RecordDefinition;
  const where = record.where;
  record.where = (id) => {
    whereCalls += 1;
    return where(id);
  };
  restore = () => {
    record.where = where;
  };
  db = await createTestDatabase();
  await seedDatabase(db, { entities: 30 });
  const recording = recordingStatements(db);
  statements = recording.sent;
  app = await startTestApp({ db: recording.db });
  auth = await createApiKeyAndToken(app);
}, 60_000);

afterAll(async () => {
  restore?.();
  await app?.close();
  await db?.destroy();
});

test('records by id share one statement text and write no where per request, on both transports', async () => {
  const ids = (await db.sql.query<{ id: number }>('SELECT id FROM entities WHERE deleted_at IS NULL ORDER BY id LIMIT 3')).map((row) => row.id);
  const callsAtStart = whereCalls;
  statements.length = 0;
  for (const id of ids) {
    const response = await auth.fetch(`/api/entities/${id}`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as { data: { id: number } }).data.id).toBe(id);
  }
  // The GraphQL document is planned on its first request (counted once), then reused.
  for (const id of ids) {
    const response = await auth.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query ($id: Int!) { entity(id: $id) { id name } }', variables: { id } }),
    });
    expect(((await response.json()) as { data: { entity: { id: number } } }).data.entity.id).toBe(id);
  }
  expect(whereCalls - callsAtStart).toBeLessThanOrEqual(2);
  const [rest, graphql] = [statements.slice(0, 3), statements.slice(3)];
  for (const group of [rest, graphql]) {
    expect(new Set(group.map((statement) => statement.sql)).size).toBe(1);
    expect(group.map((statement) => statement.params.find((value) => ids.includes(Number(value))))).toEqual(ids.map((id) => expect.anything()));
  }
  // A missing id is a 404 from the same statement, not a different one.
  const missing = await auth.fetch('/api/entities/2147483000');
  expect(missing.status).toBe(404);
  expect(statements.at(-1)!.sql).toBe(rest[0]!.sql);
});
