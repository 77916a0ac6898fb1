/**
 * `npm run bench:usage`: what usage counting costs. Two server processes on one seeded PostgreSQL
 * database, identical but for USAGE_COUNTING (true / false), are loaded in alternating rounds by
 * autocannon from this process (alternating, so drift in a shared machine's load hits both alike),
 * and the throughputs are compared in the same run. The request is the cheapest one we serve (an
 * entity by id), where a fixed per-request cost shows most.
 *
 * Environment: BENCH_USAGE_DATABASE_URL (default the local server's `venture_usage_bench` database,
 * created and seeded with BENCH_ENTITIES entities, default 2000, on first use), BENCH_SECONDS (5 per
 * round), BENCH_ROUNDS (3), BENCH_CONNECTIONS (16).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { openDatabase } from '../src/db/client.ts';
import { ensureDatabase } from '../src/db/ensure-database.ts';
import { migrate } from '../src/db/migrate.ts';
import { seedDatabase } from '../src/data/seed/index.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DATABASE_URL = process.env.BENCH_USAGE_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/venture_usage_bench';
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 2_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const PORTS = { on: 4821, off: 4822 } as const;

async function prepareData(): Promise<number> {
  await ensureDatabase(DATABASE_URL);

  const db = await openDatabase({ url: DATABASE_URL, poolSize: 4 });
  try {
    await migrate(db.sql);
    const [row] = await db.sql.query<{ n: string }>('SELECT count(*)::text AS n FROM entities');
    if (Number(row!.n) !== ENTITIES) await seedDatabase(db, { entities: ENTITIES, replace: true });
    const [entity] = await db.sql.query<{ id: number }>('SELECT id FROM entities WHERE deleted_at IS NULL ORDER BY id LIMIT 1');
    return entity!.id;
  } finally {
    await db.close();
  }
}

async function startServer(port: number, counting: boolean, clientId: string, clientSecret: string): Promise<ChildProcess> {
  const child = fork(join(ROOT, 'src/main.ts'), [], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      // One address for both, so one token serves both.
      PUBLIC_URL: 'http://usage-bench.local',
      DATABASE_URL,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'vda-usage-bench-')),
      LOAD_DEMO_DATA: 'false',
      LOG_LEVEL: 'warn',
      ADMIN_CLIENT_ID: clientId,
      ADMIN_CLIENT_SECRET: clientSecret,
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
      USAGE_COUNTING: String(counting),
    },
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  for (let attempt = 0; attempt < 120; attempt += 1) {
    if (await fetch(`http://127.0.0.1:${port}/readyz`).then((response) => response.ok, () => false)) return child;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  child.kill('SIGKILL');
  throw new Error(`the server on port ${port} did not become ready`);
}

async function obtainHeaders(clientId: string, clientSecret: string): Promise<Record<string, string>> {
  const response = await fetch(`http://127.0.0.1:${PORTS.on}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, audience: 'http://usage-bench.local' }),
  });
  if (!response.ok) throw new Error(`token endpoint answered ${response.status}: ${await response.text()}`);
  const { access_token: token } = (await response.json()) as { access_token: string };
  return { authorization: `Bearer ${token}`, 'x-client-id': clientId, 'user-agent': 'venture-data-api-bench/1.0 (bench@example.org)' };
}

async function requestsPerSecond(port: number, path: string, headers: Record<string, string>, seconds: number): Promise<number> {
  const result = await autocannon({ url: `http://127.0.0.1:${port}${path}`, headers, connections: CONNECTIONS, duration: seconds });
  if (result.non2xx || result.errors || result.timeouts) throw new Error(`port ${port}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const id = await prepareData();
  const clientId = 'usage-bench-admin';
  const clientSecret = `vds_${randomBytes(32).toString('base64url')}`;
  const on = await startServer(PORTS.on, true, clientId, clientSecret);
  const off = await startServer(PORTS.off, false, clientId, clientSecret);
  try {
    const headers = await obtainHeaders(clientId, clientSecret);
    const path = `/api/entities/${id}`;
    await requestsPerSecond(PORTS.on, path, headers, 2); // warm-up: JIT, pools, plan caches
    await requestsPerSecond(PORTS.off, path, headers, 2);
    const results = { on: [] as number[], off: [] as number[] };
    for (let round = 0; round < ROUNDS; round += 1) {
      // Alternate which goes first, so neither always runs in the other's wake.
      const order = round % 2 ? (['off', 'on'] as const) : (['on', 'off'] as const);
      for (const which of order) results[which].push(await requestsPerSecond(PORTS[which], path, headers, SECONDS));
    }
    const [countingOn, countingOff] = [median(results.on), median(results.off)];
    console.log(`\nGET /api/entities/{id}, ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s each, medians:`);
    console.log(`  counting on   ${countingOn.toFixed(0).padStart(7)} req/s   (rounds: ${results.on.map((value) => value.toFixed(0)).join(', ')})`);
    console.log(`  counting off  ${countingOff.toFixed(0).padStart(7)} req/s   (rounds: ${results.off.map((value) => value.toFixed(0)).join(', ')})`);
    console.log(`  cost of counting: ${(((countingOff - countingOn) / countingOff) * 100).toFixed(1)} % of throughput`);
  } finally {
    on.kill('SIGTERM');
    off.kill('SIGTERM');
  }
}

await main();
