/**
 * `npm run bench:pooled`: what running behind PgBouncer in transaction mode costs (docs/operations.md,
 * "Behind PgBouncer"): unnamed statements, parsed and planned on every execution, and one more hop.
 * Three server processes on one seeded database, each with 10 connections: connected to PostgreSQL
 * directly (named prepared statements); directly but in the pooled mode (DATABASE_DIRECT_URL set to
 * the same server: unnamed statements, no pooler), which isolates what unnamed statements cost; and
 * through Debian's PgBouncer in transaction mode. autocannon loads them in rotating rounds; the
 * throughputs are compared within the run.
 *
 * Environment: BENCH_DATABASE_URL (default the local `venture_scale_100k`, seeded beforehand with
 * `npm run cli -- seed --entities 100000`), BENCH_SECONDS (5 per round), BENCH_ROUNDS (3),
 * BENCH_CONNECTIONS (16).
 */
import { randomBytes } from 'node:crypto';
import autocannon from 'autocannon';
import pg from 'pg';
import { startPgBouncer } from '../test/helpers/pgbouncer.ts';
import { obtainHeaders, startOurServer, type OurServer } from './our-server.ts';
import { LIST_FILTER } from './scenarios.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/venture_scale_100k';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const POOL_SIZE = 10;
const PORTS = { direct: 4841, unnamed: 4843, pooled: 4842 } as const;
const VARIANTS = ['direct', 'unnamed', 'pooled'] as const;

async function requestsPerSecond(port: number, path: string, headers: Record<string, string>, seconds: number): Promise<number> {
  const result = await autocannon({ url: `http://127.0.0.1:${port}${path}`, headers, connections: CONNECTIONS, duration: seconds });
  if (result.non2xx || result.errors || result.timeouts) throw new Error(`port ${port}: ${result.non2xx} non-2xx (${JSON.stringify(result.statusCodeStats)}), ${result.errors} errors`);
  return result.requests.average;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  const { rows } = await client.query<{ id: number }>('SELECT id FROM entities WHERE deleted_at IS NULL ORDER BY id LIMIT 1 OFFSET 500');
  await client.end();
  const bouncer = await startPgBouncer({ target: DATABASE_URL, poolSize: POOL_SIZE, statementTimeoutMs: 15_000 });
  const clientId = 'pooled-bench-admin';
  const clientSecret = `vds_${randomBytes(32).toString('base64url')}`;
  const server = (port: number, env: Record<string, string> = {}): OurServer => ({
    port,
    databaseUrl: env.DATABASE_URL ?? DATABASE_URL,
    publicUrl: 'http://pooled-bench.local',
    clientId,
    clientSecret,
    env: { DATABASE_POOL_SIZE: String(POOL_SIZE), ...env },
  });
  const direct = await startOurServer(server(PORTS.direct));
  const unnamed = await startOurServer(server(PORTS.unnamed, { DATABASE_DIRECT_URL: DATABASE_URL }));
  const pooled = await startOurServer(server(PORTS.pooled, { DATABASE_URL: bouncer.url, DATABASE_DIRECT_URL: DATABASE_URL }));
  try {
    const headers = await obtainHeaders(server(PORTS.direct));
    const paths = {
      'REST list, filter + sort': `/api/entities?filter=${encodeURIComponent(LIST_FILTER)}&sort=-total_funding_usd&limit=25`,
      'REST entity by id': `/api/entities/${rows[0]!.id}`,
    };
    console.log(`${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${SECONDS} s, medians (req/s)\n`);
    console.log('| request | direct, named | direct, unnamed | through PgBouncer | unnamed / named | PgBouncer / direct |\n|---|---|---|---|---|---|');
    for (const [name, path] of Object.entries(paths)) {
      for (const which of VARIANTS) await requestsPerSecond(PORTS[which], path, headers, 2); // warm-up: JIT, pools, plans
      const results = { direct: [] as number[], unnamed: [] as number[], pooled: [] as number[] };
      for (let round = 0; round < ROUNDS; round += 1) {
        // Rotate which goes first, so none always runs in another's wake.
        for (let index = 0; index < VARIANTS.length; index += 1) {
          const which = VARIANTS[(index + round) % VARIANTS.length]!;
          results[which].push(await requestsPerSecond(PORTS[which], path, headers, SECONDS));
        }
      }
      const [a, b, c] = VARIANTS.map((which) => median(results[which]));
      console.log(`| ${name} | ${a!.toFixed(0)} | ${b!.toFixed(0)} | ${c!.toFixed(0)} | ${(b! / a!).toFixed(2)} | ${(c! / a!).toFixed(2)} |`);
    }
    const stats = (await bouncer.show('STATS')).find((row) => row.database === 'venture');
    console.log(`\nPgBouncer: ${stats?.total_query_count} queries, ${stats?.total_xact_count} transactions through it`);
  } finally {
    // The servers write their usage on the way out: the pooler stays until they are gone.
    await Promise.all([direct, unnamed, pooled].map((child) => new Promise((resolve) => (child.once('exit', resolve), child.kill('SIGTERM')))));
    await bouncer.stop();
  }
}

await main();
