/**
 * Retention (src/changes/retention.ts): changes older than CHANGES_RETENTION_DAYS are pruned by whole
 * commits, a cursor before them is then 410, and nothing a follower of the service has not passed yet
 * is pruned.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneChanges } from '../../../src/changes/retention.ts';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';

let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 200, seed: 2 });
  auth = await createApiKeyAndToken(app);
}, 120_000);

afterAll(async () => app?.close());

const commits = async () => (await app.db.sql.query<{ position: string }>('SELECT position::text FROM change_commits ORDER BY position')).map((row) => row.position);

async function firstId(): Promise<string> {
  const response = await auth.fetch('/api/changes?limit=1');
  return ((await response.json()) as { data: { id: string }[] }).data[0]!.id;
}

describe('retention', () => {
  it('keeps what a follower has not passed, then prunes old commits whole; a cursor before them is 410', async () => {
    const [old, ...rest] = await commits();
    expect(rest.length).toBeGreaterThan(0);
    const oldest = await firstId();
    // Only the first commit is older than the retention period.
    await app.db.sql.query(`UPDATE change_commits SET committed_at = now() - interval '40 days' WHERE position = $1`, [old]);
    // The followers have not passed it yet: nothing goes.
    expect(await pruneChanges(app.db.sql, 30)).toBe(0);
    expect(await commits()).toContain(old);

    await app.db.sql.query(`UPDATE change_followers SET position = (SELECT max(position) FROM change_commits), resource = '', object_id = 0`);
    expect(await pruneChanges(app.db.sql, 30)).toBe(1);
    expect(await commits()).toEqual(rest);
    expect(await app.db.sql.query(`SELECT 1 FROM changes c LEFT JOIN change_commits cc USING (xid) WHERE cc.xid IS NULL`)).toEqual([]);

    const expired = await auth.fetch(`/api/changes?since=${oldest}`);
    expect(expired.status).toBe(410);
    expect(((await expired.json()) as { error: { code: string } }).error.code).toBe('CURSOR_EXPIRED');
    // Without `since`, the feed starts at the oldest change kept.
    const [kept] = await app.db.sql.query<{ position: string }>(
      `SELECT cc.position::text FROM changes c JOIN change_commits cc USING (xid) ORDER BY cc.position, c.resource, c.object_id LIMIT 1`,
    );
    expect(kept!.position).toBe(rest[0]);
    expect(await firstId()).not.toBe(oldest);
    // Nothing else is old enough.
    expect(await pruneChanges(app.db.sql, 30)).toBe(0);
  });
});
