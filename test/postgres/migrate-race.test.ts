// Two instances starting at once on one PostgreSQL apply each migration exactly once (advisory lock).
import { expect, it } from 'vitest';
import { openDatabase } from '../../src/db/client.ts';
import { migrate, readMigrations } from '../../src/db/migrate.ts';
import { createTestDatabase } from '../helpers/db.ts';

it('applies each migration once when two instances race', async () => {
  const fresh = await createTestDatabase({ migrated: false });
  const second = await openDatabase({ ...fresh.connection, poolSize: 2 });
  try {
    const [a, b] = await Promise.all([migrate(fresh.sql), migrate(second.sql)]);
    const all = (await readMigrations()).map((migration) => migration.name);
    expect([...a, ...b].sort()).toEqual(all.sort());
    const rows = await fresh.sql.query<{ count: string }>('SELECT count(*)::text AS count FROM "_migrations"');
    expect(Number(rows[0]!.count)).toBe(all.length);
  } finally {
    await second.close();
    await fresh.destroy();
  }
});
