/**
 * The changes feed and ecosystem membership at the size users run: the demo data set (24k entities,
 * 38k rounds), loaded as `npm start` loads it, its whole feed followed to the end, and a membership
 * follower taken past all of it (in one jump: a backlog that large is recomputed whole).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPass } from '../../../src/changes/follower.ts';
import { membershipFollower } from '../../../src/changes/membership.ts';
import { createLogger } from '../../../src/logger.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';

let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  app = await startTestApp({ demo: true });
  auth = await createApiKeyAndToken(app);
}, 300_000);

afterAll(async () => app?.close());

const count = async (table: string): Promise<number> => Number((await app.db.sql.query<{ n: string }>(`SELECT count(*)::text AS n FROM ${table}`))[0]!.n);

describe('the demo data set', () => {
  it('its whole feed, followed to the end, holds one created change per record of every type, each once', async () => {
    const created = new Map<string, number>();
    const ids = new Set<string>();
    let total = 0;
    for (let cursor = ''; ; ) {
      const response = await auth.fetch(`/api/changes?limit=1000${cursor}`);
      expect(response.status).toBe(200);
      const page = (await response.json()) as { data: { id: string; type: string }[]; page: { next_cursor: string } };
      for (const change of page.data) {
        ids.add(change.id);
        if (change.type.endsWith('.created')) created.set(change.type, (created.get(change.type) ?? 0) + 1);
      }
      total += page.data.length;
      if (page.data.length < 1000) break;
      cursor = `&since=${page.page.next_cursor}`;
    }
    expect(ids.size).toBe(total);
    expect(total).toBe(await count('changes'));
    expect(Object.fromEntries(created)).toEqual({
      'entity.created': await count('entities'),
      'investor.created': await count('investors'),
      'founder.created': await count('founders'),
      'transaction.created': await count('funding_rounds'),
      'valuation.created': await count('valuations'),
      'news.created': await count('news_articles'),
    });
    expect(created.get('entity.created')).toBeGreaterThan(24_000);
  });

  it('a membership follower passes all of it and keeps exactly the matching entities', async () => {
    const created = await auth.fetch('/api/ecosystems', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ slug: 'bay', name: 'Bay', filter: 'and(hq_city:San Francisco,launch_year[gte]:2010)' }),
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { data: { id: number } }).data.id;
    const follower = membershipFollower({ logger: createLogger({ level: 'silent' }), onChange: async () => undefined });
    // The demo load is a backlog of about 150 batches: one pass recomputes the ecosystem whole and jumps to the head.
    let passes = 0;
    for (let pass = { full: true }; pass.full; passes += 1) pass = await runPass(app.db.sql, follower, 1_000);
    expect(passes).toBe(1);
    const [place] = await app.db.sql.query<{ position: string }>("SELECT position::text FROM change_followers WHERE name = 'ecosystem-membership'");
    const [head] = await app.db.sql.query<{ position: string }>('SELECT position::text FROM change_clock');
    expect(place!.position).toBe(head!.position);
    const members = await app.db.sql.query<{ entity_id: number }>('SELECT entity_id FROM ecosystem_members WHERE ecosystem_id = $1 ORDER BY entity_id', [id]);
    const matching = await app.db.sql.query<{ id: number }>(
      `SELECT id FROM entities WHERE hq_city = 'San Francisco' AND launch_year >= 2010 AND deleted_at IS NULL ORDER BY id`,
    );
    expect(matching.length).toBeGreaterThan(100);
    expect(members.map((row) => row.entity_id)).toEqual(matching.map((row) => row.id));
  });
});
