/**
 * Keyset cursors against an in-memory expectation: for generated sorts (one to three sortable fields,
 * each ascending or descending, nullable ones often), sometimes a filter, and a page size of 1 to 20,
 * every page of `GET /api/<resource>` is walked by `next_cursor` to the end, and the pages together must
 * be exactly the rows the filter selects, in the order docs/read-api.md (Lists) defines: the sort
 * given, NULLs last in both directions, then `id`. No row repeated or skipped, no page after the last.
 *
 * The expectation is computed here, not asked of the API: the rows are read through Prisma
 * (filter-records.ts), filtered by the in-memory evaluator (test/unit/filter/evaluate.ts) and sorted by
 * a comparator written below. Only the order of two texts is the database's: its collation decides it
 * (src/filter/grammar.md: strings compare "lexically (by the database collation)"), and on a "C"-like
 * collation that order is checked to be code point order, so there the whole order is this file's.
 *
 * Each page must be served by the compiled read (src/compile): /metrics `compiled_reads_total` grows
 * by exactly the number of pages of a walk, and no fallback is counted.
 *
 * CURSOR_RUNS=2000 (and CURSOR_SEED=<n> for another sequence) runs it longer than the suite does.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import '../../helpers/built-schema.ts';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import {
  fieldRegistry,
  parseFilter,
  resolveFilter,
  RESOURCES,
  sortableFields,
  type Resource,
  type ResolvedFilter,
  type SortableField,
} from '../../../src/filter/index.ts';
import type { FieldSpec } from '../../../src/filter/fields.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { compiledReadsMovedBy } from '../../helpers/compiled-reads.ts';
import { evaluateFilter, type FilterRecord } from '../../unit/filter/evaluate.ts';
import { compareCodePoints, compareValues, loadFilterRecords, valuePool, type LoadedData, type ValuePool } from './filter-records.ts';

const ENTITIES = 300;
/** Walks; the default keeps them to about half a minute on PGlite. */
const RUNS = Number(process.env.CURSOR_RUNS ?? 100);
/** Fixed, so that a failure names a case that fails again on the next run. */
const SEED = Number(process.env.CURSOR_SEED ?? 20_260_421);
/**
 * Longer walks are skipped: page size 1 over a whole list of 450 rows crosses the same kinds of
 * boundaries as over a filtered 40, at ten times the cost. Small pages still reach every resource
 * through filters and the smaller lists.
 */
const MAX_PAGES = 40;

let app: TestApp;
let auth: TestCredentials;
let data: LoadedData;
/** Whether `gt`/`lt` on text can be generated: the evaluator compares texts by code point. */
let textInCodePointOrder: boolean;
/** The database's order of every text a sort key holds, as ranks. */
let textRank: Map<string, number>;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: ENTITIES });
  await makeSomeValuesUnknown(app);
  auth = await createApiKeyAndToken(app);
  data = await loadFilterRecords(app.db.prisma);
  textRank = await rankTexts(app, data);
  textInCodePointOrder = [...textRank.keys()].every((text, index, texts) => index === 0 || compareCodePoints(texts[index - 1]!, text) < 0);
  if (C_LIKE_COLLATIONS.has(await databaseCollation(app))) expect(textInCodePointOrder, 'a C-like collation sorts by code point').toBe(true);
}, 120_000);

afterAll(async () => {
  await app?.close();
});

/**
 * The seed leaves no launch_year, lat or lon unknown, few news amounts and no deal dates: a keyset
 * over a nullable key meets NULLs only where there are some. And one investor's entity is deleted,
 * so the investors list's scope (an investor is hidden with its entity) is in play.
 */
async function makeSomeValuesUnknown(target: TestApp): Promise<void> {
  const { sql } = target.db;
  await sql.query('UPDATE entities SET launch_year = NULL WHERE id % 7 = 0 OR id IN (SELECT id FROM investors ORDER BY id LIMIT 3)');
  await sql.query('UPDATE entities SET lat = NULL, lon = NULL WHERE id % 5 = 0');
  await sql.query('UPDATE entities SET lat = NULL WHERE id % 11 = 0');
  await sql.query('UPDATE founders SET launch_year = NULL WHERE id % 6 = 0');
  await sql.query('UPDATE news_articles SET amount_usd = NULL WHERE id % 5 = 0');
  await sql.query('UPDATE news_articles SET deal_date = NULL WHERE id % 4 = 0');
  await sql.query('UPDATE entities SET deleted_at = $1 WHERE id = (SELECT max(id) FROM investors)', ['2024-03-01T12:00:00.000Z']);
}

const C_LIKE_COLLATIONS = new Set(['C', 'POSIX', 'C.UTF-8', 'C.utf8', 'ucs_basic']);

async function databaseCollation(target: TestApp): Promise<string> {
  const rows = await target.db.sql.query<{ collation: string }>('SELECT datcollate AS collation FROM pg_database WHERE datname = current_database()');
  return rows[0]?.collation ?? 'unknown';
}

async function rankTexts(target: TestApp, loaded: LoadedData): Promise<Map<string, number>> {
  const texts = new Set<string>();
  for (const resource of RESOURCES) {
    const keys = [...sortableFields(resource).values()].filter((field) => field.kind === 'string').map(recordKey);
    for (const record of loaded[resource].records) {
      for (const key of keys) if (typeof record[key] === 'string') texts.add(record[key]);
    }
  }
  const rows = await target.db.sql.query<{ value: string }>('SELECT value FROM unnest($1::text[]) AS value ORDER BY value', [[...texts]]);
  return new Map(rows.map((row, index) => [row.value, index]));
}

// ───────────── the order docs/read-api.md defines ─────────────

/** A field by its API name (not the SortableField itself, so that a counterexample prints as data). */
interface SortTerm {
  name: string;
  descending: boolean;
}

function sortField(resource: Resource, name: string): SortableField<Resource> {
  const field = sortableFields(resource).get(name);
  if (!field) throw new Error(`${resource} cannot sort by ${name}`);
  return field;
}

/** Where a record (filter-records.ts) holds a sort field: the last step of its path (investors' `entity.name` is `name`). */
const recordKey = (field: SortableField<Resource>): string => field.path[field.path.length - 1]!;

const idOf = (record: FilterRecord) => record.id as number;

function compareKey(field: SortableField<Resource>, a: unknown, b: unknown): number {
  if (field.kind !== 'string') return compareValues(field.kind, a, b);
  return textRank.get(a as string)! - textRank.get(b as string)!;
}

/** The sort's keys in turn, NULLs after every value whatever the direction, then id ascending. */
function compareRecords(resource: Resource, terms: readonly SortTerm[]) {
  const keys = terms.map((term) => ({ field: sortField(resource, term.name), descending: term.descending }));
  return (a: FilterRecord, b: FilterRecord): number => {
    for (const { field, descending } of keys) {
      const [x, y] = [a[recordKey(field)], b[recordKey(field)]];
      if (x === undefined || y === undefined) throw new Error(`records hold no ${recordKey(field)}`);
      if (x === null || y === null) {
        if (x === y) continue;
        return x === null ? 1 : -1;
      }
      const order = compareKey(field, x, y);
      if (order !== 0) return descending ? -order : order;
    }
    return idOf(a) - idOf(b);
  };
}

function expectedRecords(testCase: Case): FilterRecord[] {
  const loaded = data[testCase.resource];
  const filter: ResolvedFilter | undefined = testCase.filter === null ? undefined : resolveFilter(parseFilter(testCase.filter), testCase.resource);
  const selected = loaded.records.filter((record) => loaded.inScope(record, filter) && (filter === undefined || evaluateFilter(filter, record)));
  return selected.sort(compareRecords(testCase.resource, testCase.sort));
}

// ───────────── generated cases ─────────────

interface Case {
  resource: Resource;
  sort: SortTerm[];
  filter: string | null;
  limit: number;
}

const sortText = (terms: readonly SortTerm[]) => terms.map((term) => `${term.descending ? '-' : ''}${term.name}`).join(',');
const describeCase = (testCase: Case) =>
  `${testCase.resource} sort=${sortText(testCase.sort)} limit=${testCase.limit}${testCase.filter === null ? '' : ` filter=${testCase.filter}`}`;

function sortArbitrary(resource: Resource): fc.Arbitrary<SortTerm[]> {
  const fields = [...sortableFields(resource).values()];
  const names = fields.map((field) => field.name);
  const nullable = fields.filter((field) => field.nullable).map((field) => field.name);
  // Nullable keys are a few of many: drawn as often as all the others together.
  const name = fc.oneof(fc.constantFrom(...names), fc.constantFrom(...nullable));
  return fc.uniqueArray(fc.record({ name, descending: fc.boolean() }), { minLength: 1, maxLength: 3, selector: (term) => term.name });
}

const NEEDS_QUOTES = /[\s,()|"]|^$|^null$/;
const ORDERING = new Set(['gt', 'gte', 'lt', 'lte']);

function printValue(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/["\\]/g, (char) => `\\${char}`)}"` : text;
}

/** Held values mostly, so that filters select a share of the rows rather than none. */
function valueText(pool: ValuePool): fc.Arbitrary<string> {
  const choices = [
    { weight: 6, texts: pool.existing },
    { weight: 2, texts: pool.between },
    { weight: 1, texts: pool.missing },
  ].filter((choice) => choice.texts.length > 0);
  return fc.oneof(...choices.map(({ weight, texts }) => ({ weight, arbitrary: fc.constantFrom(...texts) })));
}

/** A condition on one of the resource's own fields, with values the rows hold (or NULL, where it can be). */
function conditionArbitrary(resource: Resource): fc.Arbitrary<string> {
  const records = data[resource].records;
  const fields = [...fieldRegistry(resource).fields.values()]
    // Fields that read their values their own way (a website as a domain, an external id) have tests of their own.
    .filter((field: FieldSpec) => field.target !== 'lookup' && field.readValue === undefined)
    .map((field: FieldSpec) => ({ field, pool: valuePool(field, records) }));
  return fc.constantFrom(...fields).chain(({ field, pool }) => {
    const operators = field.operators.filter((op) => textInCodePointOrder || field.kind !== 'string' || !ORDERING.has(op));
    return fc.constantFrom(...operators).chain((op) => {
      const many = op.endsWith('_any') || op.endsWith('_all');
      const values = many ? fc.array(valueText(pool), { minLength: 1, maxLength: 3 }) : valueText(pool).map((text) => [text]);
      const texts = values.map((list) => list.map(printValue).join('|'));
      const written = field.nullable && (op === 'eq' || op === 'neq') ? fc.oneof({ weight: 3, arbitrary: texts }, { weight: 1, arbitrary: fc.constant('null') }) : texts;
      return written.map((text) => `${field.name}[${op}]:${text}`);
    });
  });
}

const filterArbitraries = new Map<Resource, fc.Arbitrary<string>>();

/** A condition, or `and`/`or` of two; built once per resource (the value pools read every row). */
function filterArbitrary(resource: Resource): fc.Arbitrary<string> {
  let arbitrary = filterArbitraries.get(resource);
  if (!arbitrary) {
    const condition = conditionArbitrary(resource);
    arbitrary = fc.oneof(
      { weight: 3, arbitrary: condition },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom('and', 'or'), condition, condition).map(([kind, a, b]) => `${kind}(${a}, ${b})`) },
    );
    filterArbitraries.set(resource, arbitrary);
  }
  return arbitrary;
}

function caseArbitrary(): fc.Arbitrary<Case> {
  return fc.constantFrom(...RESOURCES).chain((resource) =>
    fc.record({
      resource: fc.constant(resource),
      sort: sortArbitrary(resource),
      filter: fc.option(filterArbitrary(resource), { nil: null, freq: 2 }),
      // Small pages half the time: they put a cursor at more of the rows' boundaries.
      limit: fc.oneof(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 20 })),
    }),
  );
}

// ───────────── the walk ─────────────

interface ListBody {
  data: { id: number }[];
  page: { next_cursor: string | null };
}

/**
 * The ids of every page, following next_cursor until it is null; `ended` is false when it was still set
 * after twice the pages the rows need (a cursor that never ends would otherwise hang the test).
 */
async function walk(testCase: Case, expectedPages: number): Promise<{ pages: number[][]; ended: boolean }> {
  const pages: number[][] = [];
  let cursor: string | null = null;
  do {
    if (pages.length >= expectedPages * 2 + 1) return { pages, ended: false };
    const query = new URLSearchParams({ sort: sortText(testCase.sort), limit: String(testCase.limit), fields: 'id' });
    if (testCase.filter !== null) query.set('filter', testCase.filter);
    if (cursor !== null) query.set('cursor', cursor);
    const response = await auth.fetch(`/api/${testCase.resource}?${query}`);
    const body = (await response.json()) as ListBody;
    if (response.status !== 200) throw new Error(`${describeCase(testCase)}: page ${pages.length + 1} answered ${response.status}: ${JSON.stringify(body)}`);
    pages.push(body.data.map((row) => row.id));
    cursor = body.page.next_cursor;
  } while (cursor !== null);
  return { pages, ended: true };
}

/** What went wrong, precisely: repeats, skips, and the first place the order departs. */
function difference(expected: readonly number[], pages: readonly number[][]): string {
  const actual = pages.flat();
  const seen = new Map<number, number>();
  const repeated: string[] = [];
  pages.forEach((ids, page) =>
    ids.forEach((id) => {
      if (seen.has(id)) repeated.push(`${id} (pages ${seen.get(id)! + 1} and ${page + 1})`);
      else seen.set(id, page);
    }),
  );
  const want = new Set(expected);
  const skipped = expected.filter((id) => !seen.has(id));
  const unexpected = actual.filter((id) => !want.has(id));
  const at = expected.findIndex((id, index) => actual[index] !== id);
  const around = (list: readonly number[]) => list.slice(Math.max(0, at - 2), at + 3).join(', ');
  return [
    `expected ${expected.length} rows, got ${actual.length} in ${pages.length} pages`,
    `page sizes: ${pages.map((ids) => ids.length).join(', ')}`,
    `repeated: [${repeated.slice(0, 10).join(', ')}]`,
    `skipped: [${skipped.slice(0, 15).join(', ')}]`,
    `not selected by the filter: [${unexpected.slice(0, 15).join(', ')}]`,
    at === -1 ? 'same order' : `order departs at row ${at}: expected …${around(expected)}…, got …${around(actual)}…`,
  ].join('\n  ');
}

/** What the walks reached, so that a generator that stops reaching it fails instead of passing idly. */
interface Tally {
  walks: number;
  pages: number;
  filtered: number;
  empty: number;
  singleRowPages: number;
  /** A page ended on a row whose value of some sort key is NULL: the cursor carries a NULL. */
  nullCursors: number;
  /** A page ended between two rows equal on the first key: the keyset must decide on a later one. */
  tiedCursors: number;
  /** A page ended on the last non-NULL value of the first key, with NULLs on the next page. */
  intoNulls: number;
  /** Resources walked over two pages or more. */
  resources: Set<Resource>;
}

function tallyWalk(tally: Tally, testCase: Case, expected: readonly FilterRecord[], pages: number): void {
  tally.walks += 1;
  tally.pages += pages;
  if (testCase.filter !== null) tally.filtered += 1;
  if (expected.length === 0) tally.empty += 1;
  if (testCase.limit === 1 && expected.length > 1) tally.singleRowPages += 1;
  if (pages > 1) tally.resources.add(testCase.resource);
  const fields = testCase.sort.map((term) => sortField(testCase.resource, term.name));
  const first = fields[0]!;
  for (let end = testCase.limit; end < expected.length; end += testCase.limit) {
    const [last, next] = [expected[end - 1]!, expected[end]!];
    if (fields.some((field) => last[recordKey(field)] === null)) tally.nullCursors += 1;
    const [a, b] = [last[recordKey(first)], next[recordKey(first)]];
    if (a !== null && b !== null && compareKey(first, a, b) === 0) tally.tiedCursors += 1;
    if (a !== null && b === null) tally.intoNulls += 1;
  }
}

async function checkCase(testCase: Case, tally: Tally): Promise<void> {
  const expected = expectedRecords(testCase);
  const expectedPages = Math.max(1, Math.ceil(expected.length / testCase.limit));
  fc.pre(expectedPages <= MAX_PAGES);
  const expectedIds = expected.map(idOf);

  let walked!: Awaited<ReturnType<typeof walk>>;
  const moved = await compiledReadsMovedBy(app, async () => {
    walked = await walk(testCase, expectedPages);
  });
  const { pages, ended } = walked;

  const label = describeCase(testCase);
  const actual = pages.flat();
  const same = ended && actual.length === expectedIds.length && actual.every((id, index) => id === expectedIds[index]);
  if (!same) throw new Error(`${label}${ended ? '' : ' (next_cursor never became null)'}\n  ${difference(expectedIds, pages)}`);
  // Every page full but the last, and no empty page after it: next_cursor is null on the last page.
  expect(pages.map((ids) => ids.length), label).toEqual(
    Array.from({ length: expectedPages }, (_, index) => (index < expectedPages - 1 ? testCase.limit : expected.length - index * testCase.limit)),
  );
  expect({ compiled: moved.compiled, fallbacks: moved.fallbacks }, `${label}: served compiled`).toEqual({ compiled: pages.length, fallbacks: {} });
  tallyWalk(tally, testCase, expected, pages.length);
}

describe('keyset cursors', () => {
  test(
    'every walk returns each selected row once, in the documented order, one compiled statement per page',
    async () => {
      const tally: Tally = { walks: 0, pages: 0, filtered: 0, empty: 0, singleRowPages: 0, nullCursors: 0, tiedCursors: 0, intoNulls: 0, resources: new Set() };
      await fc.assert(
        fc.asyncProperty(caseArbitrary(), (testCase) => checkCase(testCase, tally)),
        { numRuns: RUNS, seed: SEED },
      );
      const shape = JSON.stringify({ ...tally, resources: [...tally.resources] });
      expect(tally.walks, shape).toBe(RUNS);
      expect([...tally.resources].sort(), `resources walked over several pages: ${shape}`).toEqual([...RESOURCES].sort());
      expect(tally.filtered, `filtered walks: ${shape}`).toBeGreaterThan(RUNS / 4);
      expect(tally.filtered, `unfiltered walks: ${shape}`).toBeLessThan((RUNS * 3) / 4);
      expect(tally.empty, `filters selecting nothing: ${shape}`).toBeGreaterThan(0);
      expect(tally.singleRowPages, `walks one row at a time: ${shape}`).toBeGreaterThan(0);
      expect(tally.tiedCursors, `cursors between ties of the first key: ${shape}`).toBeGreaterThan(0);
      expect(tally.nullCursors, `cursors carrying a NULL: ${shape}`).toBeGreaterThan(0);
      expect(tally.intoNulls, `pages ending where the NULLs begin: ${shape}`).toBeGreaterThan(0);
    },
    Math.max(120_000, RUNS * 1_000),
  );
});
