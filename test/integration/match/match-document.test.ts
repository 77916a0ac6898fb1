/**
 * POST /api/match as /openapi.json states it, checked against the running server as a validating proxy
 * and a contract-test generator would: the body's records have their schema (the fields, no other key,
 * 1 to 1000 of them), min_confidence its range; every body the server refuses the document refuses
 * too, the document's own example is answered, and the answer fits the response schema. The README's
 * row names the fields the schema has.
 */
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../../src/openapi/index.ts';
import type { JsonSchema } from '../../../src/openapi/types.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { checkAnswer, documentValidator } from '../openapi-answers.ts';

let app: TestApp;
let auth: TestCredentials;
let body: JsonSchema;
let accepts: (value: unknown) => boolean;

const FIELDS = ['external_id', 'hq_city', 'hq_country', 'launch_year', 'metadata', 'name', 'website'];

beforeAll(async () => {
  app = await startTestApp();
  auth = await createApiKeyAndToken(app);
  const doc = (await (await app.fetch('/openapi.json')).json()) as OpenApiDocument;
  body = doc.paths['/api/match']!.post!.requestBody!.content['application/json']!.schema;
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
  addFormats(ajv);
  const validate = ajv.compile(body);
  accepts = (value) => validate(value) as boolean;
});

afterAll(async () => {
  await app?.close();
});

async function post(value: unknown): Promise<Response> {
  return auth.fetch('/api/match', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(value) });
}

describe('POST /api/match in /openapi.json', () => {
  it('states the records: their fields, no other key, 1 to 1000 of them; and min_confidence in [0, 1]', () => {
    const records = body.properties!.records!;
    expect(records).toMatchObject({ type: 'array', minItems: 1, maxItems: 1000 });
    expect(Object.keys(records.items!.properties!).sort()).toEqual(FIELDS);
    expect(records.items!.additionalProperties).toBe(false);
    expect(body.additionalProperties).toBe(false);
    expect(body.properties!.min_confidence!.anyOf).toContainEqual({ type: 'number', minimum: 0, maximum: 1 });
  });

  const REFUSED: [string, unknown][] = [
    ['no records', { records: [] }],
    ['1,001 records', { records: Array.from({ length: 1001 }, () => ({ name: 'Acme' })) }],
    ['records as an object', { records: { name: 'Acme' } }],
    ['no records field', { min_confidence: 0.5 }],
    ['an unknown key in a record', { records: [{ name: 'Acme', country: 'Germany' }] }],
    ['an unknown key in the body', { records: [{ name: 'Acme' }], limit: 5 }],
    ['a record with nothing to match by', { records: [{ hq_country: 'Germany', hq_city: 'Berlin' }] }],
    ['min_confidence 2', { records: [{ name: 'Acme' }], min_confidence: 2 }],
    ['min_confidence below 0', { records: [{ name: 'Acme' }], min_confidence: -0.1 }],
    ['min_confidence as text', { records: [{ name: 'Acme' }], min_confidence: '0.5' }],
    ['a launch year of 999', { records: [{ name: 'Acme', launch_year: 999 }] }],
    ['a launch year of 2000.5', { records: [{ name: 'Acme', launch_year: 2000.5 }] }],
    ['a 301-character name', { records: [{ name: 'a'.repeat(301) }] }],
    ['a name as a number', { records: [{ name: 7 }] }],
    ['an external id without a source', { records: [{ external_id: 'airbnb' }] }],
    ['an external id of 201 characters', { records: [{ external_id: `crunchbase:${'a'.repeat(201)}` }] }],
    ['an external id object with another key', { records: [{ external_id: { source: 'crunchbase', id: 'airbnb', url: 'x' } }] }],
  ];

  it.each(REFUSED)('%s: the server answers 400 and the document refuses it', async (_name, value) => {
    const response = await post(value);
    expect(response.status).toBe(400);
    expect(accepts(value)).toBe(false);
  });

  it('says the range of min_confidence when it is past it', async () => {
    const answer = (await (await post({ records: [{ name: 'Acme' }], min_confidence: 2 })).json()) as { error: { details: unknown[] } };
    expect(answer.error.details).toEqual([{ path: 'body.min_confidence', message: 'must be a number from 0 to 1' }]);
  });

  it('answers its own example, and bodies at the bounds, with answers that fit the response schema', async () => {
    const doc = (await (await app.fetch('/openapi.json')).json()) as OpenApiDocument;
    const bodies = [
      ...(body.examples as unknown[]),
      { records: Array.from({ length: 1000 }, (_, n) => ({ name: `Acme ${n}`, launch_year: 2200, external_id: { source: 'CB', id: ` a${n} ` } })), min_confidence: 1 },
      { records: [{ website: 'acme.example', name: null, hq_country: null, launch_year: null, external_id: null }], min_confidence: null },
    ];
    for (const value of bodies) {
      expect(accepts(value), JSON.stringify(value).slice(0, 100)).toBe(true);
      const response = await post(value);
      expect(response.status, JSON.stringify(value).slice(0, 100)).toBe(200);
      checkAnswer(documentValidator(doc), '/api/match', 'post', response, await response.json());
    }
  });

  it('is described in the README by the fields the schema has', () => {
    const row = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8').split('\n').find((line) => line.startsWith('| `POST /api/match`'))!;
    const named = [...row.matchAll(/`([a-z_]+)`/g)].map((match) => match[1]!).filter((name) => !['records', 'min_confidence', 'matched', 'ambiguous', 'not_found'].includes(name));
    expect([...new Set(named)].sort()).toEqual(FIELDS);
  });
});
