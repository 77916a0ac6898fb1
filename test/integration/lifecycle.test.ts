// The service as an operator runs it: a real process from src/main.ts. A bad variable stops the start
// naming it; SIGTERM stops a running server cleanly with exit code 0.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testDatabaseKind } from '../helpers/db.ts';
import { createScratchDatabase, freePort, startServerProcess, waitForOutput } from '../helpers/server-process.ts';

let database: { url: string; drop(): Promise<void> } | undefined;
const env = (): Record<string, string> => (database ? { DATABASE_URL: database.url } : {});

beforeAll(async () => {
  if (testDatabaseKind() === 'postgres') database = await createScratchDatabase();
});

afterAll(async () => {
  await database?.drop();
});

it('refuses to start with a bad variable, naming it', async () => {
  const server = startServerProcess({ ...env(), PORT: 'not-a-port' });
  expect(await server.exit).toBe(78);
  expect(server.output()).toMatch(/PORT/);
});

it('serves, then stops with exit code 0 on SIGTERM', async () => {
  const port = freePort();
  const server = startServerProcess({ ...env(), PORT: String(port) });
  await waitForOutput(server, /"msg":"listening"/);
  expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
  server.child.kill('SIGTERM');
  expect(await server.exit).toBe(0);
  expect(server.output()).toMatch(/"msg":"stopped"/);
}, 60_000);
