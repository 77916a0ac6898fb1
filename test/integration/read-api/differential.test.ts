/**
 * Issue 3's differential test: for many generated filters over a seeded data set, the API returns
 * exactly the ids that a plain in-memory evaluation (test/unit/filter/evaluate.ts) of the same filter
 * over the same records returns.
 *
 * What is compared: the filter text goes to `GET /api/<resource>?filter=...&sort=id&limit=<max>` (every
 * page, following `next_cursor`) and, for a sample, to GraphQL and to a paged walk under another sort
 * order; locally the same text is parsed and resolved (shared code: the grammar has its own tests) and
 * evaluated over every row read from the database. So the differential covers what differs between the
 * two sides: the translation to Prisma (to-prisma.ts), the list scope (soft deletion), sorting, keyset
 * cursors and paging (list-order.ts, list-query.ts), and both transports.
 *
 * Filters are drawn from the field registry with values drawn from the data (see ValuePool), so that
 * they select a useful share of the rows; the end of each test asserts that they did.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import '../../helpers/built-schema.ts';
import {
  describeFilterFields,
  fieldRegistry,
  parseFilter,
  resolveFilter,
  RESOURCES,
  type Operator,
  type Resource,
  type ResolvedExpr,
  type ResolvedFilter,
} from '../../../src/filter/index.ts';
import type { FieldSpec } from '../../../src/filter/fields.ts';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { evaluateFilter, type FilterRecord } from '../../unit/filter/evaluate.ts';
import {
  compareCodePoints,
  compareValues,
  loadFilterRecords,
  recordKeys,
  valuePool,
  type LoadedData,
  type LoadedResource,
  type ValuePool,
} from './filter-records.ts';

/** Seeded entities; the seeder adds founders, rounds, valuations and news in proportion. */
const ENTITIES = 400;
/** Generated filters per resource. */
const RUNS_PER_RESOURCE = 150;
/** Fixed, so a failure names a filter that fails again on the next run. */
const SEED = 20_260_303;
/** About one filter in this many also goes through GraphQL, and one (another) through a sorted paged walk. */
const SAMPLE_EVERY = 8;
/** Under the grammar's 4096, so that no generated filter is refused for its size. */
const MAX_FILTER_LENGTH = 2000;
/** docs/read-api.md, Lists: the largest `limit` per list. */
const MAX_LIMIT: Readonly<Record<Resource, number>> = {
  entities: 500,
  founders: 500,
  investors: 500,
  transactions: 2000,
  valuations: 2000,
  news: 2000,
};
const GRAPHQL_FIELD: Readonly<Record<Resource, string>> = {
  entities: 'entities',
  founders: 'founders',
  investors: 'investors',
  transactions: 'transactions',
  valuations: 'valuations',
  news: 'news',
};

let app: TestApp;
let auth: TestCredentials;
let data: LoadedData;
/**
 * Whether the database orders text by code point, as the evaluator does. PGlite uses "C"; a PostgreSQL
 * server may have been initialised with a linguistic collation (en_US.UTF-8 sorts `a` < `B` and skips
 * punctuation), under which string `gt`/`gte`/`lt`/`lte` and string sort orders legitimately differ from
 * the evaluator. There the generator leaves those operators and sort keys out rather than compare
 * something the contract leaves to the collation ("compare lexically").
 */
let textInCodePointOrder: boolean;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: ENTITIES });
  await softDeleteAnInvestor(app);
  auth = await createApiKeyAndToken(app);
  data = await loadFilterRecords(app.db.prisma);
  textInCodePointOrder = await sortsTextByCodePoint(app, data);
}, 120_000);

afterAll(async () => {
  await app?.close();
});

/**
 * About 1% of seeded entities are soft-deleted, none of them an investor at this size; one more makes
 * the investors list's scope (an investor is hidden with its entity) something the filters can meet.
 */
async function softDeleteAnInvestor(target: TestApp): Promise<void> {
  const [investor] = await target.db.sql.query<{ id: number }>('SELECT id FROM investors ORDER BY id LIMIT 1');
  if (!investor) throw new Error('the seed made no investors');
  await target.db.sql.query('UPDATE entities SET deleted_at = $1 WHERE id = $2', ['2024-03-01T12:00:00.000Z', investor.id]);
}

// ───────────── the database's text order ─────────────

const C_LIKE_COLLATIONS = new Set(['C', 'POSIX', 'C.UTF-8', 'C.utf8', 'ucs_basic']);

async function databaseCollation(target: TestApp): Promise<string> {
  const rows = await target.db.sql.query<{ collation: string }>(
    'SELECT datcollate AS collation FROM pg_database WHERE datname = current_database()',
  );
  return rows[0]?.collation ?? 'unknown';
}

/** Sorts every string the data holds (and a few awkward ones) in the database and in code point order. */
async function sortsTextByCodePoint(target: TestApp, loaded: LoadedData): Promise<boolean> {
  const texts = new Set(['a', 'B', 'b', 'a b', 'a-c', 'ab', 'Zürich', 'zz', '~', '🚀', '\uffff', '']);
  for (const resource of RESOURCES) {
    for (const record of loaded[resource].records) {
      for (const value of Object.values(record)) if (typeof value === 'string') texts.add(value);
    }
  }
  const probe = [...texts];
  const rows = await target.db.sql.query<{ value: string }>('SELECT value FROM unnest($1::text[]) AS value ORDER BY value', [probe]);
  const inDatabase = rows.map((row) => row.value);
  const byCodePoint = [...probe].sort(compareCodePoints);
  const agrees = inDatabase.every((value, index) => value === byCodePoint[index]);
  // A C-like collation must sort by code point; if not, the evaluator's premise is wrong, not the API.
  if (C_LIKE_COLLATIONS.has(await databaseCollation(target))) expect(agrees, 'C-like collation, code point order').toBe(true);
  return agrees;
}

// ───────────── generating filters ─────────────

interface GeneratedFilter {
  text: string;
  /** Uses the deprecated `in`/`nin`, so REST must answer with `Deprecation: true`. */
  legacy: boolean;
}

/** A value as the generator writes it: `null` (SQL NULL) or a text, quoted where needed or asked to. */
type GeneratedValue = { null: true } | { text: string; quoted: boolean };

const LEGACY: Readonly<Partial<Record<Operator, string>>> = { in_any: 'in', nin_any: 'nin' };
const ORDERING: ReadonlySet<string> = new Set(['gt', 'gte', 'lt', 'lte']);
const LIST_OPERATORS: ReadonlySet<string> = new Set(['in_any', 'nin_any', 'in', 'nin', 'in_all', 'nin_all']);
const NEEDS_QUOTES = /[\s,()|"]|^$|^null$/;

function printValue(value: GeneratedValue): string {
  if ('null' in value) return 'null';
  // Quoting changes nothing but what may be written inside, so some values are quoted without need.
  if (!value.quoted && !NEEDS_QUOTES.test(value.text)) return value.text;
  return `"${value.text.replace(/["\\]/g, (char) => `\\${char}`)}"`;
}

/** A field the filter can name on a resource: its own, or `investor__<field>` (values from investors). */
interface FilterableField {
  field: FieldSpec;
  relation: string | undefined;
  pool: ValuePool;
}

function filterableFields(resource: Resource, loaded: LoadedData): { own: FilterableField[]; related: FilterableField[] } {
  const registry = fieldRegistry(resource);
  const fieldsOf = (of: Resource, relation: string | undefined) =>
    [...fieldRegistry(of).fields.values()]
      // Fields that read their values their own way (a website as a domain, an external id) have tests of their own.
      .filter((field) => field.target !== 'lookup' && field.readValue === undefined)
      .map((field) => ({ field, relation, pool: valuePool(field, loaded[of].records) }));
  const related = [...registry.relations.values()].flatMap((relation) => fieldsOf(relation.resource, relation.name));
  return { own: fieldsOf(resource, undefined), related };
}

/** A registry field by its filter name, `investor__x` included. */
function fieldOf(resource: Resource, name: string): FieldSpec {
  const [relationName, fieldName] = name.includes('__') ? name.split('__') : [undefined, name];
  const relation = relationName === undefined ? undefined : fieldRegistry(resource).relations.get(relationName);
  const field = fieldRegistry(relation?.resource ?? resource).fields.get(fieldName ?? '');
  if (!field) throw new Error(`no field ${name} on ${resource}`);
  return field;
}

function operatorsFor(field: FieldSpec): string[] {
  const allowed = field.operators.filter((op) => textInCodePointOrder || field.kind !== 'string' || !ORDERING.has(op));
  return [...allowed, ...allowed.flatMap((op) => LEGACY[op] ?? [])];
}

/** Held values most of the time, then values between them, then values no row holds. */
function valueText(pool: ValuePool): fc.Arbitrary<string> {
  const choices = [
    { weight: 5, texts: pool.existing },
    { weight: 2, texts: pool.between },
    { weight: 1, texts: pool.missing },
  ].filter((choice) => choice.texts.length > 0);
  return fc.oneof(...choices.map(({ weight, texts }) => ({ weight, arbitrary: fc.constantFrom(...texts) })));
}

function generatedValue(pool: ValuePool): fc.Arbitrary<GeneratedValue> {
  // One value in six is quoted; shrinking heads for the unquoted form.
  const quoted = fc.integer({ min: 0, max: 5 }).map((roll) => roll === 5);
  return fc.record({ text: valueText(pool), quoted });
}

function valuesFor(target: FilterableField, op: string): fc.Arbitrary<GeneratedValue[]> {
  const { field, pool } = target;
  const one = generatedValue(pool);
  if (!LIST_OPERATORS.has(op)) {
    if (!field.nullable || (op !== 'eq' && op !== 'neq')) return one.map((value) => [value]);
    const nullValue = fc.constant<GeneratedValue>({ null: true });
    return fc.oneof({ weight: 1, arbitrary: nullValue }, { weight: 3, arbitrary: one }).map((value) => [value]);
  }
  const list = fc.array(one, { minLength: 1, maxLength: 4 });
  if (pool.groups.length === 0) return list;
  // Ids one row holds together, so that `in_all` (and `nin_all`) also meet rows that have all of them.
  const together = fc
    .constantFrom(...pool.groups)
    .chain((group) => fc.subarray([...group], { minLength: 1, maxLength: Math.min(3, group.length) }))
    .map((ids) => ids.map((id): GeneratedValue => ({ text: String(id), quoted: false })));
  return fc.oneof(list, together);
}

function conditionOn(target: FilterableField, ref: string | undefined): fc.Arbitrary<GeneratedFilter> {
  return fc.constantFrom(...operatorsFor(target.field)).chain((op) =>
    fc.record({ values: valuesFor(target, op), refPrefix: fc.boolean(), shorthand: fc.boolean() }).map(({ values, refPrefix, shorthand }) => {
      const prefix = `${ref !== undefined && refPrefix ? `${ref}.` : ''}${target.relation ? `${target.relation}__` : ''}`;
      const written = op === 'eq' && shorthand ? '' : `[${op}]`;
      return { text: `${prefix}${target.field.name}${written}:${values.map(printValue).join('|')}`, legacy: op === 'in' || op === 'nin' };
    }),
  );
}

function conditionArbitrary(resource: Resource, loaded: LoadedData): fc.Arbitrary<GeneratedFilter> {
  const { own, related } = filterableFields(resource, loaded);
  const ref = fieldRegistry(resource).refs[0];
  const pick = (fields: FilterableField[]) => fc.constantFrom(...fields).chain((target) => conditionOn(target, ref));
  if (related.length === 0) return pick(own);
  return fc.oneof({ weight: 3, arbitrary: pick(own) }, { weight: 1, arbitrary: pick(related) });
}

/** Conditions, and `and(...)`/`or(...)` of them nested up to three levels. */
function filterArbitrary(resource: Resource, loaded: LoadedData): fc.Arbitrary<GeneratedFilter> {
  const condition = conditionArbitrary(resource, loaded);
  const { expr } = fc.letrec<{ expr: GeneratedFilter }>((tie) => ({
    expr: fc.oneof(
      { maxDepth: 3, depthSize: 'small' },
      condition,
      fc
        .tuple(fc.constantFrom('and', 'or'), fc.array(tie('expr'), { minLength: 1, maxLength: 3 }), fc.constantFrom(',', ', ', ' , '))
        .map(([kind, children, comma]) => ({
          text: `${kind}(${children.map((child) => child.text).join(comma)})`,
          legacy: children.some((child) => child.legacy),
        })),
    ),
  }));
  // Long values (URLs, taglines) in wide trees could pass the 4096-character limit; stay well inside it.
  return expr.filter((filter) => filter.text.length <= MAX_FILTER_LENGTH);
}

// ───────────── what the API returns ─────────────

interface ListBody {
  data: { id: number }[];
  page: { next_cursor: string | null };
}

function isListBody(body: unknown): body is ListBody {
  if (typeof body !== 'object' || body === null || !('data' in body) || !('page' in body)) return false;
  const { data: rows, page } = body as { data: unknown; page: unknown };
  return Array.isArray(rows) && typeof page === 'object' && page !== null && 'next_cursor' in page;
}

interface Walk {
  ids: number[];
  pages: number;
  deprecation: string | null;
}

/** Every page of `GET /api/<resource>` for this filter, sort and limit, following next_cursor to the end. */
async function restWalk(resource: Resource, filter: string, sort: string, limit: number): Promise<Walk> {
  const walk: Walk = { ids: [], pages: 0, deprecation: null };
  let cursor: string | null = null;
  do {
    const query = new URLSearchParams({ filter, sort, limit: String(limit), fields: 'id' });
    if (cursor !== null) query.set('cursor', cursor);
    const response = await auth.fetch(`/api/${resource}?${query}`);
    const body: unknown = await response.json();
    if (response.status !== 200 || !isListBody(body)) {
      throw new Error(`GET /api/${resource}?${query} answered ${response.status}: ${JSON.stringify(body)}`);
    }
    walk.ids.push(...body.data.map((row) => row.id));
    walk.deprecation ??= response.headers.get('deprecation');
    walk.pages += 1;
    cursor = body.page.next_cursor;
    // A cursor that never ends would hang the test; more pages than rows is already wrong.
    if (walk.pages > data[resource].records.length / limit + 2) throw new Error(`next_cursor never became null for ${filter}`);
  } while (cursor !== null);
  return walk;
}

/** Every page of the GraphQL list, selecting only ids; `sort: "id"` and the largest limit unless told. */
async function graphqlIds(resource: Resource, filter: string | null, sort = 'id', limit = MAX_LIMIT[resource]): Promise<number[]> {
  const query = `query List($filter: String, $sort: String, $limit: Int, $cursor: String) {
    list: ${GRAPHQL_FIELD[resource]}(filter: $filter, sort: $sort, limit: $limit, cursor: $cursor) {
      data { id } page { next_cursor }
    }
  }`;
  const ids: number[] = [];
  let cursor: string | null = null;
  do {
    const { status, body } = await auth.graphql(query, { filter, sort, limit, cursor });
    const list = body.data?.list;
    if (status !== 200 || body.errors || !isListBody(list)) {
      throw new Error(`GraphQL ${resource}(filter: ${filter}, sort: ${sort}, limit: ${limit}): ${JSON.stringify(body)}`);
    }
    ids.push(...list.data.map((row) => row.id));
    cursor = list.page.next_cursor;
    if (ids.length > data[resource].records.length) throw new Error(`GraphQL ${resource} pages never end (sort ${sort})`);
  } while (cursor !== null);
  return ids;
}

// ───────────── what the evaluator says ─────────────

function resolved(resource: Resource, text: string): ResolvedFilter {
  return resolveFilter(parseFilter(text), resource);
}

function expectedRecords(loaded: LoadedResource, filter: ResolvedFilter): FilterRecord[] {
  return loaded.records.filter((record) => loaded.inScope(record, filter) && evaluateFilter(filter, record));
}

const idOf = (record: FilterRecord) => record.id as number;

/** The rows in `sort` order as docs/read-api.md (Lists) defines it: NULLs last in both directions, then id. */
function sortedRecords(resource: Resource, records: FilterRecord[], sort: string): FilterRecord[] {
  const descending = sort.startsWith('-');
  const field = fieldRegistry(resource).fields.get(sort.replace(/^-/, ''));
  if (!field || field.target !== 'column') throw new Error(`not a sortable column: ${sort}`);
  const [key] = recordKeys(field) as [string];
  const byKey = (a: FilterRecord, b: FilterRecord) => {
    const [x, y] = [a[key], b[key]];
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    return (descending ? -1 : 1) * compareValues(field.kind, x, y);
  };
  return [...records].sort((a, b) => byKey(a, b) || (key === 'id' ? 0 : idOf(a) - idOf(b)));
}

function sortKeys(resource: Resource): string[] {
  return describeFilterFields(resource)
    .filter((field) => field.sortable && (textInCodePointOrder || field.type !== 'string'))
    .flatMap((field) => [field.name, `-${field.name}`]);
}

// ───────────── comparing ─────────────

function difference(expected: readonly number[], actual: readonly number[]): string {
  const want = new Set(expected);
  const got = new Set(actual);
  const missing = expected.filter((id) => !got.has(id));
  const extra = actual.filter((id) => !want.has(id));
  const show = (list: number[]) => `${list.slice(0, 15).join(', ')}${list.length > 15 ? ` … (${list.length})` : ''}`;
  return `expected ${expected.length} ids, got ${actual.length}; missing: [${show(missing)}]; unexpected: [${show(extra)}]`;
}

function assertSameIds(where: string, filter: string, expected: readonly number[], actual: readonly number[]): void {
  const sorted = [...actual].sort((a, b) => a - b);
  const same = sorted.length === expected.length && sorted.every((id, index) => id === expected[index]);
  if (!same) throw new Error(`${where} disagrees with the evaluator for filter ${filter}\n  ${difference(expected, sorted)}`);
}

/** Same ids in the same order; names the first position where the API's order departs from the contract's. */
function assertSameOrder(where: string, filter: string, expected: readonly number[], actual: readonly number[]): void {
  assertSameIds(where, filter, [...expected].sort((a, b) => a - b), actual);
  const at = expected.findIndex((id, index) => actual[index] !== id);
  if (at === -1 && actual.length === expected.length) return;
  const around = (list: readonly number[]) => list.slice(Math.max(0, at - 2), at + 3).join(', ');
  throw new Error(`${where} order departs at position ${at} for filter ${filter}\n  expected …${around(expected)}…, got …${around(actual)}…`);
}

interface Tally {
  runs: number;
  none: number;
  some: number;
  all: number;
  graphql: number;
  paged: number;
  /** Filters a record out of the list's scope (soft-deleted) would have met: the scope mattered. */
  hidden: number;
  /** Filters whose answer holds a soft-deleted entity, because they name deleted_at. */
  deletedShown: number;
  /** Fields (`investor__x` included) and operators (as written) the filters named; the deepest and/or nesting. */
  fields: Set<string>;
  operators: Set<string>;
  deepest: number;
}

function newTally(): Tally {
  return { runs: 0, none: 0, some: 0, all: 0, graphql: 0, paged: 0, hidden: 0, deletedShown: 0, fields: new Set(), operators: new Set(), deepest: 0 };
}

/** Notes what a filter exercised; returns its and/or nesting depth (a lone condition is 0). */
function noteShape(expr: ResolvedExpr, tally: Tally): number {
  if (expr.type === 'combinator') return 1 + Math.max(...expr.children.map((child) => noteShape(child, tally)));
  tally.fields.add(`${expr.relation ? `${expr.relation.name}__` : ''}${expr.field.name}`);
  tally.operators.add(expr.writtenOp);
  return 0;
}

function summary(tally: Tally): string {
  const { fields, operators, ...counts } = tally;
  return JSON.stringify({ ...counts, fields: fields.size, operators: [...operators].sort() });
}

interface Case {
  filter: GeneratedFilter;
  /** 0 .. SAMPLE_EVERY-1: 0 also asks GraphQL, 1 also walks the pages under `sort`. */
  sample: number;
  sort: string;
  pages: number;
}

async function checkCase(resource: Resource, { filter, sample, sort, pages }: Case, tally: Tally): Promise<void> {
  const loaded = data[resource];
  const resolvedFilter = resolved(resource, filter.text);
  const expected = expectedRecords(loaded, resolvedFilter);
  const expectedIds = expected.map(idOf);
  const inScope = loaded.records.filter((record) => loaded.inScope(record, resolvedFilter)).length;
  tally.runs += 1;
  tally.deepest = Math.max(tally.deepest, noteShape(resolvedFilter.root, tally));
  if (expected.some((record) => record.deleted_at != null)) tally.deletedShown += 1;
  if (loaded.records.some((record) => !loaded.inScope(record, resolvedFilter) && evaluateFilter(resolvedFilter, record))) tally.hidden += 1;
  if (expected.length === 0) tally.none += 1;
  else if (expected.length === inScope) tally.all += 1;
  else tally.some += 1;

  const walk = await restWalk(resource, filter.text, 'id', MAX_LIMIT[resource]);
  assertSameOrder('REST sort=id', filter.text, expectedIds, walk.ids);
  expect(walk.deprecation, `Deprecation header for ${filter.text}`).toBe(filter.legacy ? 'true' : null);

  if (sample === 0) {
    tally.graphql += 1;
    assertSameIds('GraphQL', filter.text, expectedIds, await graphqlIds(resource, filter.text));
  }
  if (sample === 1 && expected.length > 0) {
    tally.paged += 1;
    // Several pages under a non-id order: the keyset cursor must neither skip nor repeat a row.
    const limit = Math.max(1, Math.ceil(expected.length / pages));
    const paged = await restWalk(resource, filter.text, sort, limit);
    const order = sortedRecords(resource, expected, sort).map(idOf);
    assertSameOrder(`REST sort=${sort}&limit=${limit} (${paged.pages} pages)`, filter.text, order, paged.ids);
  }
}

function caseArbitrary(resource: Resource): fc.Arbitrary<Case> {
  return fc.record({
    filter: filterArbitrary(resource, data),
    sample: fc.integer({ min: 0, max: SAMPLE_EVERY - 1 }),
    sort: fc.constantFrom(...sortKeys(resource)),
    pages: fc.integer({ min: 2, max: 5 }),
  });
}

describe('the API returns exactly the ids the in-memory evaluator selects', () => {
  test.each(RESOURCES)(
    '%s',
    async (resource) => {
      const tally = newTally();
      await fc.assert(
        fc.asyncProperty(caseArbitrary(resource), (testCase) => checkCase(resource, testCase, tally)),
        { numRuns: RUNS_PER_RESOURCE, seed: SEED },
      );
      // Filters that all match nothing (or everything), or that miss fields or operators, would pass
      // without testing much: the generator must keep reaching all of it.
      const shape = summary(tally);
      expect(tally.runs, shape).toBe(RUNS_PER_RESOURCE);
      expect(tally.some, `filters matching some but not all rows: ${shape}`).toBeGreaterThanOrEqual(RUNS_PER_RESOURCE * 0.4);
      expect(tally.none, `filters matching nothing: ${shape}`).toBeGreaterThan(0);
      expect(tally.graphql * tally.paged, `GraphQL and paged samples: ${shape}`).toBeGreaterThan(0);
      expect(tally.deepest, `and/or nesting: ${shape}`).toBe(3);
      // All but the fields that read their values their own way, which have tests of their own.
      const ownWay = new Set([...fieldRegistry(resource).fields.values()].filter((field) => field.target === 'lookup' || field.readValue !== undefined).map((field) => field.name));
      const named = describeFilterFields(resource).map((field) => field.name).filter((name) => !ownWay.has(name));
      expect([...tally.fields].sort(), 'every filterable field named').toEqual(named.sort());
      const operators = describeFilterFields(resource).flatMap((field) => operatorsFor(fieldOf(resource, field.name)));
      expect([...tally.operators].sort(), 'every operator used').toEqual([...new Set(operators)].sort());
      if (resource === 'entities' || resource === 'investors') expect(tally.hidden, `soft-deletion scope mattered: ${shape}`).toBeGreaterThan(0);
      if (resource === 'entities') expect(tally.deletedShown, `deleted_at filters showed deleted entities: ${shape}`).toBeGreaterThan(0);
    },
    120_000,
  );
});

/**
 * The paged samples above reach a random few sort orders; this walks every row under every sort key,
 * both directions, in about three pages, so each key's cursor is crossed at a few places (NULLs and
 * ties included). Over GraphQL, selecting only ids: it is the cheaper transport, and REST passes the
 * same sort and cursor straight through (the samples above page over REST).
 */
describe('every sort order pages through every row once, in the order docs/read-api.md defines', () => {
  test.each(RESOURCES)(
    '%s',
    async (resource) => {
      const loaded = data[resource];
      const rows = loaded.records.filter((record) => loaded.inScope(record, undefined));
      const limit = Math.ceil(rows.length / 3);
      for (const sort of sortKeys(resource)) {
        const ids = await graphqlIds(resource, null, sort, limit);
        assertSameOrder(`GraphQL sort: ${sort}, limit: ${limit}`, '(none)', sortedRecords(resource, rows, sort).map(idOf), ids);
      }
    },
    60_000,
  );
});
