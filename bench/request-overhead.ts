/**
 * `npm run bench:overhead`: the CPU our process spends on a request when its compiled reads are
 * answered from memory (bench/remembered-reads-server.ts), against node:http alone in the same process
 * (`/bare`). With PostgreSQL out of the measure, the figure moves by a few percent between runs where
 * bench:cpu's move by ten: the way to tell whether a change to the request path saved anything.
 *
 * Run after `npm run bench` has seeded the database (BENCH_DATABASE_URL, default `venture_bench`).
 * BENCH_SCENARIOS picks scenarios by a part of their name (default `by id`), BENCH_SECONDS (5) per
 * round, BENCH_ROUNDS (3), 16 connections. BENCH_CPU_PROFILE=<dir> writes the server's CPU profile there.
 * Each scenario is also measured through express's dispatch in front of the same app (`x-via: express`),
 * and with BENCH_FORMS=1 in the forms clients send: conditional, asking for gzip, a browser's (Origin).
 * BENCH_VIA_EXPRESS=0 leaves the express form out.
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { obtainHeaders, ROOT, serverEnvironment } from './our-server.ts';
import { cpuOf } from './process-cpu.ts';
import { scenarios } from './scenarios.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/venture_bench';
const WANTED = (process.env.BENCH_SCENARIOS ?? 'by id').split(',');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PROFILE_DIR = process.env.BENCH_CPU_PROFILE;
const PORT = 4833;
/** BENCH_FORMS=1 adds the forms real clients send (bench/forms.ts) to each scenario; the server allows ORIGIN. */
const FORMS = process.env.BENCH_FORMS === '1';
const ORIGIN = 'https://app.example.com';
/** BENCH_VIA_EXPRESS=0 leaves out the form through express's dispatch (a profile of our own path only). */
const VIA_EXPRESS = process.env.BENCH_VIA_EXPRESS !== '0';

const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 1 });
const ids = (await pool.query<{ id: number }>('SELECT id FROM entities WHERE deleted_at IS NULL ORDER BY id LIMIT 1000')).rows.map((row) => row.id);
await pool.end();
if (ids.length === 0) throw new Error(`${DATABASE_URL} holds no entities: run npm run bench first`);

const server = { port: PORT, databaseUrl: DATABASE_URL, clientId: 'bench-admin', clientSecret: `vds_${randomBytes(32).toString('base64url')}` };
const child = fork(join(ROOT, 'bench/remembered-reads-server.ts'), [], {
  cwd: ROOT,
  execArgv: ['--import', 'tsx', ...(PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [])],
  env: { ...serverEnvironment(server), CORS_ORIGINS: ORIGIN },
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
await new Promise((resolve) => child.once('message', resolve));

try {
  const headers = await obtainHeaders(server);
  const targets = [
    { name: 'node:http alone', method: 'GET' as const, path: '/bare', body: undefined, headers: {} },
    ...scenarios(ids)
      .filter((scenario) => WANTED.some((part) => scenario.name.toLowerCase().includes(part)))
      .flatMap((scenario) => {
        const plain = { ...headers, ...(scenario.ours.method === 'POST' ? { 'content-type': 'application/json' } : {}) };
        const form = (name: string, extra: Record<string, string>) => ({ name: `${scenario.name}, ${name}`, ...scenario.ours, headers: { ...plain, ...extra } });
        return [
          { name: scenario.name, ...scenario.ours, headers: plain },
          ...(FORMS
            ? [
                form('conditional', { 'if-none-match': 'W/"stale"' }),
                form('gzip client', { 'accept-encoding': 'gzip' }),
                form('browser (Origin, gzip)', { origin: ORIGIN, 'accept-encoding': 'gzip, deflate, br', accept: '*/*' }),
              ]
            : []),
          ...(VIA_EXPRESS ? [form('via express', { 'x-via': 'express' })] : []),
        ];
      }),
  ];
  console.log(`µs of our process's CPU per request, reads answered from memory, 16 connections, ${ROUNDS} rounds of ${SECONDS} s`);
  for (const target of targets) {
    const load = (seconds: number) =>
      autocannon({ url: `http://127.0.0.1:${PORT}${target.path}`, method: target.method, body: target.body, headers: target.headers, connections: 16, duration: seconds });
    await load(2);
    const rounds: string[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const before = cpuOf(child.pid!);
      const result = await load(SECONDS);
      const after = cpuOf(child.pid!);
      if (result.non2xx > 0) throw new Error(`${target.name}: ${result.non2xx} answers were not 2xx`);
      rounds.push((((after.user + after.system - before.user - before.system) / result.requests.total)).toFixed(0));
    }
    console.log(`${target.name.padEnd(40)} ${rounds.join('  ')}`);
  }
} finally {
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}
