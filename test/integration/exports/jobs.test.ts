/**
 * What surrounds an export's job (CONTRACT §15): Idempotency-Key, the queue's bound (429 with
 * Retry-After), retention (then `expired` and files 410 EXPORT_EXPIRED), GraphQL's createExport /
 * export / exports, and at the end the webhook events of the organisation's webhooks (export.failed
 * for a job whose `since` was pruned while it waited, export.succeeded) and the rows counted in usage
 * as rows_exported.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';
import { createWebhook, DELIVERY_ENV, startReceiver, waitUntil, type Receiver } from '../webhooks/support.ts';
import { createExport, waitForExport } from './support.ts';

let db: TestDatabase;
let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  db = await createTestDatabase();
  await seedDatabase(db, { entities: 60, seed: 9 });
  // No background work first: exports stay queued.
  app = await startTestApp({ db });
  auth = await createApiKeyAndToken(app);
}, 180_000);

afterAll(async () => {
  await app?.close();
  await db?.destroy();
});

const post = (credentials: TestCredentials, body: unknown, headers: Record<string, string> = {}) =>
  credentials.fetch('/api/exports', { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

describe('asking for exports', () => {
  it('with an Idempotency-Key: the same body answers the same export, another body 422', async () => {
    const body = { resource: 'entities', format: 'ndjson', filter: 'launch_year[gte]:2000' };
    const first = await createExport(auth, body, { 'idempotency-key': 'nightly-2026-11-28' });
    const again = await createExport(auth, body, { 'idempotency-key': 'nightly-2026-11-28' });
    expect(again.id).toBe(first.id);
    const other = await post(auth, { ...body, format: 'csv' }, { 'idempotency-key': 'nightly-2026-11-28' });
    expect(other.status).toBe(422);
    expect(((await other.json()) as { error: { code: string } }).error.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect((await createExport(auth, body)).id).not.toBe(first.id);
  });

  it('more than 20 queued for an organisation: 429 with Retry-After, and nothing created', async () => {
    const other = await createApiKeyAndToken(app, { org: 'org-export-limits' });
    for (let index = 0; index < 20; index += 1) await createExport(other, { resource: 'news', format: 'csv' });
    const refused = await post(other, { resource: 'news', format: 'csv' });
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const listed = (await (await other.fetch('/api/exports?include_total=true')).json()) as { page: { total: number } };
    expect(listed.page.total).toBe(20);
  });

  it('over GraphQL: createExport, export, exports', async () => {
    const graphql = async (query: string, variables: Record<string, unknown>) =>
      (await (await auth.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) })).json()) as {
        data?: Record<string, { id: number; status: string; resource: string } & { data: { id: number }[] }>;
        errors?: { extensions: { code: string } }[];
      };
    const created = await graphql('mutation($input: ExportInput!) { createExport(input: $input) { id status resource } }', { input: { resource: 'investors', format: 'parquet' } });
    expect(created.data?.createExport).toMatchObject({ status: 'queued', resource: 'investors' });
    const id = created.data!.createExport!.id;
    const read = await graphql('query($id: Int!) { export(id: $id) { id resource } exports(limit: 1) { data { id } } }', { id });
    expect(read.data?.export).toEqual({ id, resource: 'investors' });
    expect(read.data?.exports?.data).toEqual([{ id }]);
    const refused = await graphql('mutation($input: ExportInput!) { createExport(input: $input) { id } }', { input: { resource: 'entities', format: 'csv', fields: ['nope'] } });
    expect(refused.errors?.[0]?.extensions.code).toBe('VALIDATION_ERROR');
  });
});

describe('once the worker runs', () => {
  let receiver: Receiver;
  /** Hears export.failed only, from a webhook made before any worker ran. */
  let failures: Receiver;
  let pruned: { id: number };

  beforeAll(async () => {
    // Still no worker: an incremental export queued, and a webhook for its failure made before it runs.
    await app.close();
    app = await startTestApp({ db, env: DELIVERY_ENV });
    auth = await createApiKeyAndToken(app);
    failures = await startReceiver();
    await createWebhook(auth, { url: failures.url, events: ['export.failed'] });
    const [first] = ((await (await auth.fetch('/api/changes?limit=1')).json()) as { data: { id: string }[] }).data;
    pruned = await createExport(auth, { resource: 'entities', format: 'ndjson', since: first!.id });
    await app.close();
    // The queued exports of this file's other tests are none of these tests' business.
    await db.sql.query("UPDATE exports SET status = 'cancelled' WHERE status = 'queued' AND id <> $1", [pruned.id]);
    // Retention passes that cursor while the export waits, as the pruning job does once CHANGES_RETENTION_DAYS run out.
    await db.sql.query('UPDATE change_retention SET position = (SELECT position FROM change_clock)');
    app = await startTestApp({ db, env: { BACKGROUND_WORKERS: 'true', EXPORT_POLL_MS: '50', EXPORT_RETENTION_DAYS: '7', ...DELIVERY_ENV } });
    auth = await createApiKeyAndToken(app);
    receiver = await startReceiver();
  }, 120_000);

  afterAll(async () => {
    await receiver?.close();
    await failures?.close();
  });

  it('fails an incremental export whose changes were pruned while it waited, CURSOR_EXPIRED, and sends export.failed', async () => {
    const done = await waitForExport(auth, pruned.id);
    expect(done).toMatchObject({ status: 'failed', rows_written: 0, files: [], error: { code: 'CURSOR_EXPIRED' } });
    const [event] = await failures.waitFor(1);
    expect(JSON.parse(event!.body)).toMatchObject({ type: 'export.failed', data: { export_id: pruned.id, resource: 'entities', rows: 0 } });
  });

  it('sends export.succeeded to the organisation\'s webhooks and counts rows_exported in usage', async () => {
    const hook = await createWebhook(auth, { url: receiver.url, events: ['export.succeeded', 'export.failed'] });
    expect(hook.id).toBeGreaterThan(0);
    const done = await waitForExport(auth, (await createExport(auth, { resource: 'entities', format: 'csv' })).id);
    expect(done.status).toBe('succeeded');
    const [event] = await receiver.waitFor(1);
    expect(JSON.parse(event!.body)).toMatchObject({ type: 'export.succeeded', data: { export_id: done.id, resource: 'entities', rows: done.rows_written } });
    const today = new Date().toISOString().slice(0, 10);
    await waitUntil(async () => {
      const usage = (await (await auth.fetch(`/api/usage/timeseries?start_date=${today}&end_date=${today}&granularity=daily`)).json()) as {
        data: { endpoint: string; rows_exported: number }[];
      };
      return usage.data.some((row) => row.endpoint === 'POST /api/exports' && row.rows_exported === done.rows_written);
    }, 20_000, 'rows_exported in usage');
  });

  it('past its retention, an export is expired and its files 410 EXPORT_EXPIRED', async () => {
    const done = await waitForExport(auth, (await createExport(auth, { resource: 'valuations', format: 'ndjson' })).id);
    expect(done.status).toBe('succeeded');
    expect(new Date(done.finished_at!).getTime() + 7 * 86_400_000).toBeCloseTo(new Date(done.expires_at!).getTime(), -4);
    await db.sql.query("UPDATE exports SET expires_at = now() - interval '1 second' WHERE id = $1", [done.id]);
    const read = (await (await auth.fetch(`/api/exports/${done.id}`)).json()) as { data: { status: string; files: unknown[] } };
    expect(read.data.status).toBe('expired');
    expect(read.data.files).toEqual([]);
    const file = await auth.fetch(`/api/exports/${done.id}/files/1`);
    expect(file.status).toBe(410);
    expect(((await file.json()) as { error: { code: string } }).error.code).toBe('EXPORT_EXPIRED');
    expect(Number((await db.sql.query<{ n: string }>('SELECT count(*)::text AS n FROM export_file_parts WHERE export_id = $1', [done.id]))[0]!.n)).toBe(0);
  });
});
