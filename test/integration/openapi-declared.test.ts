// What /openapi.json declares beyond parameters: each answer below is checked against the document as
// a validating proxy would check it (status listed, headers declared, body fitting its schema), and the
// vocabulary patterns are checked against the vocabulary they are built from.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { dimensionKey } from '../../src/aggregate/dimensions.ts';
import { dimensionNames, metricNames } from '../../src/filter/aggregate-vocabulary.ts';
import { CHANGE_RESOURCE_NAMES } from '../../src/changes/resources.ts';
import type { OpenApiDocument } from '../../src/openapi/index.ts';
import type { JsonSchema, OperationObject, ParameterObject } from '../../src/openapi/types.ts';
import { routes } from '../../src/rest/routes.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import { checkAnswer, documentValidator } from './openapi-answers.ts';

let app: TestApp;
let auth: TestCredentials;
let doc: OpenApiDocument;

beforeAll(async () => {
  app = await startTestApp();
  auth = await createApiKeyAndToken(app);
  doc = (await (await app.fetch('/openapi.json')).json()) as OpenApiDocument;
});

afterAll(async () => {
  await app.close();
});

async function checked(template: string, method: string, response: Response): Promise<Response> {
  const text = await response.text();
  const body = response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
  checkAnswer(documentValidator(doc), template, method, response, body);
  return response;
}

it('declares the RateLimit-* a conflict, a refused body and a missing record carry', async () => {
  const post = (body: unknown) => auth.fetch('/api/ecosystems', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const ecosystem = { slug: 'twice', name: 'Twice', filter: 'hq_country:Germany' };
  expect((await checked('/api/ecosystems', 'post', await post(ecosystem))).status).toBe(201);
  const conflict = await checked('/api/ecosystems', 'post', await post(ecosystem));
  expect(conflict.status).toBe(409);
  expect(conflict.headers.get('ratelimit-limit')).toBeTruthy();
  expect((await checked('/api/ecosystems', 'post', await post({ ...ecosystem, slug: 'Bad' }))).status).toBe(400);
  expect((await checked('/api/ecosystems/{id}', 'patch', await auth.fetch('/api/ecosystems/999999', { method: 'PATCH', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' }))).status).toBe(404);
  // Before the token is read: no RateLimit-*, and none declared.
  const other = await auth.fetch('/api/ecosystems', { method: 'PUT' });
  expect(other.status).toBe(405);
  expect(other.headers.get('ratelimit-limit')).toBeNull();
  expect(JSON.stringify(doc.components.responses.Error405!.headers)).not.toContain('RateLimit');
});

it('lists what the token endpoint answers in the API envelope: a body over the limit (413), 500 and 503', async () => {
  const responses = (doc.paths['/oauth/token']!.post as OperationObject).responses;
  expect(Object.keys(responses)).toEqual(expect.arrayContaining(['413', '500', '503']));
  const large = await app.fetch('/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    // Over the 1 MB every body is limited to (src/http/json-body.ts).
    body: `grant_type=client_credentials&pad=${'a'.repeat(2 ** 21)}`,
  });
  expect((await checked('/oauth/token', 'post', large)).status).toBe(413);
});

it('serves discovery documents that fit their schemas, every array of which says what its items are', async () => {
  for (const path of ['/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/.well-known/jwks.json']) {
    expect((await checked(path, 'get', await app.fetch(path))).status).toBe(200);
  }
  const itemless: string[] = [];
  const walk = (value: unknown, at: string): void => {
    if (Array.isArray(value)) value.forEach((item, index) => walk(item, `${at}/${index}`));
    else if (value && typeof value === 'object') {
      const schema = value as JsonSchema;
      if (schema.type === 'array' && schema.items === undefined) itemless.push(at);
      for (const [key, item] of Object.entries(value)) if (key !== 'example' && key !== 'examples') walk(item, `${at}/${key}`);
    }
  };
  walk(doc, '#');
  expect(itemless).toEqual([]);
});

it('states the range an offset above GraphQL Int is refused with, as the server says it', async () => {
  for (const route of routes.filter((candidate) => candidate.method === 'GET' && !candidate.path.includes('{'))) {
    const offset = (doc.paths[route.path]!.get!.parameters as ParameterObject[]).find((parameter) => parameter.name === 'offset');
    if (!offset) continue;
    expect(offset.schema, route.path).toMatchObject({ minimum: 0, maximum: 2 ** 31 - 1 });
    const response = await auth.fetch(`${route.path}?offset=${2 ** 31}${route.aggregates ? '&metric=count' : ''}`);
    const body = (await response.json()) as { error: { details: { path: string; message: string }[] } };
    expect(response.status, route.path).toBe(400);
    expect(body.error.details, route.path).toContainEqual({ path: 'query.offset', message: `must be an integer from ${offset.schema.minimum} to ${offset.schema.maximum}` });
  }
});

/** The names the server takes, written as a request writes them (`pNN` as p90, a bucket's width as 1000). */
const written = (name: string): string => name.replace('pNN', 'p90').replace('<width>', '1000');

it("states each aggregate's metrics, dimensions and order keys, and the feed's types, as the vocabulary has them", () => {
  const wrong = ['Count', 'a b', '1abc', 'nosuch:thing', 'count:', ':'];
  for (const route of routes.filter((candidate) => candidate.aggregates)) {
    const source = route.aggregates!;
    const parameters = (doc.paths[route.path]!.get!.parameters as ParameterObject[]);
    const pattern = (name: string) => {
      const schema = parameters.find((parameter) => parameter.name === name)!.schema;
      return new RegExp((schema.items ?? schema).pattern ?? '', 'u');
    };
    const metrics = metricNames(source).map(written);
    const dimensions = dimensionNames(source).map(written);
    for (const metric of metrics) expect(pattern('metric').test(metric), `${route.path} metric ${metric}`).toBe(true);
    for (const dimension of dimensions) expect(pattern('group_by').test(dimension), `${route.path} group_by ${dimension}`).toBe(true);
    for (const key of [...metrics, ...dimensions].map(dimensionKey)) expect(pattern('sort').test(`-${key}`), `${route.path} sort ${key}`).toBe(true);
    for (const name of wrong) {
      for (const parameter of ['metric', 'group_by', 'sort']) expect(pattern(parameter).test(name), `${route.path} ${parameter} ${name}`).toBe(false);
    }
  }
  const types = new RegExp((doc.paths['/api/changes']!.get!.parameters as ParameterObject[]).find((parameter) => parameter.name === 'types')!.schema.pattern ?? '', 'u');
  expect(types.test(CHANGE_RESOURCE_NAMES.join(','))).toBe(true);
  for (const name of [...wrong, 'entities', `${CHANGE_RESOURCE_NAMES[0]},`]) expect(types.test(name), name).toBe(false);
});
