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
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import { openDatabase } from '../src/db/client.ts';
import { ensureDatabase } from '../src/db/ensure-database.ts';
import { migrate } from '../src/db/migrate.ts';
import { seedDatabase } from '../src/data/seed/index.ts';
import { obtainHeaders, startOurServer, type OurServer } from './our-server.ts';

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

/** Both servers under one address, so one token serves both. */
const server = (port: number, counting: boolean, clientId: string, clientSecret: string): OurServer => ({
  port,
  databaseUrl: DATABASE_URL,
  publicUrl: 'http://usage-bench.local',
  clientId,
  clientSecret,
  env: { USAGE_COUNTING: String(counting) },
});

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
  const on = await startOurServer(server(PORTS.on, true, clientId, clientSecret));
  const off = await startOurServer(server(PORTS.off, false, clientId, clientSecret));
  try {
    const headers = await obtainHeaders(server(PORTS.on, true, clientId, clientSecret));
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
