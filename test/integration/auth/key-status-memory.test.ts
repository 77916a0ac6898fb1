// API key states come from memory while key-change notifications are heard, and a change made
// anywhere (here: plain SQL on another connection) is forgotten as soon as its notification arrives.
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createApiKey } from '../../../src/auth/api-keys.ts';
import { createKeyStatus, type KeyStatusService } from '../../../src/auth/key-status.ts';
import type { SqlClient } from '../../../src/db/client.ts';
import { createLogger } from '../../../src/logger.ts';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

let db: TestDatabase;
let status: KeyStatusService;
const lookups: string[] = [];

beforeAll(async () => {
  db = await createTestDatabase();
  // The key status's own SQL, with every lookup of api_keys recorded.
  const counting: SqlClient = {
    ...db.sql,
    query: (text, params) => {
      if (/FROM api_keys/.test(text)) lookups.push(String(params?.[0]));
      return db.sql.query(text, params);
    },
  };
  status = createKeyStatus(counting, createLogger({ level: 'silent' }));
  await vi.waitFor(() => expect(status.isListening()).toBe(true), { timeout: 10_000 });
});

afterAll(async () => {
  await status.close();
  await db.destroy();
});

const newKey = (name: string) =>
  createApiKey(db.prisma, { name, permissions: ['read:entities'], orgId: 'org-memory', createdBy: 'tests' });

it('asks the database once per key, then answers from memory', async () => {
  const key = await newKey('memory');
  lookups.length = 0;
  for (let request = 0; request < 5; request += 1) expect(await status.check(key.client_id)).toBe('active');
  expect(lookups.filter((id) => id === key.client_id)).toHaveLength(1);
  // From memory as a value, not a promise.
  expect(status.check(key.client_id)).toBe('active');
});

it('forgets a key revoked elsewhere when the notification arrives, and then reads it as revoked', async () => {
  const key = await newKey('revoked elsewhere');
  expect(await status.check(key.client_id)).toBe('active');
  await db.sql.query('UPDATE api_keys SET revoked_at = now() WHERE client_id = $1', [key.client_id]);
  await vi.waitFor(async () => expect(await status.check(key.client_id)).toBe('revoked'), { timeout: 2_000, interval: 5 });
  // A revocation is final, so that answer is remembered too.
  lookups.length = 0;
  expect(await status.check(key.client_id)).toBe('revoked');
  expect(lookups).toEqual([]);
});

it('forgets a deleted key, which then is unknown', async () => {
  const key = await newKey('deleted');
  expect(await status.check(key.client_id)).toBe('active');
  await db.sql.query('DELETE FROM api_keys WHERE client_id = $1', [key.client_id]);
  await vi.waitFor(async () => expect(await status.check(key.client_id)).toBe('unknown'), { timeout: 2_000, interval: 5 });
});

it('asks the database on every request when no notifications are heard', async () => {
  const { listen: _ignored, ...withoutListen } = db.sql;
  const deaf = createKeyStatus(
    {
      ...withoutListen,
      query: (text, params) => {
        if (/FROM api_keys/.test(text)) lookups.push(String(params?.[0]));
        return db.sql.query(text, params);
      },
    },
    createLogger({ level: 'silent' }),
  );
  const key = await newKey('deaf');
  lookups.length = 0;
  for (let request = 0; request < 3; request += 1) expect(await deaf.check(key.client_id)).toBe('active');
  expect(lookups.filter((id) => id === key.client_id)).toHaveLength(3);
  await deaf.close();
});
