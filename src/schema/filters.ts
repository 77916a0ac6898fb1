/**
 * What clients can filter and sort on, read from the filter registry (the same one that checks
 * filters), and the look-up of location ids that `location` / `location_country` filters take.
 */
import { describeFilterFields, isResource, RESOURCES } from '../filter/index.ts';
import { AppError, validationError } from '../errors.ts';
import { builder } from './builder.ts';

const FilterField = builder.objectRef<ReturnType<typeof describeFilterFields>[number]>('FilterField').implement({
  description: 'A field the filter expression (and, when sortable, `sort`) accepts',
  fields: (t) => ({
    name: t.exposeString('name'),
    type: t.exposeString('type', { description: 'int, number, money, bool, string, date, datetime, id_list or location' }),
    operators: t.exposeStringList('operators'),
    sortable: t.exposeBoolean('sortable'),
    nullable: t.exposeBoolean('nullable', { description: 'Whether `eq`/`neq` accept `null`' }),
    values_url: t.exposeString('values_url', { nullable: true, description: 'Where to look up the ids it takes' }),
  }),
});

const Location = builder.prismaObject('Location', {
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

export const LOCATION_LOOKUP_MAX_LIMIT = 100;

builder.queryFields((t) => ({
  filters: t.field({
    type: [FilterField],
    args: { resource: t.arg.string({ required: true }) },
    resolve: (_root, { resource }) => {
      if (!isResource(resource)) {
        throw new AppError('NOT_FOUND', `No filterable resource '${resource}'; resources: ${RESOURCES.join(', ')}`);
      }
      return describeFilterFields(resource);
    },
  }),
  locations: t.prismaField({
    type: [Location],
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
