/**
 * Tags and backgrounds referenced from records: by id when one is given and exists, else by natural key
 * ((type, name) for tags, name for backgrounds); missing ones are created, with the given id if any.
 */
import type { SqlTx } from '../../sql/unnest.ts';
import { bumpSequence } from '../../derived.ts';

export interface TaxonomyRef {
  id?: number | undefined;
  name: string;
  type?: string;
}

interface TableSpec {
  table: 'tags' | 'backgrounds';
  /** Natural key columns besides id. */
  keyColumns: readonly ('name' | 'type')[];
}

const TAGS: TableSpec = { table: 'tags', keyColumns: ['type', 'name'] };
const BACKGROUNDS: TableSpec = { table: 'backgrounds', keyColumns: ['name'] };

export class TaxonomyResolver {
  private readonly byKey = new Map<string, number>();
  private readonly knownIds = new Set<number>();

  private constructor(
    private readonly tx: SqlTx,
    private readonly spec: TableSpec,
  ) {}

  static tags(tx: SqlTx): TaxonomyResolver {
    return new TaxonomyResolver(tx, TAGS);
  }

  static backgrounds(tx: SqlTx): TaxonomyResolver {
    return new TaxonomyResolver(tx, BACKGROUNDS);
  }

  /** Returns the id each reference resolves to, in input order. */
  async resolve(refs: readonly TaxonomyRef[]): Promise<number[]> {
    await this.loadIds(refs.flatMap((ref) => (ref.id !== undefined && !this.knownIds.has(ref.id) ? [ref.id] : [])));
    await this.loadKeys(refs.filter((ref) => !this.resolvedId(ref)));
    await this.create(refs.filter((ref) => !this.resolvedId(ref)));
    return refs.map((ref) => this.resolvedId(ref) ?? 0);
  }

  private key(ref: { name: string; type?: string | undefined }): string {
    return this.spec.keyColumns.map((column) => (column === 'type' ? (ref.type ?? '') : ref.name)).join('\u0000');
  }

  private resolvedId(ref: TaxonomyRef): number | undefined {
    if (ref.id !== undefined && this.knownIds.has(ref.id)) return ref.id;
    return this.byKey.get(this.key(ref));
  }

  private async loadIds(ids: number[]): Promise<void> {
    if (ids.length === 0) return;
    const rows = await this.tx.query<{ id: number; name: string; type?: string }>(
      `SELECT id, ${this.spec.keyColumns.join(', ')} FROM ${this.spec.table} WHERE id = ANY($1::int[])`,
      [[...new Set(ids)]],
    );
    for (const row of rows) this.remember(row);
  }

  private async loadKeys(refs: TaxonomyRef[]): Promise<void> {
    if (refs.length === 0) return;
    const columns = this.spec.keyColumns;
    const rows = await this.tx.query<{ id: number; name: string; type?: string }>(
      `SELECT t.id, ${columns.map((c) => `t.${c}`).join(', ')} FROM ${this.spec.table} t
         JOIN unnest(${columns.map((_, i) => `$${i + 1}::text[]`).join(', ')}) AS k(${columns.join(', ')})
           ON ${columns.map((c) => `t.${c} = k.${c}`).join(' AND ')}`,
      columns.map((column) => refs.map((ref) => (column === 'type' ? (ref.type ?? '') : ref.name))),
    );
    for (const row of rows) this.remember(row);
  }

  private async create(refs: TaxonomyRef[]): Promise<void> {
    const pending = new Map<string, TaxonomyRef>();
    for (const ref of refs) if (!pending.has(this.key(ref))) pending.set(this.key(ref), ref);
    const list = [...pending.values()];
    const withId = list.filter((ref) => ref.id !== undefined);
    // Explicit ids go first and the sequence is moved past them, so generated ids cannot collide.
    if (withId.length > 0) {
      await this.insert(withId, true);
      await bumpSequence(this.tx, this.spec.table);
    }
    await this.insert(list.filter((ref) => ref.id === undefined), false);
  }

  private async insert(refs: TaxonomyRef[], explicitIds: boolean): Promise<void> {
    if (refs.length === 0) return;
    const columns = this.spec.keyColumns;
    const target = explicitIds ? ['id', ...columns] : [...columns];
    const types = explicitIds ? ['int', ...columns.map(() => 'text')] : columns.map(() => 'text');
    const params: unknown[][] = columns.map((column) =>
      refs.map((ref) => (column === 'type' ? (ref.type ?? '') : ref.name)),
    );
    if (explicitIds) params.unshift(refs.map((ref) => ref.id ?? null));
    const rows = await this.tx.query<{ id: number; name: string; type?: string }>(
      `INSERT INTO ${this.spec.table} (${target.join(', ')})
       SELECT * FROM unnest(${types.map((type, i) => `$${i + 1}::${type}[]`).join(', ')})
       RETURNING id, ${columns.join(', ')}`,
      params,
    );
    for (const row of rows) this.remember(row);
  }

  private remember(row: { id: number; name: string; type?: string }): void {
    this.knownIds.add(row.id);
    this.byKey.set(this.key(row), row.id);
  }
}
