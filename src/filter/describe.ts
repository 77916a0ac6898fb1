// What the registry tells clients (GET /api/filters/{resource}) and the list code (sorting).
import {
  fieldRegistry,
  type FieldType,
  type Operator,
  type OrderByFor,
  type Resource,
  type ValueKind,
} from './fields.ts';

export interface FilterFieldDescription {
  name: string;
  type: FieldType;
  /** Canonical operators; the deprecated `in`/`nin` work wherever `in_any`/`nin_any` are listed. */
  operators: Operator[];
  sortable: boolean;
  /** Whether `eq`/`neq` accept `null`. */
  nullable: boolean;
  /** Where to look up the ids a taxonomy field takes (`?q=` searches by name). */
  values_url?: string;
}

const LOCATION_VALUES_URL = '/api/filters/location/values';

/** Every filterable field of `resource`, `investor__<field>` ones included, in registry order. */
export function describeFilterFields(resource: Resource): FilterFieldDescription[] {
  const registry = fieldRegistry(resource);
  const describe = (prefix: string, resourceOfField: Resource, sortable: boolean) =>
    [...fieldRegistry(resourceOfField).fields.values()].map(
      (field): FilterFieldDescription => ({
        name: `${prefix}${field.name}`,
        type: field.type,
        operators: [...field.operators],
        sortable: sortable && field.target === 'column' && field.sortable,
        nullable: field.nullable,
        ...(field.type === 'location' ? { values_url: LOCATION_VALUES_URL } : {}),
      }),
    );
  return [
    ...describe('', resource, true),
    // A related record's field filters but cannot order: an entity has many investors.
    ...[...registry.relations.values()].flatMap((relation) => describe(`${relation.name}__`, relation.resource, false)),
  ];
}

export interface SortableField<R extends Resource> {
  readonly name: string;
  /** Prisma path to the column, e.g. ['entity', 'name']; also where a row holds the value. */
  readonly path: readonly string[];
  readonly kind: ValueKind;
  /** `nulls` places NULLs of a nullable column (lists pass 'last'); without it PostgreSQL's default applies. */
  readonly nullable: boolean;
  orderBy(direction: 'asc' | 'desc', nulls?: 'first' | 'last'): OrderByFor<R>;
}

// Keyed by the registry itself, so a schema built again (a test's) derives its own.
const sortableCache = new WeakMap<object, ReadonlyMap<string, SortableField<Resource>>>();

/** The fields `sort=` accepts on `resource`, by API name. */
export function sortableFields<R extends Resource>(resource: R): ReadonlyMap<string, SortableField<R>> {
  const registry = fieldRegistry(resource);
  let fields = sortableCache.get(registry);
  if (!fields) {
    const entries: [string, SortableField<Resource>][] = [];
    for (const field of registry.fields.values()) {
      if (field.target !== 'column' || !field.sortable) continue;
      entries.push([field.name, sortableField(field.name, field.path, field.kind, field.nullable)]);
    }
    fields = new Map(entries);
    sortableCache.set(registry, fields);
  }
  return fields as ReadonlyMap<string, SortableField<R>>;
}

function sortableField<R extends Resource>(
  name: string,
  path: readonly [string, ...string[]],
  kind: ValueKind,
  nullable: boolean,
): SortableField<R> {
  const column = path[path.length - 1] as string;
  return Object.freeze({
    name,
    path,
    kind,
    nullable,
    orderBy(direction: 'asc' | 'desc', nulls?: 'first' | 'last'): OrderByFor<R> {
      const order = nullable && nulls ? { sort: direction, nulls } : direction;
      const nested = path.slice(0, -1).reduceRight<object>((inner, key) => ({ [key]: inner }), { [column]: order });
      // Paths come from the registry, whose columns are checked against each model's WhereInput.
      return nested as OrderByFor<R>;
    },
  });
}
