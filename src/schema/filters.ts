/**
 * What clients can filter and sort on, read from the filter registry (the same one that checks
 * filters), and the look-up of location ids that `location` / `location_country` filters take.
 */
import { ANY_CALLER } from '../auth/permissions.ts';
import { aggregateUses } from '../filter/aggregate-vocabulary.ts';
import { describeFilterFields, isResource, RESOURCES, type FilterFieldDescription, type Resource } from '../filter/index.ts';
import { AppError, validationError } from '../errors.ts';
import { builder } from './builder.ts';
import { accessRule, declareResource, readPermissionByFilter, replicaReads } from './resource.ts';

export const LOCATION_LOOKUP_MAX_LIMIT = 100;

// Filter descriptions and location names hold no records: reference data any caller may read.
export const FILTERS = declareResource({
  name: 'filters',
  replicaReads: true,
  description: 'What each list can be filtered and sorted by, and the location look-up for `location:` filters.',
  read: ANY_CALLER,
  lists: [{ typeName: 'Location', maxLimit: LOCATION_LOOKUP_MAX_LIMIT }],
  rest: [
    {
      method: 'GET',
      path: '/api/filters/location/values',
      operation: 'ListLocations',
      kind: 'items',
      query: [
        { name: 'q', type: 'string' },
        { name: 'limit', type: 'integer' },
      ],
    },
    { method: 'GET', path: '/api/filters/{resource}', operation: 'ListFilterFields', kind: 'items', textParams: { resource: /^.+$/ } },
  ],
});

type FieldDescription = FilterFieldDescription & { group_by: string[]; metrics: string[] };

/**
 * Every field a filter, a sort or an aggregate of the resource names: the filterable ones (with how
 * aggregates use them), then the related records' fields aggregates group by (`tags.name`), which no
 * filter takes (no operators).
 */
function describeFields(resource: Resource): FieldDescription[] {
  const uses = aggregateUses(resource);
  const filterable = describeFilterFields(resource).map((field) => {
    const use = uses.get(field.name);
    uses.delete(field.name);
    return { ...field, group_by: use?.group_by ?? [], metrics: use?.metrics ?? [] };
  });
  const groupOnly = [...uses].map(([name, { field, group_by, metrics }]): FieldDescription => ({
    name,
    type: field.type,
    operators: [],
    sortable: false,
    nullable: field.nullable,
    group_by,
    metrics,
  }));
  return [...filterable, ...groupOnly];
}

const FilterField = builder.objectRef<FieldDescription>('FilterField').implement({
  extensions: FILTERS.owns(),
  description: 'A field the filter expression (when it has operators), `sort` (when sortable) and the aggregates accept',
  fields: (t) => ({
    name: t.exposeString('name'),
    type: t.exposeString('type', { description: 'int, number, money, bool, string, date, datetime, id_list or location' }),
    operators: t.exposeStringList('operators'),
    sortable: t.exposeBoolean('sortable'),
    nullable: t.exposeBoolean('nullable', { description: 'Whether `eq`/`neq` accept `null`' }),
    values_url: t.exposeString('values_url', { nullable: true, description: 'Where to look up the ids it takes' }),
    group_by: t.exposeStringList('group_by', {
      description: "The aggregates' `group_by` dimensions it gives, e.g. `date`, `date:year`, `amount_usd:bucket(<width>)`; empty if none",
    }),
    metrics: t.exposeStringList('metrics', {
      description: 'The aggregate metrics that take it (`count_distinct`, `sum`, `avg`, `min`, `max`, `median`, `pNN`); empty if none',
    }),
  }),
});

const Location = builder.prismaObject('Location', {
  extensions: FILTERS.owns(),
  // Only the queried fields are read: each exposed field adds its column to the selection.
  select: { id: true },
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    kind: t.exposeString('kind', { description: 'country or city' }),
    country: t.string({
      nullable: true,
      description: "A city's country",
      select: { parent: { select: { name: true } } },
      resolve: (location) => location.parent?.name ?? null,
    }),
  }),
});

builder.queryFields((t) => ({
  filters: t.field({
    type: [FilterField],
    args: { resource: t.arg.string({ required: true }) },
    // Describing a resource's filter needs the permission that reads the resource; an unknown resource is the resolver's 404, not a 403.
    extensions: { ...accessRule({ argument: 'resource', byValue: readPermissionByFilter(), otherwise: ANY_CALLER }), ...replicaReads },
    resolve: (_root, { resource }) => {
      if (!isResource(resource)) {
        throw new AppError('NOT_FOUND', `No filterable resource '${resource}'; resources: ${RESOURCES.join(', ')}`);
      }
      return describeFields(resource);
    },
  }),
  locations: t.prismaField({
    type: [Location],
    extensions: FILTERS.reads,
    description:
      'Countries and cities whose name starts with `q` (case-insensitive), the ones most entities use first',
    args: { q: t.arg.string(), limit: t.arg.int() },
    resolve: (query, _root, args, context) => {
      const limit = args.limit ?? 25;
      if (!Number.isInteger(limit) || limit < 1 || limit > LOCATION_LOOKUP_MAX_LIMIT) {
        throw validationError([{ path: 'limit', message: `must be an integer from 1 to ${LOCATION_LOOKUP_MAX_LIMIT}` }]);
      }
      const q = args.q?.trim();
      return context.prisma.location.findMany({
        ...query,
        // Prisma leaves LIKE's wildcards in the pattern: escaped, `%` and `_` match only themselves.
        where: q ? { name: { startsWith: q.replace(/[\\%_]/g, (char) => `\\${char}`), mode: 'insensitive' } } : {},
        // entity_count is derived (src/data/derived.ts); 'country' sorts after 'city', hence desc.
        orderBy: [{ entity_count: 'desc' }, { kind: 'desc' }, { name: 'asc' }, { id: 'asc' }],
        take: limit,
      });
    },
  }),
}));
