/**
 * An export narrows its filter to the ids it reads (src/exports/narrow.ts), within the filter
 * grammar's limits: a filter that leaves no room for that is refused when the export is asked for,
 * as the list words a filter error, and an incremental export with a long filter and many changed
 * ids reads them in as many lists as fit, every changed record in its file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { FILTER_LIMITS } from '../../../src/filter/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { createExport, fileBytes, listAll, ndjsonRows, waitForExport } from './support.ts';

let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  app = await startTestApp({ env: { BACKGROUND_WORKERS: 'true', EXPORT_POLL_MS: '50' } });
  await seedDatabase(app.db, { entities: 320, seed: 9 });
  auth = await createApiKeyAndToken(app);
}, 180_000);

afterAll(async () => app?.close());

/** A filter every entity matches (no name is the padding), `length` characters long. */
const paddedFilter = (length: number): string => {
  const start = 'and(launch_year[gte]:1800, name[neq]:';
  return `${start}${'z'.repeat(length - start.length - 1)})`;
};

describe('an export narrows its filter to ids', () => {
  it('refuses a filter the list takes but narrowing would take past the limit, on body.filter', async () => {
    const filter = paddedFilter(FILTER_LIMITS.maxLength - 10);
    expect((await auth.fetch(`/api/entities?limit=1&filter=${encodeURIComponent(filter)}`)).status).toBe(200);
    const response = await auth.fetch('/api/exports', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resource: 'entities', format: 'ndjson', filter }),
    });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; message: string; details: { path: string }[] } };
    expect(error.code).toBe('FILTER_PARSE_ERROR');
    expect(error.message).toContain('narrows it to ranges of ids');
    expect(error.details.map((detail) => detail.path)).toEqual(['body.filter']);
  });

  it('takes an all-whitespace filter as none, as the list does', async () => {
    const done = await waitForExport(auth, (await createExport(auth, { resource: 'entities', format: 'ndjson', filter: '   ' })).id);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    expect(ndjsonRows(await fileBytes(auth, done))).toEqual(await listAll(auth, '/api/entities'));
  });

  it('reads many changed ids beside a long filter in as many lists as fit', async () => {
    const filter = paddedFilter(FILTER_LIMITS.maxLength - 600);
    const full = await waitForExport(auth, (await createExport(auth, { resource: 'entities', format: 'ndjson', filter })).id);
    expect(full.status, JSON.stringify(full.error)).toBe('succeeded');
    // Far more changed ids than fit in one `id[in_any]` list beside this filter.
    const changed = (await app.db.sql.query<{ id: number }>("UPDATE entities SET name = name || ' II', updated_at = now() WHERE id <= 300 RETURNING id")).map((row) => row.id);
    expect(changed.length).toBeGreaterThan(250);
    const incremental = await waitForExport(auth, (await createExport(auth, { resource: 'entities', format: 'ndjson', filter, since: full.cursor })).id);
    expect(incremental.status, JSON.stringify(incremental.error)).toBe('succeeded');
    const rows = ndjsonRows(await fileBytes(auth, incremental));
    const list = (await listAll(auth, '/api/entities', `&filter=${encodeURIComponent('id[lte]:300')}`)).filter((row) => changed.includes(row.id as number));
    const listed = new Set(list.map((row) => row.id));
    // Every changed record once: the list's row, or a tombstone for one the list does not return (soft-deleted).
    expect(rows.map((row) => row.id)).toEqual([...changed].sort((a, b) => a - b));
    expect(rows.filter((row) => row._deleted !== true)).toEqual(list);
    expect(rows.filter((row) => row._deleted === true).map((row) => row.id)).toEqual(changed.filter((id) => !listed.has(id)).sort((a, b) => a - b));
  });
});
