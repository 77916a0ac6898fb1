/**
 * GET /api/changes and the `changes` field: every write of the six data resources, recorded by the
 * writing transaction (here the seeder, plain SQL, a rolled-back transaction), read in commit order,
 * followed to its end at volume, with the contract's errors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';

interface Change {
  id: string;
  type: string;
  object_id: number;
  occurred_at: string;
  changed_fields: string[];
}
interface Page {
  data: Change[];
  page: { limit: number; next_cursor: string };
}

let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 1500, seed: 7 });
  auth = await createApiKeyAndToken(app);
}, 180_000);

afterAll(async () => app?.close());

async function page(query: string, credentials = auth): Promise<Page> {
  const response = await credentials.fetch(`/api/changes${query}`);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as Page;
}

/** Follows the feed from `since` to its end; every page but the last is full. */
async function follow(since: string | undefined, query = ''): Promise<{ changes: Change[]; cursor: string; pages: number }> {
  const changes: Change[] = [];
  let cursor = since;
  let pages = 0;
  for (;;) {
    const next = await page(`?limit=1000${cursor ? `&since=${cursor}` : ''}${query}`);
    pages += 1;
    changes.push(...next.data);
    cursor = next.page.next_cursor;
    if (next.data.length < 1000) return { changes, cursor, pages };
  }
}

const count = async (sql: string): Promise<number> => Number((await app.db.sql.query<{ n: string }>(sql))[0]!.n);

describe('following the feed', () => {
  it('returns every recorded write of a seeded database once, in commit order, to its end', async () => {
    const { changes, pages } = await follow(undefined);
    expect(pages).toBeGreaterThan(3);
    const ids = changes.map((change) => change.id);
    expect(new Set(ids).size).toBe(ids.length);
    // One change per record created: the seeder's rows, each of the six types.
    const created = (type: string) => changes.filter((change) => change.type === `${type}.created`).length;
    expect(created('entity')).toBe(await count('SELECT count(*) AS n FROM entities'));
    expect(created('investor')).toBe(await count('SELECT count(*) AS n FROM investors'));
    expect(created('founder')).toBe(await count('SELECT count(*) AS n FROM founders'));
    expect(created('transaction')).toBe(await count('SELECT count(*) AS n FROM funding_rounds'));
    expect(created('valuation')).toBe(await count('SELECT count(*) AS n FROM valuations'));
    expect(created('news')).toBe(await count('SELECT count(*) AS n FROM news_articles'));
    expect(changes.length).toBe(await count('SELECT count(*) AS n FROM changes'));
    // Occurred-at never goes back: commit order.
    const times = changes.map((change) => Date.parse(change.occurred_at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const entity = changes.find((change) => change.type === 'entity.created')!;
    expect(entity.changed_fields).toEqual(expect.arrayContaining(['name', 'hq_country', 'tags']));
  });

  it('reports an update with the fields that changed, the investor profile of an entity too, and a soft delete', async () => {
    const head = (await page('?since=now')).page.next_cursor;
    const [investor] = await app.db.sql.query<{ id: number }>('SELECT id FROM investors ORDER BY id LIMIT 1');
    await app.db.sql.query(`UPDATE entities SET name = name || ' (renamed)', updated_at = now() WHERE id = $1`, [investor!.id]);
    await app.db.sql.query(`UPDATE entities SET deleted_at = now() WHERE id = $1`, [investor!.id + 1]);
    // A write nobody can see (a hidden column) is no change.
    await app.db.sql.query(`UPDATE entities SET slug = slug || '-x' WHERE id = $1`, [investor!.id + 2]);
    const { changes } = await follow(head);
    expect(changes.map(({ type, object_id, changed_fields }) => ({ type, object_id, changed_fields }))).toEqual([
      { type: 'entity.updated', object_id: investor!.id, changed_fields: ['name', 'updated_at'] },
      { type: 'investor.updated', object_id: investor!.id, changed_fields: ['name'] },
      { type: 'entity.deleted', object_id: investor!.id + 1, changed_fields: ['deleted_at'] },
      ...((await count(`SELECT count(*) AS n FROM investors WHERE id = ${investor!.id + 1}`))
        ? [{ type: 'investor.deleted', object_id: investor!.id + 1, changed_fields: [] }]
        : []),
    ]);
  });

  it('records nothing for a rolled-back write, and merges writes of one record in one transaction', async () => {
    const head = (await page('?since=now')).page.next_cursor;
    await expect(
      app.db.sql.transaction(async (tx) => {
        await tx.query(`UPDATE entities SET name = 'never' WHERE id = 3`);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    await app.db.sql.transaction(async (tx) => {
      await tx.query(`UPDATE entities SET launch_year = 1901 WHERE id = 4`);
      await tx.query(`UPDATE entities SET hq_city = 'Merged' WHERE id = 4`);
      await tx.query(`DELETE FROM entity_tags WHERE entity_id = 4`);
    });
    const { changes, cursor } = await follow(head);
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ type: 'entity.updated', object_id: 4 });
    // Its tags too when it had any: a list that lost its items changed.
    expect(changes[0]!.changed_fields).toEqual(expect.arrayContaining(['hq_city', 'launch_year']));
    // Nothing after it: the cursor of an empty page stays where it is.
    expect((await page(`?since=${cursor}`)).data).toEqual([]);
    expect((await page(`?since=${cursor}`)).page.next_cursor).toBe(cursor);
  });

  it('a change id is a cursor; a page ending short moves the cursor past what the type filter skipped', async () => {
    const all = (await page('?limit=5')).data;
    const after = await page(`?limit=2&since=${all[2]!.id}`);
    expect(after.data.map((change) => change.id)).toEqual([all[3]!.id, all[4]!.id]);
    const head = (await page('?since=now')).page.next_cursor;
    const news = await follow(undefined, '&types=news');
    expect(news.changes.every((change) => change.type.startsWith('news.'))).toBe(true);
    expect(news.cursor).toBe(head);
  });

  it('GraphQL answers the same page', async () => {
    const rest = await page('?limit=7&types=transaction,valuation');
    const { body } = await auth.graphql(
      '{ changes(limit: 7, types: "transaction,valuation") { data { id type object_id occurred_at changed_fields } page { limit next_cursor } } }',
    );
    expect(body.errors).toBeUndefined();
    expect(body.data!.changes).toEqual(rest);
  });
});

describe('refusals', () => {
  const status = async (query: string, credentials = auth) => {
    const response = await credentials.fetch(`/api/changes${query}`);
    return { status: response.status, body: (await response.json()) as { error: { code: string; message: string; details?: unknown[] } } };
  };

  it('bad parameters are 400 naming them', async () => {
    expect((await status('?limit=0')).body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'query.limit' }] });
    expect((await status('?limit=1001')).status).toBe(400);
    expect((await status('?since=abc')).body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'query.since' }] });
    const typo = await status('?types=entity,fonder');
    expect(typo.status).toBe(400);
    expect(typo.body.error.message).toContain('founder');
    expect((await status('?sinse=now')).status).toBe(400);
  });

  it('a well-formed cursor this feed never handed out (past the head, an unknown resource) is 400, on both transports', async () => {
    const cursor = (text: string) => Buffer.from(text).toString('base64url');
    const head = BigInt(Buffer.from((await page('?since=now')).page.next_cursor, 'base64url').toString().split('.')[0]!);
    const forged = [
      cursor(`${head + 1n}.~.0`),
      cursor(`${head + 1n}.entity.1`),
      cursor('9223372036854775807.~.0'),
      cursor(`${head}.ecosystem.1`),
      cursor('1.zzz.1'),
      cursor(`${head}.~.5`),
    ];
    for (const since of forged) {
      const refused = await status(`?since=${since}`);
      expect([since, refused.status]).toEqual([since, 400]);
      expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'query.since' }] });
      const { body } = await auth.graphql(`{ changes(since: "${since}") { page { next_cursor } } }`);
      expect(body.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    }
    // The head itself, and a change id inside it, are places the feed hands out.
    expect((await page(`?since=${cursor(`${head}.~.0`)}`)).data).toEqual([]);
  });

  it('a type the caller may not read is 403; by default only the readable ones come', async () => {
    const newsOnly = await createApiKeyAndToken(app, { permissions: ['read:news'] });
    expect((await status('?types=entity', newsOnly)).body.error).toMatchObject({ code: 'FORBIDDEN' });
    expect((await status('?types=entity', newsOnly)).status).toBe(403);
    const { data } = await page('?limit=1000', newsOnly);
    expect(data.length).toBeGreaterThan(0);
    expect(data.every((change) => change.type.startsWith('news.'))).toBe(true);
    const none = await createApiKeyAndToken(app, { permissions: ['read:usage'] });
    expect((await status('', none)).status).toBe(403);
  });

  it('a cursor inside or before what retention pruned is 410 CURSOR_EXPIRED', async () => {
    const [first] = await app.db.sql.query<{ position: string; changes: number }>(
      `SELECT cc.position::text, count(*)::int AS changes FROM changes c JOIN change_commits cc USING (xid)
        GROUP BY cc.position ORDER BY cc.position LIMIT 1`,
    );
    // The first commit's changes, then the first three of the next one.
    const read = (await page(`?limit=${first!.changes + 3}`)).data;
    await app.db.sql.query('UPDATE change_retention SET position = $1', [first!.position]);
    try {
      for (const cursor of [read[0]!.id, read[first!.changes - 1]!.id]) {
        const expired = await status(`?since=${cursor}`);
        expect(expired.status).toBe(410);
        expect(expired.body.error.code).toBe('CURSOR_EXPIRED');
      }
      // In the next commit, still fine; and without `since` the feed starts with that commit.
      expect((await page(`?limit=1&since=${read[first!.changes]!.id}`)).data[0]!.id).toBe(read[first!.changes + 1]!.id);
      expect((await page('?limit=1')).data[0]!.id).toBe(read[first!.changes]!.id);
    } finally {
      await app.db.sql.query('UPDATE change_retention SET position = 0');
    }
  });
});
