// A REST integer query parameter that is not an integer, or past its range, is refused with the range
// the route really takes, as /openapi.json states it (`limit=abc` on a list of at most 50 is `must be
// an integer from 1 to 50`, where it named the GraphQL Int's range), in the envelope, and nothing is read.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../src/openapi/index.ts';
import type { ParameterObject } from '../../src/openapi/types.ts';
import { routes } from '../../src/rest/routes.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';

let app: TestApp;
let auth: TestCredentials;
let doc: OpenApiDocument;

beforeAll(async () => {
  app = await startTestApp();
  auth = await createApiKeyAndToken(app);
  doc = (await (await app.fetch('/openapi.json')).json()) as OpenApiDocument;
});

afterAll(async () => app?.close());

interface Refusal { status: number; body: { error: { code: string; details: { path: string; message: string }[] } } }

async function refusal(path: string): Promise<Refusal> {
  const response = await auth.fetch(path);
  return { status: response.status, body: (await response.json()) as Refusal['body'] };
}

/** What a GET route needs besides the parameter under test (an aggregate needs a metric, a search a q). */
const needed = (path: string): string => (path === '/api/search' ? '&q=air' : routes.find((route) => route.path === path)?.aggregates ? '&metric=count' : '');

describe('integer query parameters', () => {
  it('limit=abc on /api/search names 1 to 50', async () => {
    const { status, body } = await refusal('/api/search?q=air&limit=abc');
    expect(status).toBe(400);
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.details).toEqual([{ path: 'query.limit', message: 'must be an integer from 1 to 50' }]);
  });

  it('limit=51 and limit=0 on /api/search name 1 to 50 too', async () => {
    for (const value of ['51', '0']) {
      const { status, body } = await refusal(`/api/search?q=air&limit=${value}`);
      expect(status, value).toBe(400);
      expect(body.error.details, value).toEqual([{ path: 'query.limit', message: 'must be an integer from 1 to 50' }]);
    }
  });

  it('limit=abc and limit=501 on /api/entities name 1 to 500', async () => {
    for (const value of ['abc', '501', '0', '2.5', '99999999999']) {
      const { status, body } = await refusal(`/api/entities?limit=${value}`);
      expect(status, value).toBe(400);
      expect(body.error.details, value).toEqual([{ path: 'query.limit', message: 'must be an integer from 1 to 500' }]);
    }
  });

  it('on every GET route, each integer query parameter refuses text with the range the document states', async () => {
    let checked = 0;
    for (const route of routes.filter((candidate) => candidate.method === 'GET' && !candidate.path.includes('{'))) {
      const parameters = ((doc.paths[route.path]?.get?.parameters ?? []) as ParameterObject[]).filter(
        (parameter) => parameter.in === 'query' && parameter.schema.type === 'integer',
      );
      for (const parameter of parameters) {
        const { minimum, maximum } = parameter.schema;
        expect(minimum, `${route.path} ${parameter.name}`).toBeTypeOf('number');
        expect(maximum, `${route.path} ${parameter.name}`).toBeTypeOf('number');
        const { status, body } = await refusal(`${route.path}?${parameter.name}=abc${needed(route.path)}`);
        expect(status, `${route.path} ${parameter.name}`).toBe(400);
        expect(body.error.details, `${route.path} ${parameter.name}`).toContainEqual({
          path: `query.${parameter.name}`,
          message: `must be an integer from ${minimum} to ${maximum}`,
        });
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it('the GraphQL search names the same range', async () => {
    const { body } = await auth.graphql('{ search(q: "air", limit: 51) { page { limit } } }');
    expect(JSON.stringify(body.errors)).toContain('must be an integer from 1 to 50');
  });
});
