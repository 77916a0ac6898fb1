/**
 * Similar companies at scale (bench/README.md, "Similar companies"): our server on a seeded
 * PostgreSQL database answers GET /api/entities/{id}/similar for BENCH_SAMPLES companies spread over
 * the id range, one request at a time (the latency a caller sees, authentication and usage included),
 * for each variant (default, limit=100, a filter, without read:investors); prints p50 / p90 / max.
 *
 *   BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/venture_bench_1m npm run bench:similar
 *
 * BENCH_EXPLAIN=<id> prints the plan of the default statement for that entity instead (EXPLAIN ANALYZE),
 * and the statement's own account of how it found the candidates (its plan column).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { readModels } from '../src/compile/model.ts';
import { similarStatement } from '../src/compile/similar-sql.ts';
import { obtainHeaders, startOurServer, type OurServer } from './our-server.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/venture_bench';
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);

const VARIANTS: { name: string; query: string; investors: boolean }[] = [
  { name: 'default (limit 10)', query: '', investors: true },
  { name: 'limit=100', query: '?limit=100', investors: true },
  { name: 'filter=hq_country:Germany', query: '?filter=hq_country%3AGermany', investors: true },
  { name: 'filter=launch_year[gte]:2015', query: '?filter=launch_year%5Bgte%5D%3A2015', investors: true },
  { name: 'without read:investors', query: '', investors: false },
];

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

async function sampleIds(client: pg.Client): Promise<number[]> {
  // Companies spread evenly over the id range: old and new, large and small.
  const { rows } = await client.query<{ id: number }>(
    `WITH r AS (SELECT min(id) AS lo, max(id) AS hi FROM entities)
     SELECT DISTINCT (SELECT e.id FROM entities e WHERE e.is_company AND e.deleted_at IS NULL AND e.id >= r.lo + (r.hi - r.lo) * n / $1
                       ORDER BY e.id LIMIT 1) AS id
       FROM r, generate_series(0, $1 - 1) n ORDER BY id`,
    [SAMPLES],
  );
  return rows.map((row) => row.id);
}

async function explain(client: pg.Client, id: number): Promise<void> {
  const { sql, params } = similarStatement(readModels(), id, 10, true, { deleted_at: null });
  const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${sql}`, params);
  console.log(rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n'));
  const { rows: [answer] } = await client.query<{ plan: string }>(sql, params);
  console.log(`how the candidates were found: ${answer!.plan}`);
}

async function main(): Promise<void> {
  // JIT off as on the server's connections (src/db/postgres.ts): a plan printed with JIT compiling
  // hundreds of milliseconds would not be the plan a request runs.
  const client = new pg.Client({ connectionString: DATABASE_URL, options: '-c jit=off' });
  await client.connect();
  if (process.env.BENCH_EXPLAIN) {
    await explain(client, Number(process.env.BENCH_EXPLAIN));
    await client.end();
    return;
  }
  const { rows: [counts] } = await client.query<{ entities: string; tags: string; backers: string }>(
    'SELECT (SELECT count(*) FROM entities) AS entities, (SELECT count(*) FROM entity_tags) AS tags, (SELECT count(*) FROM round_investors) AS backers',
  );
  const ids = await sampleIds(client);
  await client.end();
  console.log(`database: ${counts!.entities} entities, ${counts!.tags} tag assignments, ${counts!.backers} round investors; ${ids.length} sources`);

  const server: OurServer = { port: 4831, databaseUrl: DATABASE_URL, clientId: 'bench-similar', clientSecret: `vds_${randomBytes(32).toString('base64url')}` };
  const child = await startOurServer(server);
  try {
    const headers = await obtainHeaders(server);
    const base = `http://127.0.0.1:${server.port}`;
    const limited = await limitedHeaders(base, headers);
    console.log('| variant | p50 ms | p90 ms | max ms | mean results |\n|---|---|---|---|---|');
    for (const variant of VARIANTS) {
      const times: number[] = [];
      let results = 0;
      for (const id of ids) {
        const started = performance.now();
        const response = await fetch(`${base}/api/entities/${id}/similar${variant.query}`, { headers: variant.investors ? headers : limited });
        const body = (await response.json()) as { data: unknown[] };
        times.push(performance.now() - started);
        if (response.status !== 200) throw new Error(`${variant.name} of ${id}: ${response.status} ${JSON.stringify(body)}`);
        results += body.data.length;
      }
      times.sort((a, b) => a - b);
      const ms = (value: number) => value.toFixed(1);
      console.log(`| ${variant.name} | ${ms(percentile(times, 0.5))} | ${ms(percentile(times, 0.9))} | ${ms(times[times.length - 1]!)} | ${(results / ids.length).toFixed(1)} |`);
    }
  } finally {
    child.kill('SIGTERM');
  }
}

/** Headers of a key that may read entities but not investors. */
async function limitedHeaders(base: string, admin: Record<string, string>): Promise<Record<string, string>> {
  const created = await fetch(`${base}/api/api-keys`, {
    method: 'POST',
    headers: admin,
    body: JSON.stringify({ name: 'bench-similar-no-investors', permissions: ['read:entities'] }),
  });
  const key = ((await created.json()) as { data: { client_id: string; client_secret: string } }).data;
  const server = { port: Number(new URL(base).port), databaseUrl: DATABASE_URL, clientId: key.client_id, clientSecret: key.client_secret };
  return obtainHeaders(server);
}

await main();
