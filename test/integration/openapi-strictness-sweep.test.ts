// /openapi.json refuses exactly what the server refuses, parameter by parameter, for every operation
// the document lists (read from the document, no hand list): each parameter with a schema gets values
// just outside each bound the schema states (maximum + 1, minimum - 1, maxLength + 1, maxItems + 1,
// wrong type, not in the enum, not matching the pattern), the bounds themselves and a few common
// strings, each sent with every required parameter at a value the document accepts. The document
// refuses a value (Ajv, as a validating proxy would: bounds as `minimum`/`maximum`, since `format`
// only annotates in JSON Schema 2020-12) exactly when the server answers 400 naming that parameter.
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildOpenApiDocument, type OpenApiDocument } from '../../src/openapi/index.ts';
import type { JsonSchema, OperationObject, ParameterObject } from '../../src/openapi/types.ts';
import { loadOperations } from '../../src/rest/operations.ts';
import { routes } from '../../src/rest/routes.ts';
import { getSchema } from '../../src/api-schema.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import { checkAnswer, documentValidator, type DocumentValidator } from './openapi-answers.ts';

let app: TestApp;
let auth: TestCredentials;
let doc: OpenApiDocument;
let ajv: Ajv2020;
/** A record each kind of path parameter names, so a route reaches its query parameters. */
const existing: Record<string, string> = {};

beforeAll(async () => {
  app = await startTestApp();
  auth = await createApiKeyAndToken(app);
  doc = (await (await app.fetch('/openapi.json')).json()) as OpenApiDocument;
  ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
  // Every format but the numeric ones (int32 ...): a bound is stated as minimum/maximum or not at all.
  addFormats(ajv, { formats: ['date', 'date-time', 'email', 'uri', 'uuid'] });
  for (const name of ['int32', 'int64']) ajv.addFormat(name, true);
  const created = await auth.fetch('/api/ecosystems', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ slug: 'sweep', name: 'Sweep', filter: 'hq_country:Germany' }),
  });
  expect(created.status).toBe(201);
  existing.ecosystem = 'sweep';
});

afterAll(async () => {
  await app.close();
});

/** The operations as the server builds its document (the same generator, the same route table). */
const schema = getSchema();
const built = buildOpenApiDocument({ schema, operations: loadOperations(schema), routes, config: loadConfig({ LOAD_DEMO_DATA: 'false' }) });
const OPERATIONS = Object.entries(built.paths).flatMap(([path, item]) =>
  (['get', 'post', 'put', 'patch', 'delete'] as const).filter((method) => item[method]?.parameters?.length).map((method): [string, string, string] => [`${method.toUpperCase()} ${path}`, method, path]),
);

/** Common strings a client may send, whatever the parameter. */
const COMMON = ['', ' ', 'Z', '-', ',', 'a b', '1', 'abc', 'name', 'name,count', '-count', ' '.repeat(10_000)];

const LARGE = 2 ** 31;

/** The raw values to try for a parameter: bounds, next to them, the listed values, common strings. */
function candidates(parameter: ParameterObject): string[][] {
  const { schema } = parameter;
  if (schema.type === 'array') {
    const items = scalarCandidates(schema.items ?? {});
    const valid = items.find((value) => accepts(schema.items ?? {}, typed(value, schema.items ?? {}))) ?? 'a';
    const many = (count: number) => Array.from({ length: count }, () => valid);
    const lists = [...items.map((value) => [value]), ...(schema.maxItems ? [many(schema.maxItems), many(schema.maxItems + 1)] : [])];
    return parameter.explode === false ? lists.map((list) => [list.join(',')]) : lists;
  }
  return scalarCandidates(schema).map((value) => [value]);
}

function scalarCandidates(schema: JsonSchema): string[] {
  const listed = [...(schema.enum ?? []), ...(schema.examples ?? []), ...(schema.default === undefined ? [] : [schema.default])].map(String);
  if (schema.type === 'integer' || schema.type === 'number') {
    const bounds = [schema.minimum, schema.maximum].filter((bound): bound is number => bound !== undefined);
    const near = bounds.flatMap((bound) => [bound - 1, bound, bound + 1]);
    return [...new Set([...listed, ...near, LARGE, '1.5', 'x', ''].map(String))];
  }
  if (schema.type === 'boolean') return ['true', 'false', 'yes', ''];
  const padded = schema.maxLength === undefined ? [] : padTo(schema, listed, schema.maxLength);
  const formatted = schema.format === 'date' ? ['2026-03-01', '2026-02-29', '2026-3-1'] : [];
  return [...new Set([...listed, ...formatted, ...(schema.enum ? ['not-listed'] : []), ...COMMON, ...padded])];
}

/** A value the schema accepts, padded to `length` and `length + 1` characters. */
function padTo(schema: JsonSchema, listed: string[], length: number): string[] {
  for (const sample of [...listed, '', 'a']) {
    for (const pad of [' ', 'a', '0']) {
      const value = sample.padEnd(length, pad);
      if (accepts(schema, value)) return [value, value + pad];
    }
  }
  return ['a'.repeat(length + 1)];
}

/** A query or path value as its schema reads it (OpenAPI's `form` and `simple` styles). */
function typed(value: string, schema: JsonSchema): unknown {
  if ((schema.type === 'integer' || schema.type === 'number') && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (schema.type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

function accepts(schema: JsonSchema, value: unknown): boolean {
  return ajv.validate(schema, value) as boolean;
}

function documentAccepts(parameter: ParameterObject, raw: string[]): boolean {
  const { schema } = parameter;
  if (schema.type !== 'array') return accepts(schema, typed(raw[0]!, schema));
  // form style, explode false: `fields=` is the empty list, `fields=a,b` two items.
  const items = parameter.explode === false ? raw.flatMap((value) => (value === '' ? [] : value.split(','))) : raw;
  return accepts(schema, items.map((item) => typed(item, schema.items ?? {})));
}

/** A value the document accepts for a parameter: the record made for it, else its first accepted candidate. */
function sample(parameter: ParameterObject): string[] {
  const made = existing[parameter.name];
  if (made !== undefined && documentAccepts(parameter, [made])) return [made];
  const found = candidates(parameter).find((raw) => raw.every((value) => value !== '') && documentAccepts(parameter, raw));
  if (!found) throw new Error(`no value the document accepts for ${parameter.name}`);
  return found;
}

interface Verdict {
  parameter: ParameterObject;
  raw: string[];
  value: string;
  document: 'accepts' | 'refuses';
  server: 'accepts' | 'refuses';
  answer: string;
}

async function sweep(method: string, template: string): Promise<Verdict[]> {
  const operation = doc.paths[template]![method as 'get'] as OperationObject;
  const parameters = (operation.parameters ?? []) as ParameterObject[];
  const validate = documentValidator(doc);
  const verdicts: Verdict[] = [];
  for (const parameter of parameters) {
    // A path segment is never empty (an empty one is another path) nor long (that is HTTP's 431, not the
    // parameter's); a write is sent only with values to be refused, and no body: parameters come first.
    const inPath = (raw: string[]) => parameter.in === 'path' && (raw[0] === '' || raw[0]!.length > 1000);
    const tried = candidates(parameter).filter((raw) => !inPath(raw) && (method === 'get' || !documentAccepts(parameter, raw)));
    const baseline = new Map(parameters.filter((other) => other.required && other !== parameter).map((other) => [other, sample(other)]));
    verdicts.push(...(await Promise.all(tried.map((raw) => verdict(validate, method, template, parameter, new Map([...baseline, [parameter, raw]]))))));
  }
  return verdicts;
}

async function verdict(validate: DocumentValidator, method: string, template: string, parameter: ParameterObject, values: Map<ParameterObject, string[]>): Promise<Verdict> {
  const raw = values.get(parameter)!;
  // A write carries its body's first example, so that what is refused is the parameter.
  const example = (doc.paths[template]![method as 'post']!.requestBody?.content['application/json']?.schema.examples ?? [])[0];
  const sent = example === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(example) };
  const response = await auth.fetch(requestPath(template, values), { method: method.toUpperCase(), ...sent });
  const body = response.headers.get('content-type')?.includes('json') ? ((await response.json()) as { error?: { details?: { path: string }[] } }) : await response.text();
  checkAnswer(validate, template, method, response, body);
  const named = typeof body === 'object' && body.error?.details?.some((detail) => new RegExp(`^(query|path)\\.${parameter.name}\\b`).test(detail.path));
  const document = documentAccepts(parameter, raw) ? 'accepts' : 'refuses';
  // A path the document has no value for is no path of its: 404 agrees (so does a record that is not there).
  const notFound = parameter.in === 'path' && response.status === 404;
  return {
    parameter,
    raw,
    value: `${parameter.name}=${JSON.stringify(raw)}`.slice(0, 120),
    document,
    server: notFound ? document : response.status === 400 && named ? 'refuses' : 'accepts',
    answer: `${response.status} ${JSON.stringify(body).slice(0, 200)}`,
  };
}

function requestPath(template: string, values: Map<ParameterObject, string[]>): string {
  let path = template;
  const query = new URLSearchParams();
  for (const [parameter, raw] of values) {
    if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(raw[0]!));
    else for (const value of raw) query.append(parameter.name, value);
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/**
 * What the server refuses that no JSON Schema states, described in the parameter's text instead, by
 * the values it concerns: a filter's grammar (a blank filter is no filter: its length still counts),
 * a cursor's being one the server issued, an aggregate's order naming this request's dimensions and
 * labels. For those values the server may refuse more than the schema; never less.
 */
const nonBlank = (raw: string[]): boolean => raw.some((value) => value.trim() !== '');
const PROSE: Readonly<Record<string, (raw: string[], template: string) => boolean>> = {
  filter: nonBlank,
  having: nonBlank,
  cursor: () => true,
  since: () => true,
  sort: (_raw, template) => template.includes('aggregate'),
};
const proseOnly = ({ parameter, raw }: Verdict, template: string): boolean => PROSE[parameter.name]?.(raw, template) ?? false;

/**
 * Taken by the server though the schema lists only the names, as the parameter's text says: in
 * `fields`, blank names and spaces around a name are ignored (`fields=name, launch_year`).
 */
function lenient({ parameter, raw }: Verdict): boolean {
  const names = parameter.schema.items?.enum;
  return parameter.name === 'fields' && names !== undefined && raw.flatMap((value) => value.split(',')).every((item) => item.trim() === '' || names.includes(item.trim()));
}

it.each(OPERATIONS)('%s: the document refuses a parameter value exactly when the server does', async (_name, method, path) => {
  const verdicts = (await sweep(method, path)).filter(
    (verdict) => !(verdict.document === 'accepts' && proseOnly(verdict, path)) && !(verdict.server === 'accepts' && lenient(verdict)),
  );
  expect(verdicts.filter((verdict) => verdict.document === 'refuses').length).toBeGreaterThan(0);
  expect(verdicts.filter((verdict) => verdict.document !== verdict.server).map(({ value, document, server, answer }) => ({ value, document, server, answer }))).toEqual([]);
}, 120_000);
