// The requests a client builds from /openapi.json alone (Postman, Portman, Swagger UI's "Try it out"):
// each required parameter set to its `example`, optional ones left out. On the demo data, every read
// of the data answers 2xx and fits the document; the management routes' ids name records a fresh
// instance does not hold, so they are left to a run that creates them first.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../src/openapi/index.ts';
import type { ParameterObject } from '../../src/openapi/types.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import { checkAnswer, documentValidator } from './openapi-answers.ts';

let app: TestApp;
let auth: TestCredentials;
let doc: OpenApiDocument;

beforeAll(async () => {
  app = await startTestApp({ demo: true });
  auth = await createApiKeyAndToken(app);
  doc = (await (await app.fetch('/openapi.json')).json()) as OpenApiDocument;
}, 600_000);

afterAll(async () => {
  await app.close();
});

const DATA_READ = /^\/api\/(entities|investors|founders|transactions|valuations|news|aggregate|filters|search|changes)\b/;

function requestFromExamples(template: string, parameters: ParameterObject[]): string {
  const query = new URLSearchParams();
  let path = template;
  for (const parameter of parameters.filter((candidate) => candidate.required)) {
    expect(parameter.example, `${template} ${parameter.name}`).toBeDefined();
    const values = Array.isArray(parameter.example) ? parameter.example : [parameter.example];
    if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(String(parameter.example)));
    else for (const value of values) query.append(parameter.name, String(value));
  }
  return query.size ? `${path}?${query}` : path;
}

it('answers every GET of the data built from the examples alone, with an answer that fits the document', async () => {
  const reads = Object.entries(doc.paths).filter(([path, item]) => DATA_READ.test(path) && item.get && !path.includes('{resource}'));
  expect(reads.length).toBeGreaterThan(15);
  for (const [template, item] of reads) {
    const url = requestFromExamples(template, (item.get!.parameters ?? []) as ParameterObject[]);
    const response = await auth.fetch(url);
    const text = await response.text();
    expect(response.status, `${url}: ${text.slice(0, 300)}`).toBe(200);
    checkAnswer(documentValidator(doc), template, 'get', response, JSON.parse(text));
  }
});

it('gives each record path the id of its example record, one the demo data holds', () => {
  const entity = doc.paths['/api/entities/{id}']!.get!.parameters!.find((parameter) => 'name' in parameter && parameter.name === 'id') as ParameterObject;
  expect(entity.example).toBe((doc.components.schemas.EntityRecord!.examples![0] as { id: number }).id);
  const nested = doc.paths['/api/ecosystems/{ecosystem}/entities']!.get!.parameters!.find((parameter) => 'name' in parameter && parameter.name === 'ecosystem') as ParameterObject;
  // An ecosystem's path segment is its id or its slug: a string.
  expect(nested.example).toBe(String((doc.components.schemas.EcosystemRecord!.examples![0] as { id: number }).id));
});
