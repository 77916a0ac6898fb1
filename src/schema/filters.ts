/**
 * What clients can filter and sort on, read from the filter registry (the same one that checks
 * filters), and the look-up of location ids that `location` / `location_country` filters take.
 */
import { describeFilterFields, isResource, RESOURCES } from '../filter/index.ts';
import { AppError, validationError } from '../errors.ts';
import { builder } from './builder.ts';
import type { GraphQLContext } from './context.ts';

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

/**
 * Ids of the locations whose name starts with `prefix`, ranked by how many entities (not deleted) have
 * them as HQ country or city, so `San` offers San Francisco before San Marino; ties: countries, then
 * name. Prisma cannot order by a sum of two relation counts, hence the SQL: one pass over the entities
 * of the matched locations (a hash join when the prefix matches many, index scans when few), where a
 * count per location took seconds on an empty prefix.
 */
async function rankedLocationIds(prisma: GraphQLContext['prisma'], prefix: string, limit: number): Promise<number[]> {
  const pattern = `${prefix.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
  const rows = await prisma.$queryRaw<{ id: number }[]>`
    WITH matched AS (SELECT id, kind, name FROM locations WHERE name ILIKE ${pattern}),
    uses AS (
      SELECT e.country_location_id AS id FROM entities e
       WHERE e.country_location_id IN (SELECT id FROM matched) AND e.deleted_at IS NULL
      UNION ALL
      SELECT e.city_location_id FROM entities e
       WHERE e.city_location_id IN (SELECT id FROM matched) AND e.deleted_at IS NULL
    )
    SELECT m.id FROM matched m LEFT JOIN (SELECT id, count(*) AS n FROM uses GROUP BY id) u ON u.id = m.id
     ORDER BY COALESCE(u.n, 0) DESC, m.kind DESC, m.name, m.id
     LIMIT ${limit}`;
  return rows.map((row) => row.id);
}

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
    resolve: async (query, _root, args, context) => {
      const limit = args.limit ?? 25;
      if (!Number.isInteger(limit) || limit < 1 || limit > LOCATION_LOOKUP_MAX_LIMIT) {
        throw validationError([{ path: 'limit', message: `must be an integer from 1 to ${LOCATION_LOOKUP_MAX_LIMIT}` }]);
      }
      const ids = await rankedLocationIds(context.prisma, args.q?.trim() ?? '', limit);
      const rows = await context.prisma.location.findMany({ ...query, where: { id: { in: ids } } });
      const byId = new Map(rows.map((row) => [row.id, row]));
      return ids.flatMap((id) => byId.get(id) ?? []);
    },
  }),
}));
