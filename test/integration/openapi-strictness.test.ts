// /openapi.json is as strict as the server: every request body and parameter the management and read
// tests see refused is sent to the running server (which must answer 400) and checked against the
// document with Ajv (JSON Schema 2020-12, with formats), as a validating proxy would check it: unknown
// or repeated parameters, path and query parameters by their schemas, bodies by theirs. The few rules
// no JSON Schema states (one field compared with another, a filter's grammar, limits over a whole free-
// form value) are listed apart, each refused by the server and described in prose by the document.
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../src/openapi/index.ts';
import type { JsonSchema, OperationObject, ParameterObject } from '../../src/openapi/types.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import { checkAnswer, documentValidator } from './openapi-answers.ts';

let app: TestApp;
let auth: TestCredentials;
let doc: OpenApiDocument;
let ajv: Ajv2020;

beforeAll(async () => {
  app = await startTestApp();
  auth = await createApiKeyAndToken(app);
  doc = (await (await app.fetch('/openapi.json')).json()) as OpenApiDocument;
  ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
  addFormats(ajv);
  for (const keyword of Object.keys(doc)) ajv.addKeyword(keyword);
  ajv.addSchema(doc, 'openapi');
});

afterAll(async () => {
  await app.close();
});

interface Refused {
  method: string;
  /** A concrete path, e.g. `/api/ecosystems/1`. */
  path: string;
  query?: string;
  /** A JSON value, or raw text sent as it is. */
  body?: unknown;
}

const ECOSYSTEM = { slug: 'ok', name: 'B', filter: 'hq_country:Germany' };
const LOGO = { name: 'A', url: '', image_url: '' };
const RANGE = 'start_date=2026-03-01&end_date=2026-03-02';

/** Refused bodies of test/integration/management/*, auth/api-keys and unknown-body-fields. */
const BODIES: [string, Refused][] = [
  ['ecosystem: nothing', { method: 'POST', path: '/api/ecosystems', body: {} }],
  ['ecosystem: an upper-case slug', { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, slug: 'Berlin' } }],
  ['ecosystem: a slug with a space', { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, slug: 'a b' } }],
  ['ecosystem: a 101-character slug', { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, slug: 'a'.repeat(101) } }],
  ['ecosystem: an all-digit slug', { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, slug: '007' } }],
  ['ecosystem: an all-digit slug in a patch', { method: 'PATCH', path: '/api/ecosystems/1', body: { slug: '123' } }],
  ['ecosystem: an empty name', { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, name: '' } }],
  ['ecosystem: a 201-character name', { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, name: 'n'.repeat(201) } }],
  ['ecosystem: is_active', { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, is_active: false } }],
  ['ecosystem: an unknown field', { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, colour: 'red' } }],
  ['ecosystem: an unknown field in a patch', { method: 'PATCH', path: '/api/ecosystems/1', body: { colour: 'red' } }],
  ['ecosystem: a string sort_order', { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, sort_order: '1' } }],
  ['ecosystem: sort_order beyond 32 bits', { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, sort_order: 2 ** 31 } }],
  ['ecosystem: partner logos as an object', { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, partner_logos: {} } }],
  ['ecosystem: a partner logo with an unknown key', { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, partner_logos: [{ ...LOGO, logo: 'x' }] } }],
  ['ecosystem: a partner logo with a missing key', { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, partner_logos: [{ name: 'A', url: '' }] } }],
  ['ecosystem: a partner logo as a string', { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, partner_logos: ['Acme'] } }],
  ['ecosystem: 101 partner logos', { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, partner_logos: Array.from({ length: 101 }, () => LOGO) } }],
  ['ecosystem: tabs_config as an array', { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, tabs_config: [] } }],
  ['ecosystem: a JSON array', { method: 'POST', path: '/api/ecosystems', body: [] }],
  ['ecosystem: a blank filter', { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, filter: ' \u00a0 ' } }],
  ['ecosystem: a NUL in the name', { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, name: 'a\u0000b' } }],
  ['ecosystem: a lone surrogate in the region', { method: 'POST', path: '/api/ecosystems', body: `{"slug":"ok","name":"B","filter":"hq_country:Germany","region":"\\ud800"}` }],
  ...[
    'javascript:alert(1)', 'JavaScript:alert(1)', ' javascript:alert(1)', 'java\tscript:alert(1)', 'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)', 'ftp://files.example/logo.png', '//evil.example/logo.png', '/relative/logo.png', 'https://', ' https://acme.example',
    'https://acme.example/a b',
  ].flatMap((url): [string, Refused][] => [
    [`ecosystem: image_url ${JSON.stringify(url)}`, { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, image_url: url } }],
    [`ecosystem: a partner logo's url ${JSON.stringify(url)}`, { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, partner_logos: [{ ...LOGO, url }] } }],
  ]),
  ['landscape: no name', { method: 'POST', path: '/api/ecosystems/eco/landscapes', body: {} }],
  ['landscape: an unknown field', { method: 'POST', path: '/api/ecosystems/eco/landscapes', body: { name: 'L', colour: 'red' } }],
  ['landscape: entity ids as strings', { method: 'PUT', path: '/api/landscapes/1/entities', body: { entity_ids: ['1'] } }],
  ['landscape: entity id 0', { method: 'PUT', path: '/api/landscapes/1/entities', body: { entity_ids: [0] } }],
  ['landscape: 5,001 entities', { method: 'PUT', path: '/api/landscapes/1/entities', body: { entity_ids: Array.from({ length: 5001 }, (_, index) => index + 1) } }],
  ['landscape: no entity_ids', { method: 'PUT', path: '/api/landscapes/1/entities', body: {} }],
  ['team: an upper-case slug', { method: 'POST', path: '/api/teams', body: { name: 'T', slug: 'Team' } }],
  ['team: a slug ending in a hyphen', { method: 'POST', path: '/api/teams', body: { name: 'T', slug: 'team-' } }],
  ['team: an unknown field in a patch', { method: 'PATCH', path: '/api/teams/1', body: { colour: 'red' } }],
  ['team: a role that does not exist', { method: 'PATCH', path: '/api/teams/1/members/someone', body: { role: 'king' } }],
  ['invitation: not an e-mail', { method: 'POST', path: '/api/teams/1/invitations', body: { invited_email: 'nobody', invited_user_id: 'u' } }],
  ['invitation: the owner role', { method: 'POST', path: '/api/teams/1/invitations', body: { invited_email: 'a@example.com', invited_user_id: 'u', role: 'owner' } }],
  ...['a/b', '.', '..'].map((id): [string, Refused] => [
    `invitation: the user id ${JSON.stringify(id)}`,
    { method: 'POST', path: '/api/teams/1/invitations', body: { invited_email: 'a@example.com', invited_user_id: id } },
  ]),
  ['invitation: accept without a token', { method: 'POST', path: '/api/invitations/accept', body: {} }],
  ['invitation: decline with a number', { method: 'POST', path: '/api/invitations/decline', body: { token: 7 } }],
  ['api key: no body fields', { method: 'POST', path: '/api/api-keys', body: {} }],
  ['api key: an empty name', { method: 'POST', path: '/api/api-keys', body: { name: '', permissions: ['read:entities'] } }],
  ['api key: a blank name', { method: 'POST', path: '/api/api-keys', body: { name: '   ', permissions: ['read:entities'] } }],
  ['api key: a 201-character name', { method: 'POST', path: '/api/api-keys', body: { name: 'x'.repeat(201), permissions: ['read:entities'] } }],
  ['api key: a number as name', { method: 'POST', path: '/api/api-keys', body: { name: 7, permissions: ['read:entities'] } }],
  ['api key: a NUL in the name', { method: 'POST', path: '/api/api-keys', body: { name: 'a\u0000b', permissions: ['read:entities'] } }],
  ['api key: no permissions', { method: 'POST', path: '/api/api-keys', body: { name: 'k', permissions: [] } }],
  ['api key: permissions as a string', { method: 'POST', path: '/api/api-keys', body: { name: 'k', permissions: 'read:entities' } }],
  ['api key: an unknown permission', { method: 'POST', path: '/api/api-keys', body: { name: 'k', permissions: ['read:entities', 'read:everything'] } }],
  ['api key: an unknown field', { method: 'POST', path: '/api/api-keys', body: { name: 'k', permissions: ['read:entities'], scopes: [] } }],
  ['api key: a JSON array body', { method: 'POST', path: '/api/api-keys', body: [] }],
];

/** Refused parameters of test/integration/read-api/*, bad-input, auth/api-keys and usage/timeseries. */
const PARAMETERS: [string, Refused][] = [
  ...['limit=0', 'limit=501', 'limit=abc', 'limit=2147483648', 'offset=-1', 'offset=2147483648', 'include_total=yes', 'limt=5', 'limit=5&limit=6', 'fields=nmae', 'fields=name&fields=nmae', 'sort=nmae', 'sort=name,,id', 'sort=-', `filter=${'a'.repeat(4097)}`, 'format=xml', 'cursor=a&cursor=b']
    .map((query): [string, Refused] => [`entities: ${query.slice(0, 40)}`, { method: 'GET', path: '/api/entities', query }]),
  ['entity: a non-numeric id', { method: 'GET', path: '/api/entities/abc' }],
  ['entity: a negative id', { method: 'GET', path: '/api/entities/-1' }],
  ['entity: an unknown field', { method: 'GET', path: '/api/entities/1', query: 'fields=nmae' }],
  ['news: limit 2001', { method: 'GET', path: '/api/news', query: 'limit=2001' }],
  ['api keys: limit 2001', { method: 'GET', path: '/api/api-keys', query: 'limit=2001' }],
  ['api keys: offset -1', { method: 'GET', path: '/api/api-keys', query: 'offset=-1' }],
  ['api keys: a bad id', { method: 'DELETE', path: '/api/api-keys/abc' }],
  ['ecosystem: a key that is neither an id nor a slug', { method: 'GET', path: '/api/ecosystems/Not_A_Slug' }],
  ['team member: a user id with a "/"', { method: 'PATCH', path: '/api/teams/1/members/a%2Fb', body: { role: 'admin' } }],
  ['filters: an unknown parameter', { method: 'GET', path: '/api/filters/entities', query: 'x=1' }],
  ['usage: no dates', { method: 'GET', path: '/api/usage/timeseries', query: '' }],
  ['usage: no end date', { method: 'GET', path: '/api/usage/timeseries', query: 'start_date=2026-03-01' }],
  ['usage: not a calendar date', { method: 'GET', path: '/api/usage/timeseries', query: 'start_date=2026-02-29&end_date=2026-03-01' }],
  ['usage: not ISO', { method: 'GET', path: '/api/usage/timeseries', query: 'start_date=2026-3-1&end_date=01/03/2026' }],
  ['usage: a date-time', { method: 'GET', path: '/api/usage/timeseries', query: 'start_date=2026-03-01T00:00:00Z&end_date=2026-03-02' }],
  ['usage: unknown granularity', { method: 'GET', path: '/api/usage/timeseries', query: `${RANGE}&granularity=weekly` }],
  ['usage: empty client_id', { method: 'GET', path: '/api/usage/timeseries', query: `${RANGE}&client_id=` }],
  ['usage: a parameter twice', { method: 'GET', path: '/api/usage/timeseries', query: `${RANGE}&start_date=2026-03-01` }],
  ['usage: an unknown parameter', { method: 'GET', path: '/api/usage/timeseries', query: `${RANGE}&granularty=hourly` }],
];

/** Refused by the server, beyond what JSON Schema states: each is described in the document's text. */
const PROSE_ONLY: [string, Refused][] = [
  ['usage: end before start', { method: 'GET', path: '/api/usage/timeseries', query: 'start_date=2026-03-02&end_date=2026-03-01' }],
  ['usage: over 366 days', { method: 'GET', path: '/api/usage/timeseries', query: 'start_date=2025-01-01&end_date=2026-01-02' }],
  ['entities: a filter that does not parse', { method: 'GET', path: '/api/entities', query: 'filter=and(' }],
  ['entities: cursor with offset', { method: 'GET', path: '/api/entities', query: 'cursor=abc&offset=1' }],
  ['ecosystem: tabs_config 17 levels deep', { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, tabs_config: JSON.parse(`${'{"a":'.repeat(17)}1${'}'.repeat(17)}`) } }],
];

async function send(request: Refused): Promise<number> {
  const body = request.body === undefined ? undefined : typeof request.body === 'string' ? request.body : JSON.stringify(request.body);
  const response = await auth.fetch(`${request.path}${request.query ? `?${request.query}` : ''}`, {
    method: request.method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body }),
  });
  const text = await response.text();
  // The answer too, as a validating proxy reads it: status listed, headers declared, body fitting.
  const template = Object.keys(doc.paths).find((path) => new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`).test(request.path));
  if (template) checkAnswer(documentValidator(doc), template, request.method.toLowerCase(), response, JSON.parse(text));
  return response.status;
}

const pointer = (...segments: string[]): string => segments.map((segment) => segment.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** A query or path value as its schema reads it (OpenAPI's `form` and `simple` styles). */
function typed(value: string, schema: JsonSchema): unknown {
  if (schema.type === 'integer' && /^-?\d+$/.test(value)) return Number(value);
  if (schema.type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  if (schema.type === 'array') return value.split(',').map((item) => typed(item, schema.items ?? {}));
  return value;
}

/** Why the document refuses the request, as a validating proxy would say it; empty when it accepts it. */
function documentRefusals(request: Refused): string[] {
  const template = Object.keys(doc.paths).find((path) => new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`).test(request.path));
  if (!template) return ['no such path'];
  const operation = doc.paths[template]![request.method.toLowerCase() as 'get'] as OperationObject | undefined;
  if (!operation) return ['no such method'];
  const parameters = (operation.parameters ?? []).filter((parameter): parameter is ParameterObject => !('$ref' in parameter));
  const refusals: string[] = [];
  const check = (schema: JsonSchema, value: unknown, what: string) => {
    const validate = ajv.compile(schema);
    if (!validate(value)) refusals.push(`${what}: ${ajv.errorsText(validate.errors)}`);
  };
  const segments = request.path.split('/');
  template.split('/').forEach((segment, index) => {
    const name = /^\{(\w+)\}$/.exec(segment)?.[1];
    const parameter = name && parameters.find((candidate) => candidate.in === 'path' && candidate.name === name);
    if (parameter) check(parameter.schema, typed(decodeURIComponent(segments[index]!), parameter.schema), `path.${name}`);
  });
  const query = new URLSearchParams(request.query ?? '');
  for (const name of new Set(query.keys())) {
    const parameter = parameters.find((candidate) => candidate.in === 'query' && candidate.name === name);
    const values = query.getAll(name);
    if (!parameter) refusals.push(`query.${name}: not a parameter`);
    else if (parameter.schema.type === 'array') check(parameter.schema, values.flatMap((value) => typed(value, parameter.schema) as unknown[]), `query.${name}`);
    else if (values.length > 1) refusals.push(`query.${name}: given ${values.length} times`);
    else check(parameter.schema, typed(values[0]!, parameter.schema), `query.${name}`);
  }
  for (const parameter of parameters) {
    if (parameter.in === 'query' && parameter.required && !query.has(parameter.name)) refusals.push(`query.${parameter.name}: required`);
  }
  if (request.body !== undefined) {
    const body = typeof request.body === 'string' ? JSON.parse(request.body) : request.body;
    if (!operation.requestBody) refusals.push('body: none is taken');
    else check({ $ref: `openapi#/${pointer('paths', template, request.method.toLowerCase(), 'requestBody', 'content', 'application/json', 'schema')}` }, body, 'body');
  }
  return refusals;
}

describe.each([
  ['bodies', BODIES],
  ['parameters', PARAMETERS],
])('refused %s', (_kind, cases) => {
  it.each(cases)('%s: the server answers 400 and the document refuses it', async (_name, request) => {
    expect(await send(request)).toBe(400);
    expect(documentRefusals(request)).not.toEqual([]);
  });
});

it.each(PROSE_ONLY)('%s: the server answers 400; only the text of the document says so', async (_name, request) => {
  expect(await send(request)).toBe(400);
});

it('accepts, as the server does, the requests these are variations of', async () => {
  const accepted: Refused[] = [
    { method: 'POST', path: '/api/ecosystems', body: { ...ECOSYSTEM, image_url: 'https://acme.example/logo.png', partner_logos: [LOGO], tabs_config: { a: [1, 'b'] }, sort_order: -3 } },
    { method: 'POST', path: '/api/api-keys', body: { name: 'k', permissions: ['read:entities'] } },
    { method: 'POST', path: '/api/teams/1/invitations', body: { invited_email: 'a@example.com', invited_user_id: 'user-1' } },
    { method: 'PUT', path: '/api/landscapes/1/entities', body: { entity_ids: [1, 2, 2] } },
    { method: 'GET', path: '/api/entities', query: 'limit=500&offset=0&include_total=true&sort=-launch_year,name&fields=name&fields=launch_year,hq_country&format=csv' },
    { method: 'GET', path: '/api/usage/timeseries', query: `${RANGE}&granularity=hourly&client_id=abc` },
  ];
  for (const request of accepted) expect(documentRefusals(request), `${request.method} ${request.path}`).toEqual([]);
});

it('lists 405 where it happens: another method on a documented path is 405 METHOD_NOT_ALLOWED with Allow', async () => {
  for (const [path, item] of Object.entries(doc.paths)) {
    const methods = Object.keys(item).filter((key) => key !== 'description');
    for (const method of methods) expect(item[method as 'get']!.responses['405'], `${method} ${path}`).toEqual({ $ref: '#/components/responses/Error405' });
    const other = methods.includes('put') ? 'POST' : 'PUT';
    const response = await auth.fetch(path.replace(/\{\w+\}/g, '1'), { method: other });
    expect(response.status, `${other} ${path}`).toBe(405);
    expect(response.headers.get('allow'), path).toBeTruthy();
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('METHOD_NOT_ALLOWED');
  }
});
