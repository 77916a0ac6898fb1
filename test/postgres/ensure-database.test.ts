// The suite's global setup creates its PostgreSQL database when the server has none by that name.
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { testPostgresUrl } from '../helpers/db.ts';
import { ensureDatabase } from '../../src/db/ensure-database.ts';

const name = `vda_setup_${randomBytes(4).toString('hex')}`;
const url = new URL(testPostgresUrl());
url.pathname = `/${name}`;

async function onServer<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const client = new pg.Client({ connectionString: maintenance.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

afterAll(async () => {
  await onServer((client) => client.query(`DROP DATABASE IF EXISTS "${name}"`));
});

it('creates a missing database once, then finds it present', async () => {
  const exists = () => onServer(async (client) => (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1);
  expect(await exists()).toBe(false);
  expect(await ensureDatabase(url.toString())).toBe('created');
  expect(await exists()).toBe(true);
  expect(await ensureDatabase(url.toString())).toBe('present');
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  expect((await client.query('SELECT current_database() AS name')).rows[0].name).toBe(name);
  await client.end();
});
