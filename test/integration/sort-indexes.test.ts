// Every sortable column is served by an index: `sort=<field>` (either direction) and the keyset page
// after it read the index in order instead of sorting the table. Long free-text columns are the
// documented exception (see migration 20261121010000_sort_indexes).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../helpers/built-schema.ts';
import { RESOURCES, sortableFields, type Resource } from '../../src/filter/index.ts';
import { quoteIdentifier } from '../../src/db/client.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/db.ts';

const TABLES: Record<Resource, string> = {
  entities: 'entities',
  founders: 'founders',
  investors: 'investors',
  transactions: 'funding_rounds',
  valuations: 'valuations',
  news: 'news_articles',
};

/** Long free text: sorting by it scans the filtered rows. */
const UNINDEXED = new Set(['entities.tagline', 'founders.tagline', 'news.summary', 'news.enriched_summary']);

const cases = RESOURCES.flatMap((resource) =>
  [...sortableFields(resource).values()]
    .filter((field) => field.path.length === 1 && !UNINDEXED.has(`${resource}.${field.name}`))
    .flatMap((field) =>
      (['asc', 'desc'] as const).map((direction) => ({ resource, column: field.path[0]!, direction, nullable: field.nullable })),
    ),
);

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});

afterAll(async () => {
  await db.destroy();
});

async function plan(sql: string): Promise<string> {
  return db.sql.transaction(async (tx) => {
    // With sequential scans and full sorts priced out, the planner shows whether an index can serve.
    await tx.exec('SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off');
    const rows = await tx.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  });
}

describe('sortable columns have an index', () => {
  it('covers every resource', () => {
    expect(new Set(cases.map((entry) => entry.resource))).toEqual(new Set(RESOURCES));
  });

  it.each(cases)('$resource sorted by $column $direction', async ({ resource, column, direction, nullable }) => {
    const table = quoteIdentifier(TABLES[resource]);
    const key = quoteIdentifier(column);
    // As lists order: NULLs last in both directions on nullable columns, no NULLS clause on the others.
    const nulls = nullable ? 'NULLS LAST' : '';
    const text = await plan(`SELECT id FROM ${table} ORDER BY ${key} ${direction} ${nulls}, id ASC LIMIT 26`);
    expect(text, text).toMatch(/Index (Only )?Scan/);
    expect(text, text).not.toMatch(/Seq Scan|(?<!Incremental )Sort  /);
  });
});
