// Two instances of the service on one PostgreSQL behind one address, as behind a load balancer that
// sends each HTTP request to the next instance in turn: an MCP client (the SDK's own) initializes on
// one, lists tools and calls them on the other, and every answer is the one a single instance gives.
// /mcp keeps nothing per process (no session id), which is what this proves.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken } from '../helpers/auth.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';
import { callTool, connectMcp } from '../integration/mcp/support.ts';

let db: TestDatabase;
let balancer: Server;
let instances: TestApp[] = [];
const served = [0, 0];
let client: Client;
let restAnswer: (path: string) => Promise<unknown>;

/** A round-robin HTTP balancer: request n goes to instance n mod 2, on a connection of its own. */
function startBalancer(): Promise<string> {
  let next = 0;
  balancer = createServer((req, res) => {
    const index = next++ % 2;
    served[index]! += 1;
    const target = new URL(instances[index]!.url);
    const forwarded = httpRequest(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers, agent: false },
      (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  return new Promise((resolve) => balancer.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(balancer.address() as AddressInfo).port}`)));
}

beforeAll(async () => {
  db = await createTestDatabase();
  await seedDatabase(db, { entities: 40 });
  const address = await startBalancer();
  // One address for both: the tokens' issuer and audience, as behind a real balancer.
  instances = [await startTestApp({ db, env: { PUBLIC_URL: address } }), await startTestApp({ db, env: { PUBLIC_URL: address } })];
  const admin = await createApiKeyAndToken({ ...instances[0]!, url: address, fetch: (path, init) => fetch(`${address}${path}`, init) });
  client = await connectMcp({ ...instances[0]!, url: address }, admin.headers);
  restAnswer = async (path) => (await admin.fetch(path)).json();
}, 120_000);

afterAll(async () => {
  await client?.close();
  await new Promise((resolve) => balancer?.close(resolve));
  for (const instance of instances) await instance.close();
  await db?.destroy();
});

it('serves one MCP client from two instances in turn, each answer as REST gives it', async () => {
  const before = [...served];
  const listed = await client.listTools();
  expect(listed.tools.map((tool) => tool.name)).toContain('search_entities');
  const answers = [];
  for (let call = 0; call < 4; call += 1) {
    const result = await callTool(client, 'search_entities', { filter: 'launch_year[gte]:1990', sort: ['name'], limit: 3 });
    expect(result.isError ?? false).toBe(false);
    answers.push(result.structuredContent);
  }
  // The same answer from either instance, and the REST answer to the same request.
  expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
  const rest = (await restAnswer('/api/entities?filter=launch_year%5Bgte%5D%3A1990&sort=name&limit=3')) as { data: unknown[] };
  expect((answers[0] as { data: unknown[] }).data).toEqual(rest.data);
  // Both instances answered MCP requests of this one client.
  expect(served[0]! - before[0]!).toBeGreaterThanOrEqual(2);
  expect(served[1]! - before[1]!).toBeGreaterThanOrEqual(2);
});
