// The webhook management API on both transports: the secret shown once, validation, permissions
// (read/write, and reading what an event describes), organisation isolation, soft delete, and URLs
// of special-purpose addresses refused at creation and update.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { ALL_PERMISSIONS, createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { call, detailPaths } from '../management/support.ts';

let app: TestApp;
let admin: TestCredentials;
let outsider: TestCredentials;

/** Names the tests resolve; any other is unknown, as a name without DNS records yet. */
const NAMES: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34'],
  'intranet.example.com': ['10.1.2.3'],
  'mixed.example.com': ['93.184.216.34', '192.168.0.7'],
};

beforeAll(async () => {
  app = await startTestApp({
    resolveHost: async (name) => {
      const addresses = NAMES[name];
      if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
      return addresses;
    },
  });
  admin = await createApiKeyAndToken(app);
  outsider = await createApiKeyAndToken(app, { org: 'other-org' });
});

afterAll(async () => {
  await app.close();
});

const URL_OK = 'https://hooks.example.com/venture';
const RECORD_FIELDS = ['created_at', 'created_by', 'description', 'disabled_reason', 'ecosystem_ids', 'enabled', 'events', 'failing_since', 'id', 'updated_at', 'url'];

const create = (body: Record<string, unknown>, credentials = admin) =>
  call(credentials, 'POST', '/api/webhooks', { url: URL_OK, events: ['entity.created'], ...body });

const webhookCount = () => app.db.prisma.webhook.count();

describe('the secret', () => {
  it('is in the creating response only (whsec_ + base64 of 32 bytes), never in a later read or the logs', async () => {
    const { status, body } = await create({ events: ['entity.created', 'ecosystem.entity_left'], description: 'CRM' });
    expect(status).toBe(201);
    expect(Object.keys(body.data).sort()).toEqual([...RECORD_FIELDS, 'secret'].sort());
    expect(body.data).toMatchObject({ url: URL_OK, events: ['entity.created', 'ecosystem.entity_left'], ecosystem_ids: [], description: 'CRM', enabled: true, disabled_reason: null, failing_since: null, created_by: admin.clientId });
    const secret = body.data.secret as string;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);

    const read = await call(admin, 'GET', `/api/webhooks/${body.data.id}`);
    expect(Object.keys(read.body.data).sort()).toEqual(RECORD_FIELDS);
    const list = await call(admin, 'GET', '/api/webhooks?include_total=true');
    expect(list.body.data.find((webhook: { id: number }) => webhook.id === body.data.id)).toEqual(read.body.data);
    const patched = await call(admin, 'PATCH', `/api/webhooks/${body.data.id}`, { description: 'CRM sync' });
    expect(JSON.stringify([read.body, list.body, patched.body])).not.toContain(secret.slice(6));
    expect(app.logs.join('')).not.toContain(secret.slice(6));
    // Each webhook has its own.
    expect((await create({})).body.data.secret).not.toBe(secret);
  });

  it('over GraphQL: createWebhook returns it; the Webhook type has no such field', async () => {
    const created = await admin.graphql('mutation { createWebhook(url: "https://hooks.example.com/gql", events: ["news.created"]) { id secret events } }');
    expect(created.body.errors).toBeUndefined();
    const record = created.body.data!.createWebhook as { id: number; secret: string; events: string[] };
    expect(record.secret).toMatch(/^whsec_/);
    expect(record.events).toEqual(['news.created']);
    const read = await admin.graphql(`{ webhook(id: ${record.id}) { secret } }`);
    expect(read.body.errors?.[0]?.message).toMatch(/Cannot query field "secret"/);
  });
});

describe('validation', () => {
  it.each([
    ['a URL that is not http(s)', { url: 'ftp://hooks.example.com/x' }, ['body.url']],
    ['a relative URL', { url: '/hook' }, ['body.url']],
    ['no events', { events: [] }, ['body.events']],
    ['an unknown event', { events: ['entity.created', 'entity.craeted'] }, ['body.events.1']],
    ['a description over 1000 characters', { description: 'x'.repeat(1001) }, ['body.description']],
    ['ecosystem ids that are not ids', { ecosystem_ids: ['berlin', 0] }, ['body.ecosystem_ids.0', 'body.ecosystem_ids.1']],
    ['an unknown field', { secret: 'whsec_mine' }, ['body.secret']],
    ['a missing url', { url: undefined }, ['body.url']],
  ])('refuses %s with 400 naming the field, creating nothing', async (_name, body, paths) => {
    const before = await webhookCount();
    const response = await create(body);
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(detailPaths(response.body)).toEqual(paths);
    expect(await webhookCount()).toBe(before);
  });

  it('suggests the close matches of a misspelt event type', async () => {
    const response = await create({ events: ['entity.craeted'] });
    expect(response.body.error.details[0].message).toMatch(/unknown event type 'entity.craeted'; close matches: entity.created/);
    const gql = await admin.graphql('mutation { createWebhook(url: "https://hooks.example.com/x", events: ["ecosystem.entity_entred"]) { id } }');
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('VALIDATION_ERROR');
    expect(gql.body.errors?.[0]?.message).toContain('ecosystem.entity_entered');
  });

  it('refuses ecosystem ids of another organisation or of a deleted ecosystem (400 naming them), nothing created', async () => {
    const own = (await call(admin, 'POST', '/api/ecosystems', { slug: 'hooks-own', name: 'Own', filter: 'is_company:true' })).body.data.id;
    const deleted = (await call(admin, 'POST', '/api/ecosystems', { slug: 'hooks-gone', name: 'Gone', filter: 'is_company:true' })).body.data.id;
    await call(admin, 'DELETE', `/api/ecosystems/${deleted}`);
    const theirs = (await call(outsider, 'POST', '/api/ecosystems', { slug: 'hooks-theirs', name: 'Theirs', filter: 'is_company:true' })).body.data.id;
    const before = await webhookCount();
    const refused = await create({ events: ['ecosystem.entity_entered'], ecosystem_ids: [own, theirs, deleted] });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toEqual([{ path: 'body.ecosystem_ids', message: `no active ecosystem of your organisation has id ${theirs}, ${deleted}` }]);
    expect(await webhookCount()).toBe(before);
    const accepted = await create({ events: ['ecosystem.entity_entered'], ecosystem_ids: [own, own] });
    expect(accepted.status).toBe(201);
    expect(accepted.body.data.ecosystem_ids).toEqual([own]);
  });
});

it('refuses fields in the body of a test or a retry (they take none), and accepts an empty object', async () => {
  const { id } = (await create({})).body.data;
  const refused = await call(admin, 'POST', `/api/webhooks/${id}/test`, { force: true });
  expect(refused.status).toBe(400);
  expect(detailPaths(refused.body)).toEqual(['body.force']);
  const sent = await call(admin, 'POST', `/api/webhooks/${id}/test`, {});
  expect(sent.status).toBe(201);
  const retry = await call(admin, 'POST', `/api/webhooks/${id}/deliveries/${sent.body.data.id}/retry`, { now: true });
  expect(detailPaths(retry.body)).toEqual(['body.now']);
});

describe('URL safety at creation and update', () => {
  it.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://api.localhost/hook',
    'http://[::1]/hook',
    'http://10.0.0.5/hook',
    'http://172.16.3.4/hook',
    'http://192.168.1.1/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://100.64.0.1/hook',
    'http://0.0.0.0/hook',
    'http://[fd00::1]/hook',
    'http://[fe80::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://224.0.0.1/hook',
    'http://2130706433/hook',
    'https://intranet.example.com/hook',
    'https://mixed.example.com/hook',
  ])('refuses %s', async (url) => {
    const response = await create({ url });
    expect(response.status).toBe(400);
    expect(response.body.error.details[0].path).toBe('body.url');
    expect(response.body.error.details[0].message).toMatch(/address/);
  });

  it('accepts a public host, and a name with no address yet (each delivery checks again)', async () => {
    expect((await create({ url: 'https://93.184.216.34/hook' })).status).toBe(201);
    expect((await create({ url: 'https://not-yet.example.com/hook' })).status).toBe(201);
  });

  it('refuses a PATCH to a private URL and keeps the old one', async () => {
    const { id } = (await create({})).body.data;
    const response = await call(admin, 'PATCH', `/api/webhooks/${id}`, { url: 'http://192.168.0.10/hook' });
    expect(response.status).toBe(400);
    expect((await call(admin, 'GET', `/api/webhooks/${id}`)).body.data.url).toBe(URL_OK);
  });
});

describe('permissions', () => {
  it('reads with read:webhooks, writes with write:webhooks (403 naming it)', async () => {
    const { id } = (await create({})).body.data;
    const reader = await createApiKeyAndToken(app, { permissions: ['read:webhooks', 'read:entities'] });
    expect((await call(reader, 'GET', '/api/webhooks')).status).toBe(200);
    expect((await call(reader, 'GET', `/api/webhooks/${id}/deliveries`)).status).toBe(200);
    for (const [method, path] of [['POST', '/api/webhooks'], ['PATCH', `/api/webhooks/${id}`], ['DELETE', `/api/webhooks/${id}`], ['POST', `/api/webhooks/${id}/test`]] as const) {
      const response = await call(reader, method, path, method === 'DELETE' || path.endsWith('/test') ? undefined : { url: URL_OK, events: ['entity.created'] });
      expect([method, path, response.status]).toEqual([method, path, 403]);
      expect(response.body.error.message).toContain('write:webhooks');
    }
    const none = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
    const refused = await call(none, 'GET', '/api/webhooks');
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('read:webhooks');
  });

  it('subscribing to a change type needs the read permission of its resource, at create and update', async () => {
    const writer = await createApiKeyAndToken(app, { permissions: ['read:webhooks', 'write:webhooks', 'read:entities', 'read:ecosystems'] });
    const before = await webhookCount();
    const refused = await create({ events: ['entity.created', 'investor.created', 'news.deleted', 'transaction.updated'] }, writer);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toMatch(/missing: read:investors, read:news, read:transactions$/);
    expect(await webhookCount()).toBe(before);
    const created = await create({ events: ['entity.updated', 'ecosystem.entity_entered'] }, writer);
    expect(created.status).toBe(201);
    const patch = await call(writer, 'PATCH', `/api/webhooks/${created.body.data.id}`, { events: ['valuation.created'] });
    expect(patch.status).toBe(403);
    expect(patch.body.error.message).toContain('read:valuations');
    expect((await call(writer, 'GET', `/api/webhooks/${created.body.data.id}`)).body.data.events).toEqual(['entity.updated', 'ecosystem.entity_entered']);
  });

  it("any update of a webhook needs the permissions its events need: a colleague cannot take a founder.* webhook's events", async () => {
    const { id } = (await create({ events: ['founder.created', 'entity.created'], description: 'people' })).body.data;
    const colleague = await createApiKeyAndToken(app, { permissions: ['read:webhooks', 'write:webhooks', 'read:entities'] });
    const patches = [{ url: 'https://hooks.example.com/mine' }, { description: 'mine' }, { enabled: false }, { ecosystem_ids: [] }, {}];
    for (const patch of patches) {
      const refused = await call(colleague, 'PATCH', `/api/webhooks/${id}`, patch);
      expect([JSON.stringify(patch), refused.status, refused.body.error?.code]).toEqual([JSON.stringify(patch), 403, 'FORBIDDEN']);
      expect(refused.body.error.message).toMatch(/missing: read:founders$/);
    }
    const gql = await colleague.graphql(`mutation { updateWebhook(id: ${id}, url: "https://hooks.example.com/mine") { id } }`);
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const unchanged = (await call(admin, 'GET', `/api/webhooks/${id}`)).body.data;
    expect(unchanged).toMatchObject({ url: URL_OK, description: 'people', enabled: true, events: ['founder.created', 'entity.created'] });
    // Events it may read are its to set, and then the rest of the webhook is too.
    expect((await call(colleague, 'PATCH', `/api/webhooks/${id}`, { events: ['entity.created'], url: 'https://hooks.example.com/mine' })).status).toBe(200);
  });

  it('membership events need what reading an ecosystem\'s entities needs (read:ecosystems and read:entities), at create and update', async () => {
    const noEcosystems = await createApiKeyAndToken(app, { permissions: ['read:webhooks', 'write:webhooks', 'read:entities'] });
    const noEntities = await createApiKeyAndToken(app, { permissions: ['read:webhooks', 'write:webhooks', 'read:ecosystems'] });
    const before = await webhookCount();
    for (const [credentials, missing] of [[noEcosystems, 'read:ecosystems'], [noEntities, 'read:entities']] as const) {
      for (const type of ['ecosystem.entity_entered', 'ecosystem.entity_left']) {
        const refused = await create({ events: [type] }, credentials);
        expect([type, refused.status]).toEqual([type, 403]);
        expect(refused.body.error.message).toMatch(new RegExp(`missing: ${missing}$`));
      }
    }
    const gql = await noEcosystems.graphql('mutation { createWebhook(url: "https://hooks.example.com/x", events: ["ecosystem.entity_left"]) { id } }');
    expect(gql.body.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    expect(await webhookCount()).toBe(before);
    const { id } = (await create({ events: ['entity.created'] }, noEcosystems)).body.data;
    const patched = await call(noEcosystems, 'PATCH', `/api/webhooks/${id}`, { events: ['entity.created', 'ecosystem.entity_entered'] });
    expect(patched.status).toBe(403);
    expect(patched.body.error.message).toMatch(/missing: read:ecosystems$/);
    const both = await createApiKeyAndToken(app, { permissions: ['read:webhooks', 'write:webhooks', 'read:entities', 'read:ecosystems'] });
    expect((await create({ events: ['ecosystem.entity_entered', 'ecosystem.entity_left'] }, both)).status).toBe(201);
  });
});

describe('organisations and deletion', () => {
  it("another organisation's webhook is 404 on every route and absent from its list", async () => {
    const { id } = (await create({})).body.data;
    const delivery = (await call(admin, 'POST', `/api/webhooks/${id}/test`)).body.data.id;
    for (const [method, path] of [
      ['GET', `/api/webhooks/${id}`],
      ['PATCH', `/api/webhooks/${id}`],
      ['DELETE', `/api/webhooks/${id}`],
      ['POST', `/api/webhooks/${id}/test`],
      ['GET', `/api/webhooks/${id}/deliveries`],
      ['POST', `/api/webhooks/${id}/deliveries/${delivery}/retry`],
    ] as const) {
      const response = await call(outsider, method, path, method === 'PATCH' ? { description: 'mine now' } : undefined);
      expect([method, path, response.status]).toEqual([method, path, 404]);
    }
    expect((await call(outsider, 'GET', '/api/webhooks')).body.data.map((webhook: { id: number }) => webhook.id)).not.toContain(id);
    expect((await call(admin, 'GET', `/api/webhooks/${id}`)).body.data.description).toBe('');
  });

  it('DELETE removes it from reads (404, a second DELETE too) and keeps the row, inactive', async () => {
    const { id } = (await create({})).body.data;
    expect((await call(admin, 'DELETE', `/api/webhooks/${id}`)).status).toBe(204);
    expect((await call(admin, 'GET', `/api/webhooks/${id}`)).status).toBe(404);
    expect((await call(admin, 'DELETE', `/api/webhooks/${id}`)).status).toBe(404);
    expect((await call(admin, 'POST', `/api/webhooks/${id}/test`)).status).toBe(404);
    expect((await call(admin, 'GET', '/api/webhooks?limit=2000')).body.data.map((webhook: { id: number }) => webhook.id)).not.toContain(id);
    expect(await app.db.prisma.webhook.findUnique({ where: { id }, select: { is_active: true } })).toEqual({ is_active: false });
  });

  it('a delivery of another webhook of the same organisation is 404 under this one', async () => {
    const first = (await create({})).body.data.id;
    const second = (await create({})).body.data.id;
    const delivery = (await call(admin, 'POST', `/api/webhooks/${first}/test`)).body.data.id;
    expect((await call(admin, 'POST', `/api/webhooks/${second}/deliveries/${delivery}/retry`)).status).toBe(404);
  });
});

describe('GraphQL', () => {
  it('lists, updates, tests and deletes with the same rules', async () => {
    const { id } = (await create({})).body.data;
    const updated = await admin.graphql(`mutation { updateWebhook(id: ${id}, description: "via GraphQL", enabled: false) { description enabled disabled_reason } }`);
    expect(updated.body.data?.updateWebhook).toEqual({ description: 'via GraphQL', enabled: false, disabled_reason: 'disabled by a client' });
    const tested = await admin.graphql(`mutation { testWebhook(id: ${id}) { id } }`);
    expect(tested.body.errors?.[0]?.extensions?.code).toBe('CONFLICT');
    const listed = await admin.graphql('{ webhooks(limit: 500) { data { id } page { total } } }');
    expect((listed.body.data?.webhooks as { data: { id: number }[] }).data.map((webhook) => webhook.id)).toContain(id);
    const foreign = await outsider.graphql(`{ webhook(id: ${id}) { id } }`);
    expect(foreign.body.data?.webhook).toBeNull();
    expect((await admin.graphql(`mutation { deleteWebhook(id: ${id}) }`)).body.data?.deleteWebhook).toBe(true);
    expect(ALL_PERMISSIONS).toContain('write:webhooks');
  });
});
