// The service as an operator runs it: a real process from dist/main.js (what `npm start` runs). A bad
// variable stops the start naming it; SIGTERM stops a running server cleanly with exit code 0, closing kept-alive connections.
import { Agent, request } from 'node:http';
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

it('on SIGTERM stops serving kept-alive clients, finishes what is in flight, and exits 0 within the timeout', async () => {
  const port = freePort();
  const server = startServerProcess({ ...env(), PORT: String(port), SHUTDOWN_TIMEOUT_MS: '3000' });
  await waitForOutput(server, /"msg":"listening"/);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const get = () =>
    new Promise<{ status: number; connection: string | undefined }>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: '/healthz', agent }, (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }));
      }).on('error', reject).end();
    });

  // One client on one kept-alive connection, back to back, across the signal.
  let signalled = 0;
  const afterSignal: { status: number; connection: string | undefined }[] = [];
  let before = 0;
  const load = (async () => {
    for (;;) {
      try {
        const response = await get();
        if (signalled) afterSignal.push(response);
        else before += 1;
      } catch {
        return; // refused: the server no longer takes this client
      }
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, 500));
  signalled = Date.now();
  server.child.kill('SIGTERM');
  await load;
  agent.destroy();

  expect(before).toBeGreaterThan(5);
  // Only the requests already on their way when the signal landed are served after it, whole; then
  // the connection is closed (with Connection: close when a response is still being written).
  expect(afterSignal.length).toBeLessThanOrEqual(3);
  for (const response of afterSignal) expect(response.status).toBe(200);
  expect(await server.exit).toBe(0);
  expect(Date.now() - signalled).toBeLessThan(3_000 + 1_000);
}, 60_000);
