// Grammar-aware fuzzing of every public endpoint over real HTTP: whatever a client sends, the answer is
// never a 5xx and the server stays ready. FUZZ_RUNS=5000 npx vitest run test/integration/fuzz.test.ts
// runs it longer; the suite runs a size CI can afford.
import fc from 'fast-check';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import '../helpers/built-schema.ts';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { describeFilterFields, RESOURCES, sortableFields, type Resource } from '../../src/filter/index.ts';
import { loadOperations } from '../../src/rest/operations.ts';
import { routes, type Route } from '../../src/rest/routes.ts';
import { getSchema } from '../../src/api-schema.ts';
import { declaredResources } from '../../src/schema/resource.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import { managementState } from '../helpers/management-state.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);

let app: TestApp;
let auth: TestCredentials;
const failures: string[] = [];

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 30 });
});

afterAll(async () => {
  await app.close();
});

// Each test reports its own findings, under a key of its own: a generated DELETE /api/api-keys/{id}
// (or RevokeApiKey) may well name the key the previous test was using, which is the API working, and
// left every later request a 401 that proves nothing.
beforeEach(async () => {
  failures.length = 0;
  auth = await createApiKeyAndToken(app);
});

// ───── pieces a client might type ─────

const nasty = fc.constantFrom(
  '', ' ', '0', '-1', '2147483648', '999999999999999', '1e9', '0x10', 'NaN', 'null', 'true', '%', '%ZZ', '%00', '\u0000',
  '"', '\\', "'", '(', ')', ',', '|', ':', '[', ']', '{}', '[]', 'é', '😀', '\ud800', 'a'.repeat(300),
  '0001-01-01T00:00+23:59', '9999-12-31T23:59-23:59', '2026-02-30', '-launch_year', 'id,-id',
);
const text = fc.oneof(nasty, fc.string({ maxLength: 20 }), fc.string({ unit: 'binary', maxLength: 12 }));
const integerText = fc.oneof(fc.integer().map(String), fc.bigInt({ min: -(10n ** 16n), max: 10n ** 16n }).map(String), nasty);

function filterFor(resource: Resource): fc.Arbitrary<string> {
  const fields = describeFilterFields(resource);
  const condition = fc
    .tuple(fc.constantFrom(...fields), fc.oneof(fc.constantFrom(''), fc.constantFrom(...fields.flatMap((field) => field.operators))), fc.array(text, { minLength: 1, maxLength: 3 }))
    .map(([field, op, values]) => `${field.name}${op ? `[${op}]` : ''}:${values.join('|')}`);
  const { expr } = fc.letrec<{ expr: string }>((tie) => ({
    expr: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      condition,
      fc.tuple(fc.constantFrom('and', 'or', 'not', ''), fc.array(tie('expr'), { minLength: 1, maxLength: 3 })).map(([kind, parts]) => `${kind}(${parts.join(',')})`),
    ),
  }));
  return fc.oneof(expr, text);
}

function sortFor(resource: Resource): fc.Arbitrary<string> {
  const names = [...sortableFields(resource).keys()];
  return fc.oneof(
    fc.array(fc.tuple(fc.boolean(), fc.constantFrom(...names)), { minLength: 1, maxLength: 3 }).map((keys) => keys.map(([desc, name]) => `${desc ? '-' : ''}${name}`).join(',')),
    text,
  );
}

const cursor = fc.oneof(
  text,
  fc.jsonValue().map((value) => Buffer.from(JSON.stringify(value)).toString('base64url')),
  fc.record({ s: fc.constantFrom('id', '-launch_year,id', 'name,id'), f: text, v: fc.array(fc.jsonValue(), { maxLength: 3 }) })
    .map((payload) => Buffer.from(JSON.stringify(payload)).toString('base64url')),
);

const resourceOf = (route: Route): Resource | undefined => {
  const name = route.path.split('/')[2] as Resource;
  return (RESOURCES as readonly string[]).includes(name) ? name : route.path.includes('/entities') ? 'entities' : undefined;
};

function queryFor(route: Route): fc.Arbitrary<Record<string, string>> {
  const resource = resourceOf(route) ?? 'entities';
  const known: Record<string, fc.Arbitrary<string>> = {
    filter: filterFor(resource),
    sort: sortFor(resource),
    cursor,
    limit: integerText,
    offset: integerText,
    include_total: fc.oneof(fc.constantFrom('true', 'false'), text),
    fields: fc.oneof(fc.constantFrom('id', 'id,name', 'nope'), text),
    q: text,
    start_date: fc.oneof(fc.constantFrom('2026-11-01', '2026-02-30'), text),
    end_date: fc.oneof(fc.constantFrom('2026-11-30'), text),
    granularity: fc.oneof(fc.constantFrom('hourly', 'daily'), text),
    client_id: text,
  };
  const names = Object.keys(known);
  return fc
    .uniqueArray(fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...names) }, { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 8 }) }), { maxLength: 5 })
    .chain((chosen) => fc.tuple(...chosen.map((name) => (Object.hasOwn(known, name) ? known[name]! : text).map((value): [string, string] => [name, value]))))
    .map((pairs) => Object.fromEntries(pairs));
}

const pathValue = fc.oneof(fc.integer({ min: 1, max: 40 }).map(String), integerText, text.filter((value) => !value.includes('/') && value !== '.' && value !== '..'));

const body = fc.oneof(
  fc.jsonValue(),
  fc.dictionary(
    fc.constantFrom('name', 'slug', 'filter', 'permissions', 'entity_ids', 'role', 'token', 'invited_email', 'invited_user_id', 'partner_logos', 'tabs_config', 'sort_order', 'description'),
    fc.oneof(fc.jsonValue(), text, fc.array(fc.oneof(fc.integer(), text), { maxLength: 4 })),
  ),
);

const restRequest = fc
  .constantFrom(...routes)
  .chain((route) =>
    fc.record({
      route: fc.constant(route),
      params: fc.array(pathValue, { minLength: 4, maxLength: 4 }),
      query: queryFor(route),
      body,
    }),
  );

/** A lone surrogate cannot be percent-encoded as UTF-8; send the bytes a raw client would (CESU-8). */
function encodeSegment(value: string): string {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

async function check(label: string, response: Response): Promise<void> {
  const text = await response.text();
  if (response.status >= 500) failures.push(`${label} → ${response.status} ${text.slice(0, 300)}`);
}

it(`answers ${RUNS} generated REST requests without a 5xx`, async () => {
  await fc.assert(
    fc.asyncProperty(restRequest, async ({ route, params, query, body: payload }) => {
      let index = 0;
      const path = route.path.replace(/\{\w+\}/g, () => encodeSegment(params[index++]!));
      const search = new URLSearchParams(query).toString();
      const url = `${path}${search ? `?${search}` : ''}`;
      const init: RequestInit = { method: route.method };
      if (['POST', 'PUT', 'PATCH'].includes(route.method)) {
        init.headers = { 'content-type': 'application/json' };
        init.body = JSON.stringify(payload);
      }
      await check(`${route.method} ${url} ${init.body ?? ''}`, await auth.fetch(url, init));
    }),
    { numRuns: RUNS },
  );
  expect(failures).toEqual([]);
}, 300_000);

it(`answers ${RUNS} prepared GraphQL operations with generated variables without a 5xx`, async () => {
  const operations = [...loadOperations(getSchema()).values()];
  const { print } = await import('graphql');
  const documents = operations.map((document) => print(document));
  const variables = fc.dictionary(
    fc.constantFrom('id', 'filter', 'sort', 'limit', 'offset', 'cursor', 'withTotal', 'resource', 'q', 'name', 'slug', 'permissions', 'entity_ids', 'ecosystem', 'team', 'user_id', 'role', 'token', 'start_date', 'end_date'),
    fc.oneof(fc.jsonValue(), text, fc.integer(), fc.double()),
  );
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...documents), variables, async (query, values) => {
      const response = await auth.fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables: values }),
      });
      await check(`graphql ${query.slice(0, 60)} ${JSON.stringify(values).slice(0, 200)}`, response);
    }),
    { numRuns: RUNS },
  );
  expect(failures).toEqual([]);
}, 300_000);

it(`answers ${RUNS} generated token requests without a 5xx`, async () => {
  const form = fc.dictionary(fc.constantFrom('grant_type', 'client_id', 'client_secret', 'audience', 'scope'), text);
  await fc.assert(
    fc.asyncProperty(form, fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain'), async (fields, type) => {
      const payload = type === 'application/json' ? JSON.stringify(fields) : new URLSearchParams(fields).toString();
      const response = await app.fetch('/oauth/token', { method: 'POST', headers: { 'content-type': type }, body: payload });
      await check(`token ${type} ${payload.slice(0, 200)}`, response);
    }),
    { numRuns: RUNS },
  );
  expect(failures).toEqual([]);
}, 300_000);

// ───── hostile bodies: deep, wide, prototype-keyed ─────

/** Keys a prototype-polluting or field-guessing client sends, and the fields the bodies do have. */
const hostileKey = fc.constantFrom(
  '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', '$type', '', 'a',
  'name', 'slug', 'filter', 'tabs_config', 'partner_logos', 'image_url', 'entity_ids', 'role', 'token', 'permissions',
);
const hostileLeaf = fc.oneof(
  fc.jsonValue({ maxDepth: 0 }).map((value) => JSON.stringify(value)),
  text.map((value) => JSON.stringify(value)),
  fc.constantFrom('1e400', '-1e400', '12345678901234567890', '-0', '"\\ud800"', '"javascript:alert(1)"', '"   "', '"123"', '{}', '[]'),
);
/** JSON text (built as text, so `__proto__` stays a key and depth costs no recursion here). */
const { hostileJson } = fc.letrec<{ hostileJson: string }>((tie) => ({
  hostileJson: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileLeaf,
    fc.array(tie('hostileJson'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
    fc.array(fc.tuple(hostileKey, tie('hostileJson')), { maxLength: 4 }).map((entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`),
  ),
}));
/** Nested `depth` levels by repeating a few openers (`{"__proto__":`, `[`): up to 10,000 levels. */
const deepJson = fc
  .tuple(
    fc.oneof(fc.integer({ min: 1, max: 80 }), fc.constantFrom(4_000, 10_000)),
    fc.array(fc.oneof(fc.constant('['), hostileKey.map((key) => `{${JSON.stringify(key)}:`)), { minLength: 1, maxLength: 3 }),
    hostileLeaf,
  )
  .map(([depth, openers, leaf]) => {
    const chosen = Array.from({ length: depth }, (_, index) => openers[index % openers.length]!);
    return chosen.join('') + leaf + chosen.reverse().map((opener) => (opener === '[' ? ']' : '}')).join('');
  });
/** Up to just past the body limit's 100,000 values, as an array or an object. */
const wideJson = fc
  .tuple(fc.constantFrom(10, 1_000, 99_999, 100_001), fc.boolean())
  .map(([count, asArray]) =>
    asArray ? `[${'0,'.repeat(count - 1)}0]` : `{${Array.from({ length: count }, (_, index) => `"${index.toString(36)}":0`).join(',')}}`,
  );
const hostileValue = fc.oneof({ weight: 6, arbitrary: hostileJson }, { weight: 2, arbitrary: deepJson }, { weight: 1, arbitrary: wideJson });
/** A body object with fields a route knows, hostile keys and values. */
const hostileBody = fc.oneof(
  fc.array(fc.tuple(hostileKey, hostileValue), { maxLength: 5 }).map((entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`),
  hostileValue,
);

const bodyRows = declaredResources().flatMap((resource) => (resource.rest ?? []).filter((row) => row.body));

let fuzzed = 0;
let accepted = 0;
const objectOf = (values: fc.Arbitrary<string>) =>
  fc.array(fc.tuple(hostileKey, values), { maxLength: 5 }).map((entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`);
/** A body an ecosystem may well accept: its free-form fields are hostile. */
const ecosystemBody = fc
  .tuple(
    fc.oneof({ weight: 4, arbitrary: objectOf(hostileJson) }, { weight: 1, arbitrary: hostileValue }),
    fc.oneof({ weight: 3, arbitrary: fc.constant('[{"name":"A","url":"https://a.example/?q=1","image_url":""}]') }, { weight: 1, arbitrary: hostileJson }),
    fc.oneof({ weight: 3, arbitrary: fc.constant('"is_company:true"') }, { weight: 1, arbitrary: hostileLeaf }),
  )
  .map(([tabs, logos, filter]) => `{"slug":"fuzz-${++fuzzed}-x","name":"Fuzz","filter":${filter},"tabs_config":${tabs},"partner_logos":${logos}}`);

/** JSON with sorted keys: what "the same JSON value" means once PostgreSQL's jsonb has reordered keys. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.keys(inner).sort().map((key) => [key, (inner as Record<string, unknown>)[key]]))
      : inner,
  );
}

it(`answers ${RUNS} deep, wide and prototype-keyed bodies on every body route without a 5xx, storing nothing it refuses`, async () => {
  const target = fc.oneof(
    fc.record({ row: fc.constantFrom(...bodyRows), body: hostileBody, param: fc.constantFrom('1', '2', 'x') }),
    fc.record({ row: fc.constant(bodyRows.find((row) => row.operation === 'CreateEcosystem')!), body: ecosystemBody, param: fc.constant('1') }),
  );
  await fc.assert(
    fc.asyncProperty(target, async ({ row, body, param }) => {
      // Ids take digits; slugs and user ids anything well-formed.
      const path = row.path.replace(/\{(\w+)\}/g, (_, name: string) => (!row.textParams?.[name] && param === 'x' ? '1' : param));
      const before = await managementState(app);
      const response = await auth.fetch(path, { method: row.method, headers: { 'content-type': 'application/json' }, body });
      const answer = await response.text();
      const label = `${row.method} ${path} ${body.slice(0, 200)}`;
      if (response.status >= 500) failures.push(`${label} → ${response.status} ${answer.slice(0, 300)}`);
      else if (response.status >= 400 && (await managementState(app)) !== before) failures.push(`${label} → ${response.status} but data changed`);
      else if (response.status === 201 && row.operation === 'CreateEcosystem') {
        // Accepted: stored exactly as sent.
        accepted += 1;
        const sent = JSON.parse(body) as { tabs_config: unknown; partner_logos: unknown };
        const stored = (JSON.parse(answer) as { data: { id: number } }).data;
        const read = (await (await auth.fetch(`/api/ecosystems/${stored.id}`)).json()) as { data: { tabs_config: unknown; partner_logos: unknown } };
        if (canonical(read.data.tabs_config) !== canonical(sent.tabs_config) || canonical(read.data.partner_logos) !== canonical(sent.partner_logos)) {
          failures.push(`${label} → stored ${canonical(read.data).slice(0, 300)}`);
        }
      }
    }),
    { numRuns: RUNS },
  );
  expect(failures).toEqual([]);
  // The round trip was exercised, not only refusals.
  expect(accepted).toBeGreaterThan(0);
}, 300_000);

it(`answers ${RUNS} deep, wide and prototype-keyed GraphQL variables without a 5xx, storing nothing it refuses`, async () => {
  const mutations = [...loadOperations(getSchema()).values()]
    .filter((document) => document.definitions.some((definition) => definition.kind === 'OperationDefinition' && definition.operation === 'mutation'));
  const { print } = await import('graphql');
  const documents = mutations.map((document) => print(document));
  const variables = fc
    .array(fc.tuple(fc.oneof(hostileKey, fc.constantFrom('id', 'ecosystem', 'team', 'user_id')), hostileValue), { maxLength: 5 })
    .map((entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`);
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...documents), variables, async (query, values) => {
      const before = await managementState(app);
      const response = await auth.fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"query":${JSON.stringify(query)},"variables":${values}}`,
      });
      const answer = await response.text();
      const label = `graphql ${query.slice(0, 60)} ${values.slice(0, 200)}`;
      if (response.status >= 500) failures.push(`${label} → ${response.status} ${answer.slice(0, 300)}`);
      else if (response.status >= 400 && (await managementState(app)) !== before) failures.push(`${label} → ${response.status} but data changed`);
    }),
    { numRuns: RUNS },
  );
  expect(failures).toEqual([]);
}, 300_000);

it('is still ready afterwards', async () => {
  expect((await app.fetch('/readyz')).status).toBe(200);
  expect((await auth.fetch('/api/entities?limit=1')).status).toBe(200);
});
