// /openapi.json and /docs: the generated description is valid OpenAPI 3.1, covers the route table and
// the operational paths, and real responses of the running service validate against it.
import { readFileSync } from 'node:fs';
import { compileErrors, validate } from '@readme/openapi-parser';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../helpers/built-schema.ts';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { describeFilterFields } from '../../src/filter/index.ts';
import type { OpenApiDocument } from '../../src/openapi/index.ts';
import type { OperationObject, ParameterObject, Reference } from '../../src/openapi/types.ts';
import { routes, type Route } from '../../src/rest/routes.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';

let app: TestApp;
let auth: TestCredentials;
let doc: OpenApiDocument;
let ajv: Ajv2020;
let records: Record<'ecosystem' | 'landscape' | 'team' | 'webhook', number>;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 50 });
  auth = await createApiKeyAndToken(app);
  records = await managementRecords();
  // An export to read back (queued: this app runs no background work).
  const exported = await auth.fetch('/api/exports', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ resource: 'entities', format: 'csv' }) });
  expect(exported.status).toBe(202);
  const response = await app.fetch('/openapi.json');
  expect(response.status).toBe(200);
  doc = (await response.json()) as OpenApiDocument;
  ajv = documentAjv(doc);
}, 120_000);

afterAll(async () => {
  await app.close();
});

/** Ajv over the whole document, so `$ref`s into components resolve as in any OpenAPI 3.1 tool. */
function documentAjv(document: OpenApiDocument): Ajv2020 {
  const instance = new Ajv2020({ strict: true, allowUnionTypes: true });
  addFormats(instance);
  // The document's own keys are not JSON Schema keywords; strict mode must not take them for typos.
  for (const keyword of Object.keys(document)) instance.addKeyword(keyword);
  instance.addSchema(document, 'openapi');
  return instance;
}

const pointerSegment = (segment: string): string => encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));

const operationOf = (route: Pick<Route, 'path' | 'method'>): OperationObject =>
  doc.paths[route.path]![route.method.toLowerCase() as 'get']!;

/** The JSON pointer of a response's JSON schema, following a `$ref` to a shared response. */
function responseSchemaPointer(path: string, method: string, status: number): string {
  const response = doc.paths[path]?.[method as 'get']?.responses[String(status)];
  if (!response) throw new Error(`${method.toUpperCase()} ${path} documents no ${status}`);
  const base = '$ref' in response
    ? (response as Reference).$ref.slice(1)
    : `/paths/${pointerSegment(path)}/${method}/responses/${status}`;
  return `${base}/content/${pointerSegment('application/json')}/schema`;
}

function expectConforms(path: string, method: string, response: { status: number }, body: unknown): void {
  const check = ajv.compile({ $ref: `openapi#${responseSchemaPointer(path, method, response.status)}` });
  expect(check(body), `${method.toUpperCase()} ${path} ${response.status}: ${ajv.errorsText(check.errors)}`).toBe(true);
}

const post = (path: string, body: unknown, method = 'POST') =>
  auth.fetch(path, body === undefined ? { method } : { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

/** An ecosystem with a filled landscape, a team with an invitation, and a webhook with an attempt, all of `auth`'s organisation. */
async function managementRecords(): Promise<typeof records> {
  const ecosystem = ((await (await post('/api/ecosystems', { slug: 'docs', name: 'Docs', filter: 'is_company:true' })).json()) as { data: { id: number } }).data.id;
  const landscape = ((await (await post(`/api/ecosystems/${ecosystem}/landscapes`, { name: 'L' })).json()) as { data: { id: number } }).data.id;
  const entities = await app.db.prisma.entity.findMany({ select: { id: true }, take: 3 });
  await post(`/api/landscapes/${landscape}/entities`, { entity_ids: entities.map((entity) => entity.id) }, 'PUT');
  const team = ((await (await post('/api/teams', { name: 'Docs', slug: 'docs' })).json()) as { data: { id: number } }).data.id;
  await post(`/api/teams/${team}/invitations`, { invited_email: 'reader@example.com', invited_user_id: 'reader' });
  // A `.invalid` host never resolves: the test event's attempt fails and is logged, nothing leaves the machine.
  const webhook = ((await (await post('/api/webhooks', { url: 'https://hooks.example.invalid/docs', events: ['entity.created'] })).json()) as { data: { id: number } }).data.id;
  await post(`/api/webhooks/${webhook}/test`, undefined);
  await waitForAttempt(webhook);
  return { ecosystem, landscape, team, webhook };
}

async function waitForAttempt(webhook: number): Promise<void> {
  for (let tries = 0; tries < 400; tries += 1) {
    const log = (await (await auth.fetch(`/api/webhooks/${webhook}/deliveries`)).json()) as { data: unknown[] };
    if (log.data.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the test event was never attempted');
}

/**
 * A concrete URL for a route's path: the management records made above, `entities` as the resource,
 * otherwise ids from the first record of its list.
 */
async function concretePath(path: string): Promise<string> {
  if (path.endsWith('/{resource}')) return path.replace('{resource}', 'entities');
  if (path === '/api/usage/timeseries') return `${path}?start_date=2026-01-01&end_date=2026-12-31&granularity=hourly`;
  if (path === '/api/landscapes/{id}') return path.replace('{id}', String(records.landscape));
  if (path.endsWith('/{id}/similar')) return `${await concretePath(path.slice(0, -'/similar'.length))}/similar`;
  path = path
    .replace('{ecosystem}', String(records.ecosystem))
    .replace('{team}', String(records.team))
    .replace('{webhook}', String(records.webhook))
    .replace('{user_id}', auth.clientId);
  if (!path.endsWith('/{id}')) return path;
  const list = (await (await auth.fetch(`${path.slice(0, -'/{id}'.length)}?limit=1`)).json()) as { data: { id: number }[] };
  expect(list.data.length, `no record to read at ${path}`).toBeGreaterThan(0);
  return path.replace('{id}', String(list.data[0]!.id));
}

const parametersOf = (operation: OperationObject): ParameterObject[] =>
  (operation.parameters ?? []).filter((parameter): parameter is ParameterObject => !('$ref' in parameter));

describe('GET /openapi.json', () => {
  it('is served without a token as valid OpenAPI 3.1', async () => {
    const response = await app.fetch('/openapi.json');
    expect(response.headers.get('content-type')).toMatch(/^application\/json; charset=utf-8/);
    expect(doc.openapi).toBe('3.1.0');
    const result = await validate(structuredClone(doc) as Parameters<typeof validate>[0]);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('takes its version from package.json and its addresses from PUBLIC_URL', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(doc.info.version).toBe(pkg.version);
    expect(doc.servers).toEqual([{ url: app.url }]);
    expect(doc.components.securitySchemes.oauth2!.flows!.clientCredentials.tokenUrl).toBe(`${app.url}/oauth/token`);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.clientId).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Client-Id' });
    expect(doc.components.securitySchemes.userAgent).toMatchObject({ type: 'apiKey', in: 'header', name: 'User-Agent' });
  });

  it('describes every route of the route table with its method, headers and permission', () => {
    const ids = new Set<string>();
    for (const route of routes) {
      const operation = operationOf(route);
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      ids.add(operation.operationId);
      // The identifying headers are security schemes, set once by a generated client (docs/auth.md).
      expect(operation.security).toContainEqual({ bearerAuth: [], clientId: [], userAgent: [] });
      expect(Array.isArray(operation['x-permissions'])).toBe(true);
    }
    expect(ids.size).toBe(routes.length);
    expect(operationOf({ path: '/api/entities', method: 'GET' })['x-permissions']).toEqual(['read:entities']);
    expect(operationOf({ path: '/api/api-keys', method: 'POST' })['x-permissions']).toEqual(['create:api-keys']);
  });

  it('describes the paths outside the route table', () => {
    expect(doc.paths['/oauth/token']?.post).toBeDefined();
    for (const path of ['/.well-known/jwks.json', '/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/healthz', '/readyz', '/metrics']) {
      expect(doc.paths[path]?.get, path).toBeDefined();
    }
  });

  it('has a success schema for every route and only schemas JSON Schema 2020-12 accepts strictly', () => {
    for (const route of routes) {
      const method = route.method.toLowerCase();
      const [status] = Object.keys(operationOf(route).responses);
      if (status === '204') continue;
      expect(() => ajv.compile({ $ref: `openapi#${responseSchemaPointer(route.path, method, Number(status))}` }), route.id).not.toThrow();
      parametersOf(operationOf(route)).forEach((parameter) => expect(() => ajv.compile(parameter.schema), `${route.id} ${parameter.name}`).not.toThrow());
    }
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => ajv.compile({ $ref: `openapi#/components/schemas/${name}` }), name).not.toThrow();
    }
  });

  it('gives every list the maximum limit the server enforces', async () => {
    const lists = routes.filter((route) => parametersOf(operationOf(route)).some((parameter) => parameter.name === 'cursor' || parameter.name === 'include_total'));
    expect(lists.length).toBeGreaterThanOrEqual(7);
    const maxima: Record<string, number | undefined> = {};
    for (const route of lists) {
      const maximum = parametersOf(operationOf(route)).find((parameter) => parameter.name === 'limit')?.schema.maximum;
      expect(maximum, route.id).toBeGreaterThan(0);
      maxima[route.path] = maximum;
      const path = await concretePath(route.path);
      expect((await auth.fetch(`${path}?limit=${maximum}`)).status, `${route.id} limit=${maximum}`).toBe(200);
      expect((await auth.fetch(`${path}?limit=${maximum! + 1}`)).status, `${route.id} limit=${maximum! + 1}`).toBe(400);
    }
    expect(maxima).toMatchObject({ '/api/entities': 500, '/api/founders': 500, '/api/investors': 500, '/api/transactions': 2000, '/api/news': 2000 });
  });

  it("lists the filterable fields in the filter parameter's description", () => {
    const filter = parametersOf(operationOf({ path: '/api/entities', method: 'GET' })).find((parameter) => parameter.name === 'filter');
    for (const field of describeFilterFields('entities')) expect(filter?.description).toContain(`\`${field.name}\``);
  });
});

describe('real responses validate against the document', () => {
  it('GET /api/entities, with and without the total', async () => {
    for (const query of ['', '?limit=5&include_total=true', '?sort=-launch_year&limit=3']) {
      const response = await auth.fetch(`/api/entities${query}`);
      const body = await response.json();
      expect(response.status).toBe(200);
      expect(body.data.length).toBeGreaterThan(0);
      expectConforms('/api/entities', 'get', response, body);
    }
  });

  it('every GET route of the route table', async () => {
    for (const route of routes.filter((candidate) => candidate.method === 'GET')) {
      // An aggregate needs a metric, a search its q (the required parameters of a GET).
      const query = route.kind === 'aggregate' ? '?metric=count&group_by=id' : route.path === '/api/search' ? '?q=a' : '';
      const response = await auth.fetch(`${await concretePath(route.path)}${query}`);
      expect(response.status, route.id).toBe(200);
      expectConforms(route.path, 'get', response, await response.json());
    }
  });

  it('every GET route that takes fields=, trimmed to one field and to id alone', async () => {
    const selectable = routes.filter((route) => route.method === 'GET' && parametersOf(operationOf(route)).some((parameter) => parameter.name === 'fields'));
    expect(selectable.length).toBeGreaterThanOrEqual(10);
    for (const route of selectable) {
      const names = parametersOf(operationOf(route)).find((parameter) => parameter.name === 'fields')!.schema.items!.enum as string[];
      const other = names.find((name) => name !== 'id')!;
      for (const fields of [other, 'id']) {
        const path = `${await concretePath(route.path)}?fields=${fields}`;
        const response = await auth.fetch(path);
        const body = (await response.json()) as { data: Record<string, unknown> | Record<string, unknown>[] };
        expect(response.status, path).toBe(200);
        const first = Array.isArray(body.data) ? body.data[0] : body.data;
        // The trimmed record really is trimmed, and the document still accepts it.
        if (first) expect(Object.keys(first).sort(), path).toEqual([...new Set(['id', fields])].sort());
        expectConforms(route.path, 'get', response, body);
      }
    }
  });

  it('POST /api/api-keys (201) and DELETE /api/api-keys/{id} (204)', async () => {
    const created = await auth.fetch('/api/api-keys', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'documented key', permissions: ['read:entities'] }),
    });
    const body = (await created.json()) as { data: { id: number } };
    expect(created.status).toBe(201);
    expectConforms('/api/api-keys', 'post', created, body);
    const revoked = await auth.fetch(`/api/api-keys/${body.data.id}`, { method: 'DELETE' });
    expect(revoked.status).toBe(204);
    expect(operationOf({ path: '/api/api-keys/{id}', method: 'DELETE' }).responses['204']).toBeDefined();
  });

  it('every management write, with the status and body it documents', async () => {
    const writes: [string, string, () => Promise<Response>][] = [
      ['/api/ecosystems', 'post', () => post('/api/ecosystems', { slug: 'written', name: 'W', filter: 'hq_country:Germany', partner_logos: [] })],
      ['/api/ecosystems/{id}', 'patch', () => post(`/api/ecosystems/${records.ecosystem}`, { description: 'patched' }, 'PATCH')],
      ['/api/ecosystems/{ecosystem}/landscapes', 'post', () => post(`/api/ecosystems/${records.ecosystem}/landscapes`, { name: 'More' })],
      ['/api/landscapes/{id}/entities', 'put', () => post(`/api/landscapes/${records.landscape}/entities`, { entity_ids: [] }, 'PUT')],
      ['/api/teams', 'post', () => post('/api/teams', { name: 'W', slug: 'written' })],
      ['/api/teams/{id}', 'patch', () => post(`/api/teams/${records.team}`, { name: 'Patched' }, 'PATCH')],
      ['/api/teams/{team}/members/{user_id}', 'patch', () => post(`/api/teams/${records.team}/members/${auth.clientId}`, { role: 'owner' }, 'PATCH')],
      ['/api/teams/{team}/invitations', 'post', () => post(`/api/teams/${records.team}/invitations`, { invited_email: 'w@example.com', invited_user_id: 'w' })],
      ['/api/ecosystems', 'post', () => post('/api/ecosystems', { slug: 'written', name: 'W', filter: 'hq_country:Germany' })],
      ['/api/webhooks', 'post', () => post('/api/webhooks', { url: 'https://hooks.example.invalid/w', events: ['entity.updated'] })],
      ['/api/webhooks/{id}', 'patch', () => post(`/api/webhooks/${records.webhook}`, { description: 'patched' }, 'PATCH')],
      ['/api/webhooks/{id}/test', 'post', () => post(`/api/webhooks/${records.webhook}/test`, undefined)],
      ['/api/exports', 'post', () => post('/api/exports', { resource: 'founders', format: 'parquet', fields: ['name'] })],
    ];
    for (const [path, method, send] of writes) {
      const response = await send();
      const [documented] = Object.keys(doc.paths[path]![method as 'post']!.responses);
      expect([response.status, path, method]).toEqual([response.status < 300 ? Number(documented) : 409, path, method]);
      expectConforms(path, method, response, await response.json());
    }
  });

  it('error responses: 400, 401, 403, 404', async () => {
    const reader = await createApiKeyAndToken(app, { permissions: ['read:news'] });
    const cases: [string, Promise<Response>, number][] = [
      ['/api/entities', auth.fetch('/api/entities?limit=0'), 400],
      ['/api/entities', app.fetch('/api/entities'), 400],
      ['/api/entities', auth.fetch('/api/entities', { headers: { Authorization: 'Bearer not-a-token' } }), 401],
      ['/api/entities', reader.fetch('/api/entities'), 403],
      ['/api/entities/{id}', auth.fetch('/api/entities/999999999'), 404],
    ];
    for (const [path, pending, status] of cases) {
      const response = await pending;
      expect(response.status, path).toBe(status);
      expectConforms(path, 'get', response, await response.json());
    }
  });

  it('the token endpoint, the well-known documents and the health checks', async () => {
    const token = await app.fetch('/oauth/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: auth.clientId, client_secret: auth.clientSecret }),
    });
    expect(token.status).toBe(200);
    expectConforms('/oauth/token', 'post', token, await token.json());
    const refused = await app.fetch('/oauth/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expectConforms('/oauth/token', 'post', refused, await refused.json());
    for (const path of ['/.well-known/jwks.json', '/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/healthz', '/readyz']) {
      const response = await app.fetch(path);
      expect(response.status, path).toBe(200);
      expectConforms(path, 'get', response, await response.json());
    }
  });
});

describe('GET /docs', () => {
  it('is an HTML page that renders /openapi.json with assets from this origin', async () => {
    const response = await app.fetch('/docs');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await response.text();
    expect(html).toContain('href="/openapi.json"');
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]!).filter((url) => !url.startsWith('data:'));
    expect(assets.filter((url) => url.startsWith('/docs/assets/'))).toHaveLength(4);
    for (const url of assets) {
      expect(url, 'no asset from another host').toMatch(/^\/[^/]/);
      const asset = await app.fetch(url);
      expect(asset.status, url).toBe(200);
      const text = await asset.text();
      if (url.startsWith('/docs/assets/')) {
        expect(asset.headers.get('cache-control'), url).toMatch(/max-age=31536000.*immutable/);
        expect(asset.headers.get('content-type'), url).toMatch(/^text\/(css|javascript)/);
      }
      if (url.includes('init.js')) expect(text).toContain('"/openapi.json"');
    }
  });

  it('answers other methods with 405 and unknown assets with 404', async () => {
    for (const path of ['/openapi.json', '/docs']) {
      const response = await app.fetch(path, { method: 'POST' });
      expect(response.status, path).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
    }
    const missing = await app.fetch('/docs/assets/..%2fpackage.json');
    expect(missing.status).toBe(404);
    expect((await app.fetch('/docs/assets/nothing.js')).status).toBe(404);
  });
});
