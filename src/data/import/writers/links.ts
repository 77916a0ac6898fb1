/**
 * Link tables (entity_tags, founder_tags, founder_backgrounds): each record's taxonomy references are
 * resolved to ids and become exactly its links, duplicates collapsed.
 */
import type { TaxonomyRef, TaxonomyResolver } from '../resolve/taxonomy.ts';
import { replaceChildren } from '../../sql/unnest.ts';
import type { WriteContext } from './context.ts';

export interface LinkTable {
  table: string;
  /** The column holding the record's id, e.g. `entity_id`. */
  parentColumn: string;
  /** The column holding the taxonomy id, e.g. `tag_id`. */
  childColumn: string;
}

export async function replaceLinks<R extends { id: number }>(
  context: WriteContext,
  resolver: TaxonomyResolver,
  records: readonly R[],
  refsOf: (record: R) => readonly TaxonomyRef[],
  link: LinkTable,
): Promise<void> {
  const ids = await resolver.resolve(records.flatMap(refsOf));
  // `ids` lines up with the references in record order: walk them the same way.
  let next = 0;
  const rows = new Map<string, Record<string, number>>();
  for (const record of records) {
    for (const _ref of refsOf(record)) {
      const child = ids[next++] ?? 0;
      rows.set(`${record.id}:${child}`, { [link.parentColumn]: record.id, [link.childColumn]: child });
    }
  }
  const key = [link.parentColumn, link.childColumn];
  await replaceChildren(
    context.tx,
    { table: link.table, parentColumn: link.parentColumn, key, columns: key.map((name) => ({ name, type: 'int' })) },
    records.map((record) => record.id),
    [...rows.values()],
  );
}
