// The service behind PgBouncer in transaction pooling mode (Debian's 1.18: no prepared statements
// across transactions): DATABASE_URL at the pooler, DATABASE_DIRECT_URL at PostgreSQL for what needs
// a session (migrations, LISTEN). Six application connections share two server connections, so a
// named statement or a session setting would meet a server connection that never saw it. A
// representative set of reads and writes answers through it, and the pooler's own statistics show
// the traffic passed through it.
import { KEY_CHANGES_CHANNEL } from '../../src/auth/key-status.ts';
import { DELIVERIES_CHANNEL } from '../../src/changes/outbox.ts';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { migrate } from '../../src/db/migrate.ts';
import { pooledSettingsProblems } from '../../src/db/pooled-settings.ts';
import { openDatabase, quoteIdentifier } from '../../src/db/client.ts';
import { startTestAppOnPool, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, createUserToken, type TestCredentials } from '../helpers/auth.ts';
import { compiledReadsMovedBy } from '../helpers/compiled-reads.ts';
import { createTestDatabase, testPostgresUrl, type TestDatabase } from '../helpers/db.ts';
import { PGBOUNCER_DATABASE, startPgBouncer, type PgBouncer } from '../helpers/pgbouncer.ts';
import { call } from '../integration/management/support.ts';
import { seriesTotals, waitForSeries } from '../integration/usage/support.ts';

const SERVER_CONNECTIONS = 2;
const STATEMENT_TIMEOUT_MS = 15_000;
const APPLICATION_CONNECTIONS = 6;
// The direct sessions name themselves, so this file finds its own among every test file's.
const DIRECT_NAME = `vda-direct-${randomBytes(4).toString('hex')}`;

let tables: TestDatabase;
let bouncer: PgBouncer;
let app: TestApp;
let admin: TestCredentials;
let queriesBefore: number;

const directUrl = (): string => {
  const url = new URL(tables.connection.url!);
  url.searchParams.set('application_name', DIRECT_NAME);
  return url.toString();
};
const queryCount = async (): Promise<number> =>
  Number((await bouncer.show('STATS')).find((row) => row.database === PGBOUNCER_DATABASE)?.total_query_count ?? 0);

beforeAll(async () => {
  tables = await createTestDatabase();
  await seedDatabase(tables, { entities: 300 });
  bouncer = await startPgBouncer({ target: tables.connection.url!, schema: tables.connection.schema!, poolSize: SERVER_CONNECTIONS, statementTimeoutMs: STATEMENT_TIMEOUT_MS });
  queriesBefore = await queryCount();
  app = await startTestAppOnPool(tables, { url: bouncer.url, directUrl: directUrl(), poolSize: APPLICATION_CONNECTIONS });
  admin = await createApiKeyAndToken(app);
}, 120_000);

afterAll(async () => {
  await app?.close();
  await bouncer?.stop();
  await tables?.destroy();
});

const json = async (credentials: TestCredentials, path: string) => {
  const response = await credentials.fetch(path);
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body;
};
const graphql = async (credentials: TestCredentials, query: string) => {
  const response = await credentials.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  const body = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  expect(body.errors).toBeUndefined();
  return body.data;
};

describe('reads through the pooler', () => {
  it('serves lists, filters, pages and records from compiled SQL, many at once on two server connections', async () => {
    const moved = await compiledReadsMovedBy(app, async () => {
      // More requests in flight than server connections, each list shape repeated: a named statement
      // prepared on one server connection would be missing on the other.
      const query = `sort=-launch_year&filter=${encodeURIComponent('launch_year[gte]:1990')}`;
      const lists = await Promise.all(Array.from({ length: 24 }, (_, index) => json(admin, `/api/entities?limit=${5 + (index % 3)}&${query}`)));
      for (const list of lists) expect(list.data.length).toBeGreaterThan(0);
      const first = lists[0].data[0];
      expect((await json(admin, `/api/entities/${first.id}`)).data.name).toBe(first.name);
      const next = await json(admin, `/api/entities?limit=5&${query}&cursor=${encodeURIComponent(lists[0].page.next_cursor)}`);
      expect(next.data[0].id).not.toBe(first.id);
      expect((await json(admin, '/api/transactions?limit=3&include_total=true')).page.total).toBeGreaterThan(0);
    });
    expect(moved.compiled).toBeGreaterThanOrEqual(27);
    expect(moved.fallbacks).toEqual({});
  });

  it('serves what the resolvers answer (a GraphQL list beside an aggregate) and aggregates', async () => {
    const moved = await compiledReadsMovedBy(app, async () => {
      const data = await graphql(admin, '{ aggregate(source: "entities", metrics: ["count"], groupBy: "hq_country") { data } entities(limit: 3) { data { id name founders { name } } } }');
      expect(data.entities.data).toHaveLength(3);
      expect(data.aggregate.data.length).toBeGreaterThan(0);
    });
    expect(moved.fallbacks).toEqual({ root_field: 1 });
    const counts = await json(admin, '/api/aggregate/transactions?metric=count,sum:amount_usd&group_by=round_type');
    expect(counts.data.length).toBeGreaterThan(0);
    // An aggregate's CSV export reads its groups behind a cursor: DECLARE and FETCH in one transaction,
    // which a transaction-mode pooler keeps on one server connection.
    const csv = await admin.fetch('/api/aggregate/transactions?metric=count&group_by=round_type&limit=1&format=csv');
    expect(csv.status).toBe(200);
    const lines = (await csv.text()).trim().split('\n');
    expect(lines[0]).toBe('round_type,count');
    expect(lines.length - 1).toBe(counts.page.total);
  });
});

describe('management through the pooler', () => {
  it('creates an API key, exchanges it at the token endpoint, and refuses it once revoked (LISTEN on the direct URL)', async () => {
    const created = await call(admin, 'POST', '/api/api-keys', { name: 'behind the pooler', permissions: ['read:entities'] });
    expect(created.status).toBe(201);
    const token = await app.fetch('/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: created.body.data.client_id, client_secret: created.body.data.client_secret, audience: app.config.PUBLIC_URL }),
    });
    expect(token.status).toBe(200);
    const headers = { ...admin.headers, Authorization: `Bearer ${((await token.json()) as { access_token: string }).access_token}`, 'X-Client-Id': created.body.data.client_id };
    expect((await app.fetch('/api/entities?limit=1', { headers })).status).toBe(200);

    // The notification connections (key revocation, webhook deliveries) are sessions at PostgreSQL
    // itself, not the pooler's.
    const listening = await tables.sql.query<{ pid: number; query: string }>(
      "SELECT pid, query FROM pg_stat_activity WHERE application_name = $1 AND query LIKE 'LISTEN %' ORDER BY query",
      [DIRECT_NAME],
    );
    expect(listening.map((session) => session.query)).toEqual([`LISTEN "${KEY_CHANGES_CHANNEL}"`, `LISTEN "${DELIVERIES_CHANNEL}"`].sort());
    const pooled = (await bouncer.show('SERVERS')).map((row) => Number(row.remote_pid));
    expect(pooled.length).toBeGreaterThan(0);
    for (const session of listening) expect(pooled).not.toContain(session.pid);

    // Revoked by another writer (not this instance): the NOTIFY reaches the instance, which refuses next.
    await tables.sql.query('UPDATE api_keys SET revoked_at = now() WHERE client_id = $1', [created.body.data.client_id]);
    await expect.poll(async () => (await app.fetch('/api/entities?limit=1', { headers })).status, { timeout: 5_000 }).toBe(401);
  });

  it('teams and invitations: create, invite, accept', async () => {
    const owner = await createUserToken(app, { user: 'olivia', permissions: ['read:teams', 'write:teams'] });
    const invited = await createUserToken(app, { user: 'ivan', permissions: ['read:teams', 'write:teams'] });
    const team = await call(owner, 'POST', '/api/teams', { name: 'Pooled', slug: 'pooled' });
    expect(team.status).toBe(201);
    const invitation = await call(owner, 'POST', `/api/teams/${team.body.data.id}/invitations`, { invited_email: 'ivan@example.com', invited_user_id: 'ivan' });
    expect(invitation.status).toBe(201);
    expect((await call(invited, 'POST', '/api/invitations/accept', { token: invitation.body.data.token })).status).toBe(200);
    const members = await call(owner, 'GET', `/api/teams/${team.body.data.id}/members`);
    expect(members.body.data.map((member: { user_id: string }) => member.user_id).sort()).toEqual(['ivan', 'olivia']);
  });

  it('ecosystems and landscapes: a stored filter, its entities and aggregate, a landscape replaced atomically', async () => {
    const ecosystem = await call(admin, 'POST', '/api/ecosystems', { slug: 'pooled', name: 'Pooled', filter: 'is_company:true' });
    expect(ecosystem.status).toBe(201);
    const entities = await json(admin, `/api/ecosystems/${ecosystem.body.data.id}/entities?limit=4`);
    expect(entities.data).toHaveLength(4);
    expect((await json(admin, `/api/ecosystems/${ecosystem.body.data.id}/aggregate?metric=count`)).data[0].count).toBeGreaterThan(0);
    const landscape = await call(admin, 'POST', `/api/ecosystems/${ecosystem.body.data.id}/landscapes`, { name: 'Pooled picks' });
    expect(landscape.status).toBe(201);
    const ids = entities.data.map((entity: { id: number }) => entity.id).reverse();
    expect((await call(admin, 'PUT', `/api/landscapes/${landscape.body.data.id}/entities`, { entity_ids: ids })).status).toBe(200);
    const read = await call(admin, 'GET', `/api/landscapes/${landscape.body.data.id}`);
    expect(read.body.data.entities.map((entity: { id: number }) => entity.id)).toEqual(ids);
  });

  it('counts usage and reads it back from the time series', async () => {
    const counted = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
    await Promise.all(Array.from({ length: 12 }, () => counted.fetch('/api/entities?limit=1')));
    const today = new Date().toISOString().slice(0, 10);
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const rows = await waitForSeries(admin, `start_date=${yesterday}&end_date=${today}&client_id=${counted.clientId}`, (found) =>
      (seriesTotals(found).get('GET /api/entities')?.requests ?? 0) >= 12,
    );
    expect(seriesTotals(rows).get('GET /api/entities')).toEqual({ requests: 12, errors: 0 });
  });
});

describe('what needs a session goes to the direct URL', () => {
  it('migrations run on the direct session and are seen through the pooler', async () => {
    const schema = `test_${randomBytes(6).toString('hex')}`;
    const fresh = await openDatabase({ url: bouncer.url, directUrl: directUrl(), schema });
    try {
      const applied = await migrate(fresh.sessionSql);
      expect(applied.length).toBeGreaterThan(5);
      const [session] = await fresh.sessionSql.query<{ name: string }>("SELECT current_setting('application_name') AS name");
      expect(session!.name).toBe(DIRECT_NAME);
    } finally {
      await fresh.close();
      await tables.sql.exec(`DROP SCHEMA IF EXISTS ${quoteIdentifier(schema)} CASCADE`);
    }
  });

  it('the start checks the statement timeout the server gives the pooled connections', async () => {
    expect(await pooledSettingsProblems(app.db.sql, STATEMENT_TIMEOUT_MS)).toEqual([]);
    // The test server's own sessions have none: what a deployment that forgot ALTER ROLE would see.
    const [problem, ...more] = await pooledSettingsProblems(tables.sql, STATEMENT_TIMEOUT_MS);
    expect(more).toEqual([]);
    expect(problem).toMatch(/statement_timeout through the pooler is unlimited.*ALTER ROLE <role> SET statement_timeout = '15000ms'/);
  });

  it('a direct URL without the pooler it bypasses is a configuration error naming it', () => {
    expect(() => loadConfig({ DATABASE_DIRECT_URL: testPostgresUrl() })).toThrow(/DATABASE_DIRECT_URL: needs DATABASE_URL/);
  });

  it('the pooler carried the application traffic, on no more server connections than its pool', async () => {
    expect((await queryCount()) - queriesBefore).toBeGreaterThan(100);
    const servers = (await bouncer.show('SERVERS')).filter((row) => row.database === PGBOUNCER_DATABASE);
    expect(servers.length).toBeLessThanOrEqual(SERVER_CONNECTIONS);
    // The same app without the pooled setting sends session settings PgBouncer refuses.
    const unpooled = new pg.Client({ connectionString: bouncer.url, options: '-c search_path=public' });
    await expect(unpooled.connect()).rejects.toThrow(/unsupported startup parameter: options/);
  });
});
