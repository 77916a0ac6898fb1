/**
 * `npm run bench:scale-report`: the figures docs/scaling.md extrapolates from. For each database in
 * BENCH_SCALE_URLS (comma-separated; default the local `venture_scale_100k` and `venture_scale_1m`,
 * seeded with `npm run cli -- seed --entities N` and then `VACUUM ANALYZE`d), it prints each table's
 * rows, heap and index sizes, then the execution time of representative statements (EXPLAIN ANALYZE:
 * the median of BENCH_SAMPLES runs after one warm-up, and the buffers the last run touched) and, for
 * the largest database, the sizes projected to 100 million entities and a billion news mentions.
 * Statements are hand-written equivalents of the service's reads and aggregates (the aggregates are
 * bench/aggregate-questions.ts's, within 1.13x of the service's own statements by bench/README.md).
 */
import pg from 'pg';
import { QUESTIONS } from './aggregate-questions.ts';

const URLS = (process.env.BENCH_SCALE_URLS ?? 'postgres://postgres@127.0.0.1:5432/venture_scale_100k,postgres://postgres@127.0.0.1:5432/venture_scale_1m').split(',');
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 5);
const TARGET_ENTITIES = 100_000_000;
const TARGET_MENTIONS = 1_000_000_000;

interface TableSize {
  table: string;
  rows: number;
  heap: number;
  indexes: number;
  total: number;
}

interface Statement {
  name: string;
  sql: string;
}

const STATEMENTS = (facts: { deepId: number; offset: number; mentioned: number }): Statement[] => [
  { name: 'list page (live entities by id, 25)', sql: 'SELECT id, name, hq_country, launch_year FROM entities WHERE deleted_at IS NULL ORDER BY id LIMIT 25' },
  { name: 'keyset page deep in the list', sql: `SELECT id, name FROM entities WHERE deleted_at IS NULL AND id > ${facts.deepId} ORDER BY id LIMIT 25` },
  { name: 'offset page at 90% of the list', sql: `SELECT id, name FROM entities WHERE deleted_at IS NULL ORDER BY id OFFSET ${facts.offset} LIMIT 25` },
  { name: 'filter hq_country, by id', sql: "SELECT id, name FROM entities WHERE deleted_at IS NULL AND hq_country = 'Germany' ORDER BY id LIMIT 25" },
  { name: 'name contains (trigram)', sql: "SELECT id, name FROM entities WHERE deleted_at IS NULL AND name ILIKE '%peak%' ORDER BY total_funding_usd DESC NULLS LAST, id LIMIT 25" },
  { name: 'record by id with its rounds', sql: `SELECT e.id, e.name, (SELECT json_agg(r.*) FROM funding_rounds r WHERE r.entity_id = e.id) FROM entities e WHERE e.id = ${facts.mentioned}` },
  { name: 'news of the most mentioned entity (25)', sql: `SELECT a.id, a.title FROM news_entities m JOIN news_articles a ON a.id = m.news_id WHERE m.entity_id = ${facts.mentioned} ORDER BY a.publish_date DESC, a.id LIMIT 25` },
  { name: 'exact total: hq_country = Germany', sql: "SELECT count(*) FROM entities WHERE deleted_at IS NULL AND hq_country = 'Germany'" },
  { name: 'exact total: all live entities', sql: 'SELECT count(*) FROM entities WHERE deleted_at IS NULL' },
  ...QUESTIONS.map((question) => ({ name: `aggregate: ${question.name}`, sql: question.sql })),
];

async function tableSizes(client: pg.Client): Promise<TableSize[]> {
  const { rows } = await client.query<{ table: string; rows: string; heap: string; indexes: string; total: string }>(
    `SELECT c.relname AS table, greatest(c.reltuples, 0)::bigint::text AS rows, pg_table_size(c.oid)::text AS heap,
            pg_indexes_size(c.oid)::text AS indexes, pg_total_relation_size(c.oid)::text AS total
       FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      ORDER BY pg_total_relation_size(c.oid) DESC`,
  );
  return rows.map((row) => ({ table: row.table, rows: Number(row.rows), heap: Number(row.heap), indexes: Number(row.indexes), total: Number(row.total) }));
}

async function time(client: pg.Client, sql: string): Promise<{ ms: number; hit: number; read: number }> {
  const run = async () => {
    const { rows } = await client.query<{ 'QUERY PLAN': [{ 'Execution Time': number; Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }] }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`,
    );
    const [plan] = rows[0]!['QUERY PLAN'];
    return { ms: plan['Execution Time'], hit: plan.Plan['Shared Hit Blocks'], read: plan.Plan['Shared Read Blocks'] };
  };
  await run();
  const samples = [];
  for (let index = 0; index < SAMPLES; index += 1) samples.push(await run());
  const ms = samples.map((sample) => sample.ms).sort((a, b) => a - b)[Math.floor(SAMPLES / 2)]!;
  return { ms, hit: samples.at(-1)!.hit, read: samples.at(-1)!.read };
}

const mb = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);
const gb = (bytes: number): string => (bytes / 2 ** 30).toFixed(bytes < 10 * 2 ** 30 ? 1 : 0);

async function main(): Promise<void> {
  const results: { url: string; sizes: TableSize[]; times: Map<string, { ms: number; hit: number; read: number }> }[] = [];
  for (const url of URLS) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const sizes = await tableSizes(client);
      const [facts] = (
        await client.query<{ max_id: number; live: string; mentioned: number }>(
          `SELECT (SELECT max(id) FROM entities) AS max_id, (SELECT count(*) FROM entities WHERE deleted_at IS NULL)::text AS live,
                  (SELECT entity_id FROM news_entities GROUP BY entity_id ORDER BY count(*) DESC LIMIT 1) AS mentioned`,
        )
      ).rows;
      const times = new Map<string, { ms: number; hit: number; read: number }>();
      for (const statement of STATEMENTS({ deepId: Math.floor(facts!.max_id * 0.9), offset: Math.floor(Number(facts!.live) * 0.9), mentioned: facts!.mentioned })) {
        times.set(statement.name, await time(client, statement.sql));
      }
      results.push({ url, sizes, times });
    } finally {
      await client.end();
    }
  }

  for (const { url, sizes } of results) {
    const name = new URL(url).pathname.slice(1);
    console.log(`\n${name}: tables by total size (MB)\n\n| table | rows | heap | indexes | total |\n|---|---|---|---|---|`);
    for (const size of sizes.filter((s) => s.total > 1 << 20)) console.log(`| ${size.table} | ${size.rows.toLocaleString('en')} | ${mb(size.heap)} | ${mb(size.indexes)} | ${mb(size.total)} |`);
    const sum = (key: 'heap' | 'indexes' | 'total') => sizes.reduce((total, s) => total + s[key], 0);
    console.log(`| all | | ${mb(sum('heap'))} | ${mb(sum('indexes'))} | ${mb(sum('total'))} |`);
  }

  const names = results.map(({ url }) => new URL(url).pathname.slice(1));
  console.log(`\nstatements: median ms of ${SAMPLES} (EXPLAIN ANALYZE), buffers of the last run (8 kB pages)\n`);
  console.log(`| statement | ${names.map((n) => `${n} ms`).join(' | ')} | ${names.map((n) => `${n} buffers`).join(' | ')} | last / first |`);
  console.log(`|---|${names.map(() => '---|').join('')}${names.map(() => '---|').join('')}---|`);
  for (const name of results[0]!.times.keys()) {
    const row = results.map(({ times }) => times.get(name)!);
    console.log(`| ${name} | ${row.map((t) => t.ms.toFixed(2)).join(' | ')} | ${row.map((t) => t.hit + t.read).join(' | ')} | ${(row.at(-1)!.ms / row[0]!.ms).toFixed(1)} |`);
  }

  // Linear in rows: every table grows with the entities (x100 from 1M), the mentions to a billion and
  // the articles with them at this data set's ratio of mentions to articles.
  const largest = results.at(-1)!;
  const entities = largest.sizes.find((s) => s.table === 'entities')!.rows;
  const mentions = largest.sizes.find((s) => s.table === 'news_entities')!.rows;
  const factor = (table: string): number => (table === 'news_entities' || table === 'news_articles' ? TARGET_MENTIONS / mentions : TARGET_ENTITIES / entities);
  console.log(`\nprojected from ${names.at(-1)} to ${TARGET_ENTITIES.toLocaleString('en')} entities and ${TARGET_MENTIONS.toLocaleString('en')} mentions (GB)\n`);
  console.log('| table | rows | heap | indexes | total |\n|---|---|---|---|---|');
  let heap = 0;
  let indexes = 0;
  for (const size of largest.sizes.filter((s) => s.total > 8 << 20)) {
    const f = factor(size.table);
    heap += size.heap * f;
    indexes += size.indexes * f;
    console.log(`| ${size.table} | ${Math.round(size.rows * f).toLocaleString('en')} | ${gb(size.heap * f)} | ${gb(size.indexes * f)} | ${gb(size.total * f)} |`);
  }
  console.log(`| all | | ${gb(heap)} | ${gb(indexes)} | ${gb(heap + indexes)} |`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
