/**
 * `npm run bench:changes`: what recording changes costs an import. One PostgreSQL database is seeded
 * with BENCH_ENTITIES entities (and the seeder's rounds, founders, valuations and news) again and
 * again, with the change triggers enabled and disabled in alternating rounds (so drift in a shared
 * machine's load hits both alike), and the medians are compared in the same run.
 *
 * Environment: BENCH_CHANGES_DATABASE_URL (default the local server's `venture_changes_bench`
 * database, created on first use), BENCH_ENTITIES (100000), BENCH_ROUNDS (3). It also reports the time
 * the trigger functions took (track_functions): on a busy machine the medians drift, that share less.
 */
import { openDatabase, quoteIdentifier, type Database } from '../src/db/client.ts';
import { ensureDatabase } from '../src/db/ensure-database.ts';
import { migrate } from '../src/db/migrate.ts';
import { seedDatabase } from '../src/data/seed/index.ts';
import { clearReferenceData } from '../src/data/seed/reference-tables.ts';

const DATABASE_URL = process.env.BENCH_CHANGES_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/venture_changes_bench';
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/** Every trigger that records changes (the `changes` migration names them `<table>_..._changes_<op>`). */
async function setRecording(db: Database, enabled: boolean): Promise<number> {
  const triggers = await db.sql.query<{ table: string; name: string }>(
    `SELECT c.relname AS table, t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
      WHERE t.tgname LIKE '%changes_%' AND NOT t.tgisinternal AND c.relnamespace = 'public'::regnamespace`,
  );
  for (const { table, name } of triggers) {
    await db.sql.exec(`ALTER TABLE ${quoteIdentifier(table)} ${enabled ? 'ENABLE' : 'DISABLE'} TRIGGER ${quoteIdentifier(name)}`);
  }
  return triggers.length;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Time spent in the recording trigger functions since the last reset (PostgreSQL's track_functions). */
async function triggerSeconds(db: Database): Promise<number> {
  const [row] = await db.sql.query<{ ms: number | null }>(
    `SELECT sum(total_time) AS ms FROM pg_stat_user_functions WHERE funcname IN ('record_changes', 'number_change_commit')`,
  );
  return (row?.ms ?? 0) / 1000;
}

async function seedOnce(db: Database, recording: boolean): Promise<{ seconds: number; changes: number; inTriggers: number }> {
  // The last round's rows go unrecorded and outside the timing (the seeder's own clearing would note
  // every one as deleted); each round then imports into empty tables.
  await setRecording(db, false);
  await db.sql.transaction((tx) => clearReferenceData(tx, true));
  await db.sql.exec('TRUNCATE changes, change_commits');
  await setRecording(db, recording);
  await db.sql.exec('CHECKPOINT');
  await db.sql.query('SELECT pg_stat_reset()');
  const started = process.hrtime.bigint();
  await seedDatabase(db, { entities: ENTITIES, replace: true });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const [row] = await db.sql.query<{ n: string }>('SELECT count(*)::text AS n FROM changes');
  // The statistics collector reports a moment after the transactions end.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return { seconds, changes: Number(row!.n), inTriggers: await triggerSeconds(db) };
}

async function main(): Promise<void> {
  await ensureDatabase(DATABASE_URL);
  const db = await openDatabase({ url: DATABASE_URL, poolSize: 4 });
  try {
    await migrate(db.sql);
    // Sessions opened from now on time the trigger functions (a second, load-independent measure).
    await db.sql.exec(`ALTER DATABASE ${quoteIdentifier(new URL(DATABASE_URL).pathname.slice(1))} SET track_functions = 'pl'`);
    const triggers = await setRecording(db, true);
    console.log(`${triggers} change triggers; seeding ${ENTITIES.toLocaleString('en')} entities, ${ROUNDS} rounds each way`);
    const times = { on: [] as number[], off: [] as number[] };
    const shares: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
      for (const mode of order) {
        const { seconds, changes, inTriggers } = await seedOnce(db, mode === 'on');
        times[mode].push(seconds);
        if (mode === 'on') shares.push(inTriggers / seconds);
        const spent = mode === 'on' ? `, ${inTriggers.toFixed(1)} s of it in the recording triggers` : '';
        console.log(`round ${round + 1}, recording ${mode}: ${seconds.toFixed(1)} s${spent}, ${changes.toLocaleString('en')} changes recorded`);
      }
    }
    const on = median(times.on);
    const off = median(times.off);
    console.log(`median: recording on ${on.toFixed(1)} s, off ${off.toFixed(1)} s: recording adds ${(((on - off) / off) * 100).toFixed(1)}%`);
    console.log(`time in the recording triggers, median share of the seed with recording on: ${(median(shares) * 100).toFixed(1)}%`);
  } finally {
    await setRecording(db, true);
    await db.close();
  }
}

await main();
