/**
 * Aggregates beside the hand-written statement, in one run (bench/README.md, "Aggregates"): for each
 * question of bench/aggregate-questions.ts, our server's answer is checked against the baseline's
 * (the same groups and numbers), then both are loaded with autocannon in alternating rounds.
 *
 *   npm run bench:aggregates
 *
 * Environment: BENCH_DATABASE_URL (default the local `venture_bench`, seeded by `npm run bench`),
 * BENCH_SECONDS (per round, default 10), BENCH_ROUNDS (default 3), BENCH_CONNECTIONS (default 8).
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { QUESTIONS } from './aggregate-questions.ts';
import { obtainHeaders, ROOT, startOurServer, type OurServer } from './our-server.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/venture_bench';
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const BASELINE_PORT = 4822;

interface Measurement {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function load(url: string, headers: Record<string, string>): Promise<Measurement> {
  const result = await autocannon({ url, headers, connections: CONNECTIONS, duration: SECONDS });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.non2xx + result.errors + result.timeouts };
}

const medianRound = (rounds: Measurement[]): Measurement => [...rounds].sort((a, b) => a.rps - b.rps)[Math.floor(rounds.length / 2)]!;

async function rowCounts(): Promise<string> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  const { rows } = await client.query<{ entities: string; rounds: string }>(
    'SELECT (SELECT count(*) FROM entities) AS entities, (SELECT count(*) FROM funding_rounds) AS rounds',
  );
  await client.end();
  return `${rows[0]!.entities} entities, ${rows[0]!.rounds} rounds`;
}

/** The same groups and numbers from both (floats to 1e-9), so the comparison is of equal work. */
async function assertSameAnswer(ours: unknown, baseline: unknown, name: string): Promise<void> {
  const a = ours as { data: Record<string, unknown>[]; page: { total: number } };
  const b = baseline as { data: Record<string, unknown>[]; total: number };
  const same = a.page.total === b.total && a.data.length === b.data.length &&
    a.data.every((row, index) => Object.entries(row).every(([key, value]) => {
      const other = b.data[index]![key];
      return typeof value === 'number' ? Math.abs(value - Number(other)) <= Math.abs(value) * 1e-9 : value === other;
    }));
  if (!same) throw new Error(`${name}: our answer differs from the baseline's\n${JSON.stringify(a).slice(0, 500)}\n${JSON.stringify(b).slice(0, 500)}`);
}

async function main(): Promise<void> {
  const server: OurServer = { port: 4821, databaseUrl: DATABASE_URL, clientId: 'bench-aggregates', clientSecret: `vds_${randomBytes(32).toString('base64url')}` };
  console.log(`database: ${await rowCounts()}; ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections`);
  const ours = await startOurServer(server);
  const baseline = fork(join(ROOT, 'bench/aggregate-baseline-server.ts'), [], {
    env: { ...process.env, PORT: String(BASELINE_PORT), DATABASE_URL },
    execArgv: ['--import', 'tsx'],
  });
  try {
    const headers = await obtainHeaders(server);
    const rows: string[] = [];
    for (const question of QUESTIONS) {
      const ourUrl = `http://127.0.0.1:${server.port}${question.ours}`;
      const baselineUrl = `http://127.0.0.1:${BASELINE_PORT}${question.path}`;
      for (let attempt = 0; attempt < 40 && !(await fetch(baselineUrl).then((r) => r.ok, () => false)); attempt += 1) await new Promise((r) => setTimeout(r, 250));
      await assertSameAnswer(await (await fetch(ourUrl, { headers })).json(), await (await fetch(baselineUrl)).json(), question.name);
      const oursRounds: Measurement[] = [];
      const baseRounds: Measurement[] = [];
      for (let round = 0; round < ROUNDS; round += 1) {
        oursRounds.push(await load(ourUrl, headers));
        baseRounds.push(await load(baselineUrl, {}));
      }
      const [a, b] = [medianRound(oursRounds), medianRound(baseRounds)];
      rows.push(
        `| ${question.name} | ${a.rps.toFixed(1)} | ${a.p50} / ${a.p99} | ${b.rps.toFixed(1)} | ${b.p50} / ${b.p99} | ${(b.p50 ? a.p50 / b.p50 : 0).toFixed(2)}x | ${a.errors + b.errors} |`,
      );
    }
    console.log('| question | ours req/s | ours p50 / p99 ms | hand-written req/s | hand-written p50 / p99 ms | p50 ratio | errors |');
    console.log('|---|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
  } finally {
    ours.kill('SIGTERM');
    baseline.kill('SIGTERM');
  }
}

await main();
