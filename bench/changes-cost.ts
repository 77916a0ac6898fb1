/**
 * `npm run bench:changes`: what recording changes costs an import. One PostgreSQL database is seeded
 * with BENCH_ENTITIES entities (and the seeder's rounds, founders, valuations and news) again and
 * again, with the change triggers enabled and disabled in alternating rounds (so drift in a shared
 * machine's load hits both alike), and the medians are compared in the same run.
 *
 * Environment: BENCH_CHANGES_DATABASE_URL (default the local server's `venture_changes_bench`
 * database, created on first use), BENCH_ENTITIES (100000), BENCH_ROUNDS (3).
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

async function seedOnce(db: Database, recording: boolean): Promise<{ seconds: number; changes: number }> {
  // The last round's rows go unrecorded and outside the timing (the seeder's own clearing would note
  // every one as deleted); each round then imports into empty tables.
  await setRecording(db, false);
  await db.sql.transaction((tx) => clearReferenceData(tx, true));
  await db.sql.exec('TRUNCATE changes, change_commits');
  await setRecording(db, recording);
  await db.sql.exec('CHECKPOINT');
  const started = process.hrtime.bigint();
  await seedDatabase(db, { entities: ENTITIES, replace: true });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const [row] = await db.sql.query<{ n: string }>('SELECT count(*)::text AS n FROM changes');
  return { seconds, changes: Number(row!.n) };
}

async function main(): Promise<void> {
  await ensureDatabase(DATABASE_URL);
  const db = await openDatabase({ url: DATABASE_URL, poolSize: 4 });
  try {
    await migrate(db.sql);
    const triggers = await setRecording(db, true);
    console.log(`${triggers} change triggers; seeding ${ENTITIES.toLocaleString('en')} entities, ${ROUNDS} rounds each way`);
    const times = { on: [] as number[], off: [] as number[] };
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? (['on', 'off'] as const) : (['off', 'on'] as const);
      for (const mode of order) {
        const { seconds, changes } = await seedOnce(db, mode === 'on');
        times[mode].push(seconds);
        console.log(`round ${round + 1}, recording ${mode}: ${seconds.toFixed(1)} s, ${changes.toLocaleString('en')} changes recorded`);
      }
    }
    const on = median(times.on);
    const off = median(times.off);
    console.log(`median: recording on ${on.toFixed(1)} s, off ${off.toFixed(1)} s: recording adds ${(((on - off) / off) * 100).toFixed(1)}%`);
  } finally {
    await setRecording(db, true);
    await db.close();
  }
}

await main();
