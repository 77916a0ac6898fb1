// API key management over REST and GraphQL: create, list, revoke, and the rules around them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { ALL_PERMISSIONS, createApiKeyAndToken, createUserToken, requestToken, type TestCredentials } from '../../helpers/auth.ts';
import { callApi } from './support.ts';

let app: TestApp;
let admin: TestCredentials;
let creator: TestCredentials;
let outsider: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  admin = await createApiKeyAndToken(app, { permissions: ALL_PERMISSIONS, createdBy: 'admin-user' });
  creator = await createApiKeyAndToken(app, { permissions: ['create:api-keys', 'read:entities', 'read:founders'] });
  outsider = await createApiKeyAndToken(app, { permissions: ALL_PERMISSIONS, org: 'other-org' });
});

afterAll(async () => {
  await app.close();
});

const createKey = (credentials: TestCredentials, body: unknown) =>
  credentials.fetch('/api/api-keys', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('POST /api/api-keys', () => {
  it('creates a key and shows its secret once', async () => {
    const response = await createKey(creator, { name: 'reporting', permissions: ['read:entities'] });
    expect(response.status).toBe(201);
    const { data } = await response.json();
    expect(data).toEqual({
      id: expect.any(Number),
      name: 'reporting',
      client_id: expect.stringMatching(/^[A-Za-z0-9_-]{16,}$/),
      client_secret: expect.stringMatching(/^vds_[A-Za-z0-9_-]{43,}$/),
      permissions: ['read:entities'],
      last_used_at: null,
      created_at: expect.any(String),
      created_by: creator.clientId,
    });
    // ≥ 256 random bits after the prefix.
    expect(Buffer.from(data.client_secret.slice(4), 'base64url').length).toBeGreaterThanOrEqual(32);
    const stored = await app.db.prisma.apiKey.findUniqueOrThrow({ where: { id: data.id } });
    expect(stored.secret_hash).not.toContain(data.client_secret);
    expect(stored.secret_hash).toMatch(/^scrypt\$/);
    const token = await requestToken(app, data.client_id, data.client_secret);
    expect((await callApi(app, token, data.client_id)).status).toBe(200);
  });

  const invalid: [string, unknown, string[]][] = [
    ['no body fields', {}, ['body.name', 'body.permissions']],
    ['an empty name', { name: '', permissions: ['read:entities'] }, ['body.name']],
    ['a blank name', { name: '   ', permissions: ['read:entities'] }, ['body.name']],
    ['a 201-character name', { name: 'x'.repeat(201), permissions: ['read:entities'] }, ['body.name']],
    ['a number as name', { name: 7, permissions: ['read:entities'] }, ['body.name']],
    ['no permissions', { name: 'k', permissions: [] }, ['body.permissions']],
    ['permissions as a string', { name: 'k', permissions: 'read:entities' }, ['body.permissions']],
    ['an unknown permission', { name: 'k', permissions: ['read:entities', 'read:everything'] }, ['body.permissions']],
    ['a JSON array body', [], ['body']],
  ];

  it.each(invalid)('refuses %s with 400 and details', async (_name, body, paths) => {
    const response = await createKey(creator, body);
    expect(response.status).toBe(400);
    const { error } = await response.json();
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.details.map((detail: { path: string }) => detail.path)).toEqual(paths);
  });

  it('names the unknown permission', async () => {
    const { error } = await (await createKey(creator, { name: 'k', permissions: ['read:everything'] })).json();
    expect(error.message).toContain('read:everything');
  });

  it('refuses permissions the creator does not hold with 403 naming them', async () => {
    const response = await createKey(creator, { name: 'k', permissions: ['read:entities', 'admin:api-keys', 'read:news'] });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({
      error: { code: 'FORBIDDEN', message: 'A key can only get permissions its creator holds; missing: admin:api-keys, read:news' },
    });
  });

  it('needs create:api-keys (checked before the body)', async () => {
    const reader = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
    const response = await createKey(reader, { name: '' });
    expect(response.status).toBe(403);
    expect((await response.json()).error.message).toContain('create:api-keys');
  });

  it('refuses a non-JSON body', async () => {
    const response = await creator.fetch('/api/api-keys', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'name=x' });
    expect(response.status).toBe(400);
  });
});

describe('GET /api/api-keys', () => {
  it("lists the caller's own active keys, without secrets", async () => {
    const own = await createApiKeyAndToken(app, { permissions: ['create:api-keys', 'read:entities'] });
    const made = await (await createKey(own, { name: 'child', permissions: ['read:entities'] })).json();
    const response = await own.fetch('/api/api-keys?include_total=true');
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.page).toEqual({ limit: 25, offset: 0, total: 2, next_cursor: null });
    expect(body.data.map((key: { client_id: string }) => key.client_id).sort()).toEqual([own.clientId, made.data.client_id].sort());
    for (const key of body.data) {
      expect(Object.keys(key).sort()).toEqual(['client_id', 'created_at', 'created_by', 'id', 'last_used_at', 'name', 'permissions']);
    }
    expect(JSON.stringify(body)).not.toContain('vds_');
  });

  it('lists every active key of the organisation with admin:api-keys, and no other organisation', async () => {
    const body = await (await admin.fetch('/api/api-keys?limit=2000')).json();
    const ids = body.data.map((key: { client_id: string }) => key.client_id);
    expect(ids).toContain(creator.clientId);
    expect(ids).not.toContain(outsider.clientId);
  });

  it.each([['limit=2001'], ['limit=0'], ['offset=-1']])('refuses %s', async (query) => {
    const response = await admin.fetch(`/api/api-keys?${query}`);
    expect(response.status).toBe(400);
    expect((await response.json()).error.details[0].path).toMatch(/^query\./);
  });
});

describe('DELETE /api/api-keys/{id}', () => {
  it('revokes an own key with 204; its live token is refused on the next request and it cannot get new tokens', async () => {
    const own = await createApiKeyAndToken(app, { permissions: ['create:api-keys', 'read:entities'] });
    const child = (await (await createKey(own, { name: 'child', permissions: ['read:entities'] })).json()).data;
    const childToken = await requestToken(app, child.client_id, child.client_secret);
    expect((await callApi(app, childToken, child.client_id)).status).toBe(200);

    const response = await own.fetch(`/api/api-keys/${child.id}`, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe('');
    const refused = await callApi(app, childToken, child.client_id);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    await expect(requestToken(app, child.client_id, child.client_secret)).rejects.toThrow(/401.*invalid_client/);
    expect((await own.fetch('/api/api-keys')).ok).toBe(true);
    expect((await (await own.fetch('/api/api-keys')).json()).data.map((key: { id: number }) => key.id)).not.toContain(child.id);
  });

  it('lets a key revoke itself', async () => {
    const self = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
    expect((await self.fetch(`/api/api-keys/${self.keyId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await self.fetch('/api/entities')).status).toBe(401);
  });

  it("is 403 for someone else's key without admin:api-keys, 204 with it", async () => {
    const victim = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
    const response = await creator.fetch(`/api/api-keys/${victim.keyId}`, { method: 'DELETE' });
    expect(response.status).toBe(403);
    expect((await response.json()).error.message).toContain('admin:api-keys');
    expect((await admin.fetch(`/api/api-keys/${victim.keyId}`, { method: 'DELETE' })).status).toBe(204);
  });

  it("is 404 for another organisation's key, an already revoked key and a missing one; 400 for a bad id", async () => {
    expect((await admin.fetch(`/api/api-keys/${outsider.keyId}`, { method: 'DELETE' })).status).toBe(404);
    const gone = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
    expect((await admin.fetch(`/api/api-keys/${gone.keyId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await admin.fetch(`/api/api-keys/${gone.keyId}`, { method: 'DELETE' })).status).toBe(404);
    expect((await admin.fetch('/api/api-keys/999999', { method: 'DELETE' })).status).toBe(404);
    const bad = await admin.fetch('/api/api-keys/abc', { method: 'DELETE' });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.details).toEqual([{ path: 'path.id', message: expect.any(String) }]);
    expect((await outsider.fetch('/api/entities')).status).toBe(200);
  });
});

describe('GraphQL API key operations', () => {
  it('creates, lists and revokes with the same rules', async () => {
    const created = await creator.graphql(
      'mutation($p: [String!]!) { createApiKey(name: "gql", permissions: $p) { id client_id client_secret created_by } }',
      { p: ['read:founders'] },
    );
    expect(created.body.errors).toBeUndefined();
    const key = (created.body.data as { createApiKey: { id: number; client_id: string; client_secret: string; created_by: string } }).createApiKey;
    expect(key.client_secret).toMatch(/^vds_/);
    expect(key.created_by).toBe(creator.clientId);

    const listed = await creator.graphql('{ apiKeys(limit: 10) { data { id name } page { total } } }');
    expect(JSON.stringify(listed.body.data)).toContain('"gql"');

    const tooMuch = await creator.graphql('mutation { createApiKey(name: "x", permissions: ["admin:api-keys"]) { id } }');
    expect(tooMuch.status).toBe(403);
    expect(tooMuch.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');

    const unknown = await creator.graphql('mutation { createApiKey(name: "x", permissions: ["nope"]) { id } }');
    expect(unknown.body.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'permissions' }] });

    const revoked = await creator.graphql(`mutation { revokeApiKey(id: ${key.id}) }`);
    expect(revoked.body).toEqual({ data: { revokeApiKey: true } });
    const again = await creator.graphql(`mutation { revokeApiKey(id: ${key.id}) }`);
    expect(again.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('lets a user create keys for their organisation; created_by is the user', async () => {
    const user = await createUserToken(app, { user: 'user-7', permissions: ['create:api-keys', 'read:entities'] });
    const response = await createKey(user, { name: 'from a user', permissions: ['read:entities'] });
    expect(response.status).toBe(201);
    expect((await response.json()).data.created_by).toBe('user-7');
    const listed = await (await user.fetch('/api/api-keys')).json();
    expect(listed.data.map((key: { name: string }) => key.name)).toEqual(['from a user']);
  });
});

describe('several mutations in one GraphQL operation', () => {
  const twoKeys = (second: string) =>
    `mutation($p: [String!]!) { a: createApiKey(name: "first of two", permissions: ["read:entities"]) { client_secret } b: createApiKey(name: "${second}", permissions: $p) { id } }`;

  it.each([
    ['a literal', ['read:entities'], 'mutation { a: createApiKey(name: "first of two", permissions: ["read:entities"]) { client_secret } b: createApiKey(name: "literal", permissions: ["admin:api-keys"]) { id } }'],
    ['a variable', ['admin:api-keys'], twoKeys('variable')],
  ])('refuses the whole operation before anything commits when one grants too much (%s)', async (_how, p, query) => {
    const { status, body } = await creator.graphql(query, { p });
    expect(status).toBe(403);
    expect(body.errors?.[0]).toMatchObject({ message: expect.stringContaining('admin:api-keys'), extensions: { code: 'FORBIDDEN' } });
    expect(await app.db.prisma.apiKey.count({ where: { name: 'first of two' } })).toBe(0);
  });
});

describe('last_used_at', () => {
  it('is set when a key calls the API', async () => {
    const fresh = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
    await app.db.prisma.apiKey.update({ where: { id: fresh.keyId! }, data: { last_used_at: null } });
    await fresh.fetch('/api/entities');
    await expect.poll(async () => (await app.db.prisma.apiKey.findUniqueOrThrow({ where: { id: fresh.keyId! } })).last_used_at).not.toBeNull();
  });

  it('is written at most once a minute', async () => {
    const fresh = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
    const recent = new Date(Date.now() - 10_000);
    await app.db.prisma.apiKey.update({ where: { id: fresh.keyId! }, data: { last_used_at: recent } });
    await fresh.fetch('/api/entities');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stored = await app.db.prisma.apiKey.findUniqueOrThrow({ where: { id: fresh.keyId! } });
    expect(stored.last_used_at?.getTime()).toBe(recent.getTime());
  });
});
