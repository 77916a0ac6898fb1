/**
 * The contract's consistency (§15): an export taken while an importer writes (updates and soft
 * deletes), then every change after its `cursor` applied in order, equals the data now; an
 * incremental export from that cursor holds each changed record once, in its latest state, and a
 * tombstone for each deleted one. And a job survives its runner: stopped by a shutdown it is taken up
 * by the next instance, and one whose runner died with part of a file written is redone from nothing,
 * while the dead runner's lease no longer lets it write. A full export reads windows of ids, several
 * at once, and writes them in id order whatever the ids' spread, each NDJSON line the list's record.
 */
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { LeaseLost, storePart, underLease } from '../../../src/exports/file-store.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { createExport, fileBytes, listAll, ndjsonRows, waitForExport } from './support.ts';

const ENV = { BACKGROUND_WORKERS: 'true', EXPORT_POLL_MS: '50', EXPORT_PAGE_ROWS: '7', EXPORT_READERS: '3', EXPORT_LEASE_MS: '2000' };
let db: TestDatabase;
let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  db = await createTestDatabase();
  await seedDatabase(db, { entities: 140, seed: 3 });
  app = await startTestApp({ db, env: ENV });
  auth = await createApiKeyAndToken(app);
}, 180_000);

afterAll(async () => {
  await app?.close();
  await db?.destroy();
});

type Row = Record<string, unknown>;
interface Change {
  type: string;
  object_id: number;
}

/** Applies the feed after `cursor` to `rows` (by id): a delete removes, anything else re-reads the record. */
async function applyChanges(rows: Map<number, Row>, cursor: string): Promise<void> {
  let since = cursor;
  for (;;) {
    const page = (await (await auth.fetch(`/api/changes?types=entity&limit=1000&since=${since}`)).json()) as { data: Change[]; page: { next_cursor: string } };
    for (const change of page.data) {
      const response = await auth.fetch(`/api/entities/${change.object_id}`);
      if (change.type === 'entity.deleted' || response.status === 404) rows.delete(change.object_id);
      else rows.set(change.object_id, ((await response.json()) as { data: Row }).data);
    }
    since = page.page.next_cursor;
    if (page.data.length < 1000) return;
  }
}

/** Writes while `running()`: renames and soft deletes of a spread of entities, committed one by one. */
async function importer(running: () => boolean): Promise<number> {
  const ids = (await db.sql.query<{ id: number }>('SELECT id FROM entities WHERE deleted_at IS NULL ORDER BY id')).map((row) => row.id);
  let writes = 0;
  for (let step = 0; running() && step < ids.length * 3; step += 1) {
    const id = ids[(step * 37) % ids.length]!;
    if (step % 5 === 4) await db.sql.query('UPDATE entities SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL', [id]);
    else await db.sql.query("UPDATE entities SET name = name || '.' , updated_at = now() WHERE id = $1", [id]);
    writes += 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return writes;
}

const byId = (rows: Row[]) => new Map(rows.map((row) => [row.id as number, row]));

describe('an export while an importer writes', () => {
  let full: { rows: Map<number, Row>; cursor: string };

  it('is, with the changes after its cursor applied, the data now', async () => {
    let running = true;
    const writing = importer(() => running);
    const done = await waitForExport(auth, (await createExport(auth, { resource: 'entities', format: 'ndjson' })).id);
    running = false;
    const writes = await writing;
    expect(done.status).toBe('succeeded');
    expect(writes).toBeGreaterThan(0);
    const rows = byId(ndjsonRows(await fileBytes(auth, done)));
    await applyChanges(rows, done.cursor!);
    const now = await listAll(auth, '/api/entities');
    expect([...rows.values()].sort((a, b) => (a.id as number) - (b.id as number))).toEqual(now);
    full = { rows, cursor: done.cursor! };
  });

  it('an incremental export from that cursor holds each changed record once, latest, and tombstones', async () => {
    // Changes after the full export: a rename, a soft delete, and an ecosystem's membership rows (internal, never exported).
    const [renamed, deleted] = [...full.rows.keys()].slice(3, 5);
    await db.sql.query("UPDATE entities SET name = 'Renamed Co', updated_at = now() WHERE id = $1", [renamed]);
    await db.sql.query("UPDATE entities SET name = 'Renamed Co 2', updated_at = now() WHERE id = $1", [renamed]);
    await db.sql.query('UPDATE entities SET deleted_at = now() WHERE id = $1', [deleted]);
    const done = await waitForExport(auth, (await createExport(auth, { resource: 'entities', format: 'ndjson', since: full.cursor })).id);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    const lines = ndjsonRows(await fileBytes(auth, done));
    const ids = lines.map((line) => line.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(lines.find((line) => line.id === renamed)).toMatchObject({ name: 'Renamed Co 2' });
    expect(lines.find((line) => line.id === deleted)).toEqual({ id: deleted, _deleted: true });
    for (const line of lines) {
      if (line._deleted) full.rows.delete(line.id as number);
      else full.rows.set(line.id as number, line);
    }
    expect([...full.rows.values()].sort((a, b) => (a.id as number) - (b.id as number))).toEqual(await listAll(auth, '/api/entities'));
  });
});

describe('a full export over windows of ids (pages of 7, 3 read at once)', () => {
  const lines = (files: Buffer[]): string[] => files.flatMap((file) => gunzipSync(file).toString('utf8').split('\n').filter(Boolean));
  const exportedLines = async (filter: string): Promise<string[]> => {
    const done = await waitForExport(auth, (await createExport(auth, { resource: 'entities', format: 'ndjson', filter })).id);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    return lines(await fileBytes(auth, done));
  };

  it('holds every row once, in id order, each line the list\'s record, where the ids cluster at both ends', async () => {
    // 45 ids, a gap, then 21: the first windows hold more than a page (read on by cursor), the middle ones none.
    const filter = 'or(id[lte]:45, id[gte]:120)';
    const list = await listAll(auth, '/api/entities', `&sort=id&filter=${encodeURIComponent(filter)}`);
    expect(list.length).toBeGreaterThan(30);
    expect(await exportedLines(filter)).toEqual(list.map((record) => JSON.stringify(record)));
  });

  it('holds them all with one window read at a time (the embedded database\'s way, and any export beside traffic)', async () => {
    // Windows in the gap hold nothing: an empty window must not end the export while ids remain.
    const filter = 'or(id[lte]:45, id[gte]:120)';
    const list = await listAll(auth, '/api/entities', `&sort=id&filter=${encodeURIComponent(filter)}`);
    await app.close();
    app = await startTestApp({ db, env: { ...ENV, EXPORT_READERS: '1' } });
    auth = await createApiKeyAndToken(app);
    try {
      expect(await exportedLines(filter)).toEqual(list.map((record) => JSON.stringify(record)));
    } finally {
      await app.close();
      app = await startTestApp({ db, env: ENV });
      auth = await createApiKeyAndToken(app);
    }
  });

  it('is in id order where the list would rank its rows (a name search)', async () => {
    const filter = 'name[contains]:a';
    const ranked = await listAll(auth, '/api/entities', `&filter=${encodeURIComponent(filter)}`);
    const byId = await listAll(auth, '/api/entities', `&sort=id&filter=${encodeURIComponent(filter)}`);
    expect(ranked.map((record) => record.id)).not.toEqual(byId.map((record) => record.id));
    expect(await exportedLines(filter)).toEqual(byId.map((record) => JSON.stringify(record)));
  });
});

describe('a job and its runner', () => {
  it('stopped by a shutdown, is finished by the next instance', async () => {
    const created = await createExport(auth, { resource: 'entities', format: 'csv' });
    // Close while it runs (pages of 7 rows: it takes a while), then start another instance on the database.
    for (let tries = 0; tries < 200; tries += 1) {
      const [row] = await db.sql.query<{ status: string }>('SELECT status FROM exports WHERE id = $1', [created.id]);
      if (row!.status !== 'queued') break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    await app.close();
    app = await startTestApp({ db, env: ENV });
    auth = await createApiKeyAndToken(app);
    const done = await waitForExport(auth, created.id);
    expect(done.status).toBe('succeeded');
    expect(done.rows_written).toBe((await listAll(auth, '/api/entities')).length);
    // Claimed twice: by the instance that stopped (it put the job back) and by the next one.
    const [row] = await db.sql.query<{ attempts: number }>('SELECT attempts FROM exports WHERE id = $1', [created.id]);
    expect(row!.attempts).toBe(2);
  });

  it('whose runner died mid-file is redone from nothing, and the dead lease writes no more', async () => {
    // A runner took an export, wrote a part, and died: its lease has run out. Written in one
    // transaction as the claim would have left it (the live worker takes a POSTed export at once).
    const model = await waitForExport(auth, (await createExport(auth, { resource: 'entities', format: 'ndjson' })).id);
    const created = await db.sql.transaction(async (tx) => {
      const [row] = await tx.query<{ id: number }>(
        `INSERT INTO exports (org_id, created_by, principal, resource, format, status, lease_owner, lease_until, started_at, attempts)
         SELECT org_id, created_by, principal, resource, format, 'running', 'dead-runner', now() - interval '1 second', now(), 1
           FROM exports WHERE id = $1 RETURNING id`,
        [model.id],
      );
      await tx.query("INSERT INTO export_file_parts (export_id, n, part, \"offset\", data) VALUES ($1, 1, 0, 0, '\\x00ff'::bytea)", [row!.id]);
      return row!;
    });
    const dead = { exportId: created.id, owner: 'dead-runner', leaseMs: 2000 };
    const done = await waitForExport(auth, created.id);
    expect(done.status).toBe('succeeded');
    expect(ndjsonRows(await fileBytes(auth, done))).toEqual(await listAll(auth, '/api/entities'));
    await expect(underLease(db.sql, dead, 0, (tx) => storePart(tx, created.id, 1, 9, 0, Buffer.from('late')))).rejects.toBeInstanceOf(LeaseLost);
  });
});
