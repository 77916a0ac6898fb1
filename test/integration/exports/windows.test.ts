/**
 * A full export reads the list over windows of ids, several at once (EXPORT_READERS), and writes them
 * in id order: whatever the ids' spread (a dense window read on with its cursor, empty ones widened
 * past), the files hold each of the list's rows once, in order, each NDJSON line the list's record as
 * the list writes it, text for text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { createExport, fileBytes, listAll, waitForExport } from './support.ts';

let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  app = await startTestApp({ env: { BACKGROUND_WORKERS: 'true', EXPORT_POLL_MS: '50', EXPORT_PAGE_ROWS: '7', EXPORT_READERS: '3' } });
  await seedDatabase(app.db, { entities: 160, seed: 5 });
  auth = await createApiKeyAndToken(app);
}, 180_000);

afterAll(async () => app?.close());

const lines = (files: Buffer[]): string[] => files.flatMap((file) => gunzipSync(file).toString('utf8').split('\n').filter(Boolean));

async function exportedLines(filter: string): Promise<string[]> {
  const done = await waitForExport(auth, (await createExport(auth, { resource: 'entities', format: 'ndjson', filter })).id);
  expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
  return lines(await fileBytes(auth, done));
}

describe('a full export over windows of ids', () => {
  it('holds every row once, in id order, where the ids cluster at both ends', async () => {
    // 40 ids, a gap of 90, then 30: the first windows hold more than a page, the middle ones none.
    const filter = 'or(id[lte]:40, id[gte]:131)';
    const list = await listAll(auth, '/api/entities', `&sort=id&filter=${encodeURIComponent(filter)}`);
    expect(list.length).toBeGreaterThan(50);
    expect(await exportedLines(filter)).toEqual(list.map((record) => JSON.stringify(record)));
  });

  it('is in id order where the list would rank its rows (a name search)', async () => {
    const filter = 'name[contains]:a';
    const ranked = await listAll(auth, '/api/entities', `&filter=${encodeURIComponent(filter)}`);
    const byId = await listAll(auth, '/api/entities', `&sort=id&filter=${encodeURIComponent(filter)}`);
    expect(ranked.map((record) => record.id)).not.toEqual(byId.map((record) => record.id));
    expect(await exportedLines(filter)).toEqual(byId.map((record) => JSON.stringify(record)));
  });
});
