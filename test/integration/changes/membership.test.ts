/**
 * Ecosystem membership followed from the changes feed (src/changes/membership.ts): a company imported
 * into the city an ecosystem filters on enters it, moving it away leaves it, a soft delete leaves it, an
 * edited filter reports the differences, and a new or deactivated ecosystem reports nothing. Each pass
 * runs the follower as the background worker does, in one transaction.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPass } from '../../../src/changes/follower.ts';
import { membershipFollower, type MembershipChange } from '../../../src/changes/membership.ts';
import { importDirectory } from '../../../src/data/import/index.ts';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { createLogger } from '../../../src/logger.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';

let app: TestApp;
let auth: TestCredentials;
let dir: string;
let city: string;
let ecosystemId: number;
const heard: MembershipChange[] = [];
const follower = membershipFollower({
  logger: createLogger({ level: 'silent' }),
  // What changed; who hears it (the positions) is test/integration/changes/membership-positions.test.ts's.
  onChange: async (_tx, changes) => void heard.push(...changes.map(({ kind, ecosystemId, entityId }) => ({ kind, ecosystemId, entityId }))),
});

/** Runs the follower until it has caught up; returns what it reported. */
async function follow(): Promise<MembershipChange[]> {
  heard.length = 0;
  while ((await runPass(app.db.sql, follower, 1_000)).full);
  return [...heard];
}

async function importEntities(records: object[]): Promise<void> {
  await writeFile(join(dir, 'entities.jsonl'), records.map((record) => JSON.stringify(record)).join('\n'));
  await importDirectory(app.db, dir);
}

const members = async (id: number) =>
  (await app.db.sql.query<{ entity_id: number }>('SELECT entity_id FROM ecosystem_members WHERE ecosystem_id = $1 ORDER BY entity_id', [id])).map(
    (row) => row.entity_id,
  );

const matching = async (condition: string) =>
  (await app.db.sql.query<{ id: number }>(`SELECT id FROM entities WHERE deleted_at IS NULL AND ${condition} ORDER BY id`)).map((row) => row.id);

async function createEcosystem(slug: string, filter: string): Promise<number> {
  const response = await auth.fetch('/api/ecosystems', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ slug, name: slug, filter }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { data: { id: number } }).data.id;
}

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 2_000, seed: 11 });
  auth = await createApiKeyAndToken(app);
  dir = await mkdtemp(join(tmpdir(), 'membership-'));
  const [row] = await app.db.sql.query<{ hq_city: string }>(
    `SELECT hq_city FROM entities WHERE hq_city <> '' GROUP BY hq_city ORDER BY count(*) DESC LIMIT 1`,
  );
  city = row!.hq_city;
  ecosystemId = await createEcosystem('city', `hq_city:"${city}"`);
}, 180_000);

afterAll(async () => {
  await app?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('ecosystem membership', () => {
  it("takes a new ecosystem's members as its starting point, reporting nothing, through the whole seeded feed", async () => {
    expect(await follow()).toEqual([]);
    const expected = await matching(`hq_city = '${city.replace(/'/g, "''")}'`);
    expect(expected.length).toBeGreaterThan(10);
    expect(await members(ecosystemId)).toEqual(expected);
    // The follower passed every change of the seed.
    const [place] = await app.db.sql.query<{ behind: string }>(
      `SELECT count(*)::text AS behind FROM changes c JOIN change_commits cc USING (xid)
        WHERE (cc.position, c.resource, c.object_id) > (SELECT position, resource, object_id FROM change_followers WHERE name = 'ecosystem-membership')`,
    );
    expect(place!.behind).toBe('0');
  });

  it('an imported company in the city enters, once; moving it away leaves', async () => {
    const company = { id: 900_001, type: 'company', name: 'Arrival Robotics', hq_country: 'Germany', hq_city: city };
    await importEntities([company]);
    expect(await follow()).toEqual([{ kind: 'entity_entered', ecosystemId, entityId: 900_001 }]);
    expect(await follow()).toEqual([]);
    await importEntities([{ ...company, hq_city: 'Elsewhere-on-Sea' }]);
    expect(await follow()).toEqual([{ kind: 'entity_left', ecosystemId, entityId: 900_001 }]);
    // Re-importing the same record writes nothing, so nothing is reported.
    await importEntities([{ ...company, hq_city: 'Elsewhere-on-Sea' }]);
    expect(await follow()).toEqual([]);
  });

  it('a soft delete of a member leaves; its restore enters again', async () => {
    const [member] = await members(ecosystemId);
    await app.db.sql.query('UPDATE entities SET deleted_at = now() WHERE id = $1', [member]);
    expect(await follow()).toEqual([{ kind: 'entity_left', ecosystemId, entityId: member }]);
    await app.db.sql.query('UPDATE entities SET deleted_at = NULL WHERE id = $1', [member]);
    expect(await follow()).toEqual([{ kind: 'entity_entered', ecosystemId, entityId: member }]);
  });

  it('an edited filter reports exactly the differences', async () => {
    const before = await members(ecosystemId);
    const quoted = city.replace(/'/g, "''");
    const response = await auth.fetch(`/api/ecosystems/${ecosystemId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ filter: `and(hq_city:"${city}",launch_year[gte]:2012)` }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const after = await matching(`hq_city = '${quoted}' AND launch_year >= 2012`);
    const left = before.filter((id) => !after.includes(id));
    expect(left.length).toBeGreaterThan(0);
    const reported = await follow();
    expect(reported).toEqual(left.map((entityId) => ({ kind: 'entity_left', ecosystemId, entityId })));
    expect(await members(ecosystemId)).toEqual(after);
  });

  it('a filter through related records (investors, tags) follows changes of those records', async () => {
    const [round] = await app.db.sql.query<{ entity_id: number; investor_id: number }>(
      `SELECT r.entity_id, ri.investor_id FROM funding_rounds r JOIN round_investors ri ON ri.round_id = r.id
        JOIN entities e ON e.id = r.entity_id AND e.deleted_at IS NULL ORDER BY r.id LIMIT 1`,
    );
    const backed = await createEcosystem('backed', `investors[in_any]:${round!.investor_id}`);
    expect(await follow()).toEqual([]);
    expect(await members(backed)).toContain(round!.entity_id);
    // The investor leaves every round of that entity: the entity is no longer backed by it.
    await app.db.sql.query(
      'DELETE FROM round_investors WHERE investor_id = $1 AND round_id IN (SELECT id FROM funding_rounds WHERE entity_id = $2)',
      [round!.investor_id, round!.entity_id],
    );
    expect(await follow()).toContainEqual({ kind: 'entity_left', ecosystemId: backed, entityId: round!.entity_id });
    expect(await members(backed)).toEqual(await matching(
      `id IN (SELECT r.entity_id FROM funding_rounds r JOIN round_investors ri ON ri.round_id = r.id WHERE ri.investor_id = ${round!.investor_id})`,
    ));
  });

  it('a deactivated ecosystem forgets its members without reporting them', async () => {
    const response = await auth.fetch(`/api/ecosystems/${ecosystemId}`, { method: 'DELETE' });
    expect(response.status).toBeLessThan(300);
    expect(await follow()).toEqual([]);
    expect(await members(ecosystemId)).toEqual([]);
  });
});
