/**
 * A bench database at its size: migrated, and seeded once with `entities` entities (again only when
 * its count differs), as `npm run bench` and the search and match benches prepare theirs.
 */
import type { Database } from '../src/db/client.ts';
import { migrate } from '../src/db/migrate.ts';
import { seedDatabase } from '../src/data/seed/index.ts';

export async function seedOnce(db: Database, entities: number): Promise<void> {
  await migrate(db.sql);
  const [row] = await db.sql.query<{ n: string }>('SELECT count(*)::text AS n FROM entities');
  if (Number(row!.n) === entities) return;
  const started = Date.now();
  console.log(`Seeding ${entities} entities...`);
  await seedDatabase(db, { entities, replace: true });
  // As autovacuum leaves a loaded database: until the visibility map is set, every index-only scan
  // (a record's tags, its external ids) reads the heap as well, and a bench would measure the load.
  await db.sql.exec('VACUUM ANALYZE');
  console.log(`Seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
