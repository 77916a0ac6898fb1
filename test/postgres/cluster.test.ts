// WEB_CONCURRENCY=2 on PostgreSQL: two workers share the port, and SIGTERM stops them all cleanly.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createScratchDatabase, freePort, startServerProcess, waitForOutput } from '../helpers/server-process.ts';

let database: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  database = await createScratchDatabase();
});

afterAll(async () => {
  await database.drop();
});

it('serves from two workers and stops them all on SIGTERM', async () => {
  const port = freePort();
  const server = startServerProcess({ DATABASE_URL: database.url, WEB_CONCURRENCY: '2', PORT: String(port) });
  await waitForOutput(server, /"worker":1.*"msg":"listening"[\s\S]*"worker":2.*"msg":"listening"|"worker":2.*"msg":"listening"[\s\S]*"worker":1.*"msg":"listening"/);
  const answers = await Promise.all(Array.from({ length: 20 }, () => fetch(`http://127.0.0.1:${port}/healthz`)));
  expect(answers.every((response) => response.status === 200)).toBe(true);
  server.child.kill('SIGTERM');
  expect(await server.exit).toBe(0);
  expect(server.output().match(/"msg":"stopped"/g)?.length).toBe(3);
}, 60_000);
