// Grammar-aware fuzzing of every public endpoint over real HTTP: whatever a client sends, the answer is
// never a 5xx and the server stays ready. FUZZ_RUNS=5000 npx vitest run test/integration/fuzz.test.ts
// runs it longer; the suite runs a size CI can afford.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDatabase } from '../../src/data/seed/index.ts';
import { describeFilterFields, RESOURCES, sortableFields, type Resource } from '../../src/filter/index.ts';
import { loadOperations } from '../../src/rest/operations.ts';
import { routes, type Route } from '../../src/rest/routes.ts';
import { getSchema } from '../../src/schema/index.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 150);

let app: TestApp;
let auth: TestCredentials;
const failures: string[] = [];

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 30 });
  auth = await createApiKeyAndToken(app);
});

afterAll(async () => {
  await app.close();
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

it('is still ready afterwards', async () => {
  expect((await app.fetch('/readyz')).status).toBe(200);
  expect((await auth.fetch('/api/entities?limit=1')).status).toBe(200);
});
