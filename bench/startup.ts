/**
 * `npm run bench:startup`: what one instance costs to start and to hold. For the embedded database and
 * PostgreSQL, each already migrated and holding the demo data (a first start prepares them and is not
 * counted), BENCH_RUNS starts of the compiled server (`npm start`: node dist/main.js) and, for the
 * ratio, of the sources under tsx (`npm run dev`): the time from spawning the process to the first 200
 * from /readyz, the RSS (/proc/<pid>/status) when ready, and the RSS after a burst of BENCH_BURST reads
 * (lists, records, filters, an aggregate, GraphQL; BENCH_CONCURRENCY at a time). Medians are printed.
 *
 * Environment: BENCH_STARTUP_DATABASE_URL (default the local server's `venture_startup`, created on
 * first use), BENCH_RUNS (5), BENCH_BURST (2000), BENCH_CONCURRENCY (8).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureDatabase } from '../src/db/ensure-database.ts';
import { buildServer, obtainHeaders, ROOT, type OurServer } from './our-server.ts';
import { START_NODE_FLAGS } from '../test/helpers/start-command.ts';

const DATABASE_URL = process.env.BENCH_STARTUP_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/venture_startup';
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BURST = Number(process.env.BENCH_BURST ?? 2_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const PORT = 4831;

const COMMANDS = {
  compiled: [...START_NODE_FLAGS, 'dist/main.js'],
  tsx: ['--import', 'tsx', 'src/main.ts'],
} as const;

interface Sample {
  readyMs: number;
  rssReadyMb: number;
  rssBurstMb: number;
}

const rssMb = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

function spawnServer(command: readonly string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, [...command], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, PORT: String(PORT), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function untilReady(timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (!(await fetch(`http://127.0.0.1:${PORT}/readyz`).then((response) => response.ok, () => false))) {
    if (Date.now() - started > timeoutMs) throw new Error('the server did not become ready');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function burst(headers: Record<string, string>): Promise<void> {
  const paths = [
    '/api/entities?limit=50',
    '/api/entities?limit=20&filter=' + encodeURIComponent('name[contains]:a') + '&sort=-total_funding_usd',
    '/api/transactions?limit=50&sort=-date',
    '/api/aggregate/entities?metric=count&group_by=hq_country',
    '/api/news?limit=20',
  ];
  const { data } = (await (await fetch(`http://127.0.0.1:${PORT}/api/entities?limit=100&fields=id`, { headers })).json()) as { data: { id: number }[] };
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < BURST; index = next++) {
      const path = index % 7 === 5 ? `/api/entities/${data[index % data.length]!.id}` : paths[index % paths.length]!;
      const response = index % 7 === 6
        ? await fetch(`http://127.0.0.1:${PORT}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: '{ entities(limit: 10) { data { name founders { name } } } }' }) })
        : await fetch(`http://127.0.0.1:${PORT}${path}`, { headers });
      if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      await response.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

async function measure(command: readonly string[], env: Record<string, string>, server: OurServer): Promise<Sample> {
  const started = performance.now();
  const child = spawnServer(command, env);
  try {
    await untilReady(120_000);
    const readyMs = performance.now() - started;
    const rssReadyMb = rssMb(child.pid!);
    await burst(await obtainHeaders(server));
    return { readyMs, rssReadyMb, rssBurstMb: rssMb(child.pid!) };
  } finally {
    await stop(child);
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  buildServer();
  await ensureDatabase(DATABASE_URL);
  const server: OurServer = { port: PORT, databaseUrl: DATABASE_URL, clientId: 'bench-startup', clientSecret: `vds_${randomBytes(32).toString('base64url')}` };
  const shared = { PUBLIC_URL: `http://127.0.0.1:${PORT}`, ADMIN_CLIENT_ID: server.clientId, ADMIN_CLIENT_SECRET: server.clientSecret };
  const databases = {
    embedded: { ...shared, DATA_DIR: mkdtempSync(join(tmpdir(), 'vda-startup-')) },
    postgres: { ...shared, DATA_DIR: mkdtempSync(join(tmpdir(), 'vda-startup-')), DATABASE_URL },
  };
  console.log(`${RUNS} starts each; burst of ${BURST} reads, ${CONCURRENCY} at a time; medians`);
  console.log('| database | command | to /readyz 200 | RSS ready | RSS after the burst |\n|---|---|---|---|---|');
  for (const [name, env] of Object.entries(databases)) {
    // The first start migrates and loads the demo data; it is what every later start no longer does.
    const prepare = spawnServer(COMMANDS.compiled, env);
    await untilReady(600_000);
    await stop(prepare);
    for (const [label, command] of Object.entries(COMMANDS)) {
      const samples: Sample[] = [];
      for (let run = 0; run < RUNS; run += 1) samples.push(await measure(command, env, server));
      const ms = median(samples.map((sample) => sample.readyMs));
      console.log(
        `| ${name} | ${label} | ${ms.toFixed(0)} ms | ${median(samples.map((s) => s.rssReadyMb)).toFixed(0)} MB | ${median(samples.map((s) => s.rssBurstMb)).toFixed(0)} MB |`,
      );
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
