/**
 * What an update's recording compares is each row's JSON, made once per row: the subqueries that make
 * it are kept whole (`OFFSET 0`), not folded into the per-column comparison, where `to_jsonb` of the
 * old row ran once per column (an update of 12,000 entities spent 7.5 s in recording instead of 1.2 s;
 * docs/changes.md, "Cost"). The statement the trigger runs is planned here on tables named as its
 * transition tables, and the plan must make each side's JSON where it reads that side's rows.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../helpers/db.ts';

let db: TestDatabase;

beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(async () => db?.destroy());

interface PlanNode {
  'Relation Name'?: string;
  Output?: string[];
  Plans?: PlanNode[];
}

const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

it.each([
  ['record', '{slug,country_location_id,city_location_id,website_domain,search_name}', '{updated_at}'],
  ['investor', '{uuid,name,type,image,platform_url,hq_country,hq_city,launch_year,deleted_at}', null],
])("an update's %s recording makes each row's JSON once, where it reads the row", async (form, a, b) => {
  await db.sql.transaction(async (tx) => {
    await tx.exec('CREATE TEMPORARY TABLE new_rows (LIKE entities) ON COMMIT DROP; CREATE TEMPORARY TABLE old_rows (LIKE entities) ON COMMIT DROP');
    const [noted] = await tx.query<{ sql: string }>("SELECT changes_noted('UPDATE', 'entities', $1, $2, $3, NULL) AS sql", [form, a, b]);
    const [explained] = await tx.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (VERBOSE, FORMAT JSON) ${noted!.sql}`);
    const json = explained!['QUERY PLAN'];
    const plan = nodes((typeof json === 'string' ? JSON.parse(json) : json)[0].Plan as PlanNode);
    for (const table of ['new_rows', 'old_rows']) {
      const scan = plan.find((node) => node['Relation Name'] === table);
      // Folded into the comparison, the scan hands the whole row up (`r.*`) and each use makes its JSON.
      expect(scan?.Output, table).toContainEqual(expect.stringMatching(/^to_jsonb\(\w+\.\*\)$/));
      expect(scan?.Output, table).not.toContainEqual(expect.stringMatching(/^\w+\.\*$/));
    }
  });
});
