/**
 * POST/GET/DELETE /api/exports and the files (CONTRACT §15): a job run by the background worker, its
 * NDJSON lines equal to the list's records (filter and fields applied alike), CSV with the list's
 * columns, files of at most EXPORT_FILE_MAX_ROWS, downloads with Range, and the contract's refusals.
 * And the filter narrowed to ids within the grammar's limits (src/exports/narrow.ts): a filter with no
 * room left is refused when asked for, and many changed ids beside a long filter go in lists that fit.
 * An incremental export from a feed's cursor that ends inside a commit holds that commit's later records only.
 */
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'csv-parse/sync';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { FILTER_LIMITS } from '../../../src/filter/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { createExport, download, fileBytes, listAll, ndjsonRows, waitForExport } from './support.ts';

let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  app = await startTestApp({ env: { BACKGROUND_WORKERS: 'true', EXPORT_POLL_MS: '50', EXPORT_FILE_MAX_ROWS: '70' } });
  await seedDatabase(app.db, { entities: 160, seed: 11 });
  auth = await createApiKeyAndToken(app);
}, 180_000);

afterAll(async () => app?.close());

describe('a full NDJSON export', () => {
  it('runs in the background and its lines deep-equal the list, in files of at most 70 rows', async () => {
    const created = await createExport(auth, { resource: 'entities', format: 'ndjson' });
    expect(created.status).toMatch(/queued|running/);
    const done = await waitForExport(auth, created.id);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    expect(done.progress).toBe(1);
    const list = await listAll(auth, '/api/entities');
    expect(done.rows_written).toBe(list.length);
    expect(done.files.map((file) => file.rows)).toEqual([70, 70, list.length - 140]);
    const files = await fileBytes(auth, done);
    files.forEach((bytes, index) => {
      expect(bytes.length).toBe(done.files[index]!.bytes);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(done.files[index]!.sha256);
    });
    expect(ndjsonRows(files)).toEqual(list);
    expect(done.columns.map((column) => column.name)).toEqual(Object.keys(list[0]!));
    expect(done.columns.find((column) => column.name === 'tags')?.type).toBe('array<object>');
    expect(done.cursor).toEqual(expect.any(String));
  });

  it('applies filter and fields as the list does', async () => {
    const filter = 'launch_year[gte]:2010';
    const done = await waitForExport(auth, (await createExport(auth, { resource: 'entities', format: 'ndjson', filter, fields: ['name', 'launch_year'] })).id);
    expect(done.status).toBe('succeeded');
    const list = await listAll(auth, '/api/entities', `&filter=${encodeURIComponent(filter)}&fields=name,launch_year`);
    expect(list.length).toBeGreaterThan(0);
    expect(ndjsonRows(await fileBytes(auth, done))).toEqual(list);
    expect(done.columns).toEqual([
      { name: 'id', type: 'integer' },
      { name: 'name', type: 'string' },
      { name: 'launch_year', type: 'integer' },
    ]);
  });
});

describe('a CSV export', () => {
  it("has the list's CSV columns and rows", async () => {
    const done = await waitForExport(auth, (await createExport(auth, { resource: 'founders', format: 'csv' })).id);
    expect(done.status).toBe('succeeded');
    const csv = (await fileBytes(auth, done)).map((file) => gunzipSync(file).toString('utf8'));
    const listCsv = await (await auth.fetch('/api/founders?format=csv')).text();
    const header = listCsv.split('\n')[0];
    for (const text of csv) expect(text.split('\n')[0]).toBe(header);
    const rows = csv.flatMap((text) => parse(text, { columns: true }) as Record<string, string>[]);
    expect(rows).toEqual(parse(listCsv, { columns: true }));
  });
});

describe('downloads', () => {
  it('answer Range requests with 206 parts that concatenate to the file, and 416 past its end', async () => {
    const done = await waitForExport(auth, (await createExport(auth, { resource: 'entities', format: 'ndjson' })).id);
    const file = done.files[0]!;
    const whole = await download(auth, file.url);
    expect(whole.headers.get('content-length')).toBe(String(file.bytes));
    expect(whole.headers.get('etag')).toBe(`"${file.sha256}"`);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    const cut = Math.floor(file.bytes / 3);
    const first = await download(auth, file.url, { range: `bytes=0-${cut - 1}` });
    const second = await download(auth, file.url, { range: `bytes=${cut}-` });
    expect([first.status, second.status]).toEqual([206, 206]);
    expect(first.headers.get('content-range')).toBe(`bytes 0-${cut - 1}/${file.bytes}`);
    expect(Buffer.concat([first.bytes, second.bytes]).equals(whole.bytes)).toBe(true);
    const suffix = await download(auth, file.url, { range: 'bytes=-10' });
    expect(suffix.bytes.equals(whole.bytes.subarray(-10))).toBe(true);
    const past = await download(auth, file.url, { range: `bytes=${file.bytes}-` });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe(`bytes */${file.bytes}`);
    expect((await download(auth, `/api/exports/${done.id}/files/99`)).status).toBe(404);
  });

  it('answer a copy the client holds with 304, and a resumed download whose If-Range is stale with the whole file', async () => {
    const done = await waitForExport(auth, (await createExport(auth, { resource: 'entities', format: 'csv' })).id);
    const file = done.files[0]!;
    const etag = `"${file.sha256}"`;
    const held = await download(auth, file.url, { 'if-none-match': etag });
    expect(held.status).toBe(304);
    expect(held.headers.get('etag')).toBe(etag);
    expect(held.bytes.length).toBe(0);
    expect((await download(auth, file.url, { 'if-none-match': '"another"' })).status).toBe(200);
    const resumed = await download(auth, file.url, { range: 'bytes=5-', 'if-range': etag });
    expect([resumed.status, resumed.bytes.length]).toEqual([206, file.bytes - 5]);
    const stale = await download(auth, file.url, { range: 'bytes=5-', 'if-range': '"another"' });
    expect([stale.status, stale.bytes.length]).toEqual([200, file.bytes]);
    const dated = await download(auth, file.url, { range: 'bytes=5-', 'if-range': new Date().toUTCString() });
    expect([dated.status, dated.bytes.length]).toEqual([200, file.bytes]);
  });
});

describe('refusals and the organisation', () => {
  it('refuses bad input naming the field, and changes nothing', async () => {
    const before = (await (await auth.fetch('/api/exports?include_total=true')).json()) as { page: { total: number } };
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ resource: 'planets', format: 'ndjson' }, 400, 'VALIDATION_ERROR', 'body.resource'],
      [{ resource: 'entities', format: 'xml' }, 400, 'VALIDATION_ERROR', 'body.format'],
      [{ resource: 'entities', format: 'csv', fields: ['nmae'] }, 400, 'VALIDATION_ERROR', 'body.fields'],
      [{ resource: 'entities', format: 'csv', filter: 'launch_year[gte]:abc' }, 400, 'FILTER_VALIDATION_ERROR', ''],
      [{ resource: 'entities', format: 'csv', since: 'forged' }, 400, 'VALIDATION_ERROR', 'body.since'],
    ];
    for (const [body, status, code, path] of cases) {
      const response = await auth.fetch('/api/exports', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const answer = (await response.json()) as { error: { code: string; message: string; details?: { path: string }[] } };
      expect(response.status, JSON.stringify(answer)).toBe(status);
      expect(answer.error.code).toBe(code);
      if (!path) continue;
      expect(answer.error.details?.map((detail) => detail.path)).toContain(path);
      // The message is the same over GraphQL (`input.since: ...`); it never names the list's `query.fields`.
      expect(answer.error.message, answer.error.message).toMatch(new RegExp(`^(input|body)\\.${path.split('.')[1]}: `));
    }
    const after = (await (await auth.fetch('/api/exports?include_total=true')).json()) as { page: { total: number } };
    expect(after.page.total).toBe(before.page.total);
  });

  it('needs read:<resource>, and hides another organisation\'s exports', async () => {
    const noInvestors = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
    const refused = await noInvestors.fetch('/api/exports', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ resource: 'investors', format: 'csv' }) });
    expect(refused.status).toBe(403);
    const mine = await createExport(auth, { resource: 'valuations', format: 'csv' });
    const other = await createApiKeyAndToken(app, { org: 'org-other-exports' });
    expect((await other.fetch(`/api/exports/${mine.id}`)).status).toBe(404);
    expect((await other.fetch(`/api/exports/${mine.id}/files/1`)).status).toBe(404);
    expect((await other.fetch(`/api/exports/${mine.id}`, { method: 'DELETE' })).status).toBe(404);
    const listed = (await (await other.fetch('/api/exports')).json()) as { data: unknown[] };
    expect(listed.data).toEqual([]);
  });

  it('DELETE cancels a queued export and deletes a finished one\'s files', async () => {
    const done = await waitForExport(auth, (await createExport(auth, { resource: 'news', format: 'ndjson' })).id);
    expect((await auth.fetch(`/api/exports/${done.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await download(auth, done.files[0]!.url)).status).toBe(404);
  });
});

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
    const filter = paddedFilter(FILTER_LIMITS.maxLength - 400);
    const full = await waitForExport(auth, (await createExport(auth, { resource: 'entities', format: 'ndjson', filter })).id);
    expect(full.status, JSON.stringify(full.error)).toBe('succeeded');
    // Far more changed ids than fit in one `id[in_any]` list beside this filter.
    const changed = (await app.db.sql.query<{ id: number }>("UPDATE entities SET name = name || ' II', updated_at = now() RETURNING id")).map((row) => row.id);
    expect(changed.length).toBeGreaterThan(150);
    const incremental = await waitForExport(auth, (await createExport(auth, { resource: 'entities', format: 'ndjson', filter, since: full.cursor })).id);
    expect(incremental.status, JSON.stringify(incremental.error)).toBe('succeeded');
    const rows = ndjsonRows(await fileBytes(auth, incremental));
    const list = await listAll(auth, '/api/entities');
    const listed = new Set(list.map((row) => row.id));
    // Every changed record once: the list's row, or a tombstone for one the list does not return (soft-deleted).
    expect(rows.map((row) => row.id)).toEqual([...changed].sort((a, b) => a - b));
    expect(rows.filter((row) => row._deleted !== true)).toEqual(list);
    expect(rows.filter((row) => row._deleted === true).map((row) => row.id)).toEqual(changed.filter((id) => !listed.has(id)).sort((a, b) => a - b));
  });
});

describe('an incremental export', () => {
  it('from a changes cursor inside a commit, holds exactly the records changed after it', async () => {
    const full = await waitForExport(auth, (await createExport(auth, { resource: 'entities', format: 'ndjson', fields: ['id'] })).id);
    expect(full.status, JSON.stringify(full.error)).toBe('succeeded');
    // One commit of ten changes; a feed page of three ends inside it.
    const changed = (await app.db.sql.query<{ id: number }>("UPDATE entities SET name = name || ' III', updated_at = now() WHERE id IN (SELECT id FROM entities WHERE deleted_at IS NULL ORDER BY id LIMIT 10) RETURNING id")).map((row) => row.id);
    expect(changed).toHaveLength(10);
    type FeedPage = { data: { object_id: number }[]; page: { next_cursor: string } };
    const feed = async (since: string, limit: number): Promise<FeedPage> => (await (await auth.fetch(`/api/changes?types=entity&limit=${limit}&since=${since}`)).json()) as FeedPage;
    const first = await feed(full.cursor!, 3);
    expect(first.data).toHaveLength(3);
    const rest = (await feed(first.page.next_cursor, 1000)).data.map((change) => change.object_id);
    expect(rest).toHaveLength(7);
    const incremental = await waitForExport(auth, (await createExport(auth, { resource: 'entities', format: 'ndjson', fields: ['id'], since: first.page.next_cursor })).id);
    expect(incremental.status, JSON.stringify(incremental.error)).toBe('succeeded');
    expect(ndjsonRows(await fileBytes(auth, incremental)).map((row) => row.id)).toEqual([...rest].sort((a, b) => a - b));
  });
});
