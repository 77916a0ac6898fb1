/**
 * Ecosystems over GraphQL (REST rows map onto these fields): the organisation's curated entity
 * filters, and the entities each one selects. The rules live in src/management/ecosystems.ts.
 */
import { requirePrincipal } from '../auth/principal.ts';
import { compileFilter, type WhereFor } from '../filter/index.ts';
import { definedOnly } from './records.ts';
import {
  createEcosystem,
  deleteEcosystem,
  ECOSYSTEM_LIST_MAX_LIMIT,
  ECOSYSTEM_SLUG,
  findEcosystemId,
  parseEcosystemInput,
  parseEcosystemPatch,
  requireEcosystemId,
  updateEcosystem,
  ECOSYSTEM_CREATE,
  ECOSYSTEM_UPDATE,
} from './ecosystems.ts';
import { builder } from '../schema/builder.ts';
import { example, FACTS } from '../schema/field-facts.ts';
import { ENTITY_LIST, EntityList } from '../schema/entity.ts';
import { listArgs, listType } from '../schema/list.ts';
import { resolveList, resolvePagedList, type ListDefinition, type ListFor } from '../schema/list-query.ts';
import { declareResource, replicaReads } from '../schema/resource.ts';

const KEY = { id: ECOSYSTEM_SLUG };

export const ECOSYSTEMS = declareResource({
  name: 'ecosystems',
  description: 'Curated entity views: a named, stored filter over entities, with its matching entities.',
  read: 'read:ecosystems',
  write: 'write:ecosystems',
  tenant: { Ecosystem: { column: 'org_id' }, EcosystemMember: { through: 'ecosystem' }, EcosystemMembership: { through: 'ecosystem' } },
  lists: [{ typeName: 'Ecosystem', maxLimit: ECOSYSTEM_LIST_MAX_LIMIT }],
  rest: [
    { method: 'GET', path: '/api/ecosystems', operation: 'ListEcosystems', kind: 'page' },
    { method: 'GET', path: '/api/ecosystems/{id}', operation: 'GetEcosystem', kind: 'record', noun: 'Ecosystem', textParams: KEY },
    {
      method: 'POST',
      path: '/api/ecosystems',
      operation: 'CreateEcosystem',
      kind: 'created',
      noun: 'Ecosystem',
      body: (body) => parseEcosystemInput(body, 'body'),
      bodySchema: ECOSYSTEM_CREATE,
    },
    {
      method: 'PATCH',
      path: '/api/ecosystems/{id}',
      operation: 'UpdateEcosystem',
      kind: 'record',
      noun: 'Ecosystem',
      textParams: KEY,
      body: (body) => parseEcosystemPatch(body, 'body'),
      bodySchema: ECOSYSTEM_UPDATE,
    },
    { method: 'DELETE', path: '/api/ecosystems/{id}', operation: 'DeleteEcosystem', kind: 'deleted', textParams: KEY },
    {
      method: 'GET',
      path: '/api/ecosystems/{ecosystem}/entities',
      operation: 'ListEcosystemEntities',
      kind: 'list',
      textParams: { ecosystem: ECOSYSTEM_SLUG },
    },
  ],
});

const PartnerLogo = builder.objectRef<{ name: string; url: string; image_url: string }>('PartnerLogo').implement({
  fields: (t) => ({
    name: t.exposeString('name', example('Example Ventures')),
    url: t.exposeString('url', example('https://ventures.example.org')),
    image_url: t.exposeString('image_url', example('')),
  }),
});

export const Ecosystem = builder.prismaObject('Ecosystem', {
  extensions: ECOSYSTEMS.owns(),
  description: 'A curated view of the entities: a stored filter with a name, belonging to one organisation',
  select: { id: true },
  fields: (t) => ({
    id: t.exposeInt('id', example(14)),
    slug: t.exposeString('slug', example('berlin-fintech')),
    name: t.exposeString('name', example('Berlin fintech')),
    description: t.exposeString('description', example('Financial technology companies based in Berlin')),
    filter: t.exposeString('filter', { description: 'A filter expression over entities', ...example('and(hq_city:Berlin, tags[in_any]:12)') }),
    region: t.exposeString('region', example('Berlin')),
    image_url: t.exposeString('image_url', example('')),
    partner_logos: t.field({
      type: [PartnerLogo],
      select: { partner_logos: true },
      resolve: (ecosystem) => ecosystem.partner_logos as { name: string; url: string; image_url: string }[],
    }),
    tabs_config: t.expose('tabs_config', {
      type: 'JSON',
      description: 'Free-form display settings',
      // Always an object (the input refuses anything else): what the OpenAPI record says, not "any JSON".
      extensions: { jsonSchema: { type: 'object', additionalProperties: {} }, [FACTS]: { example: { default_tab: 'companies' } } },
    }),
    is_active: t.exposeBoolean('is_active', example(true)),
    sort_order: t.exposeInt('sort_order', example(0)),
  }),
});

const EcosystemList = listType('Ecosystem', Ecosystem);

/** The fields of a create (slug, name and filter required) or of a patch (nothing required). */
const ecosystemArgs = (required: boolean) =>
  builder.args((t) => ({
    slug: t.string({ required, description: 'Lowercase letters, digits and hyphens, not all digits; unique in the organisation' }),
    name: t.string({ required }),
    filter: t.string({ required, description: 'A filter expression over entities, e.g. `hq_country:Germany`' }),
    description: t.string(),
    region: t.string(),
    image_url: t.string({ description: 'An http or https URL, or empty' }),
    partner_logos: t.field({ type: 'JSON', description: 'An array of {name, url, image_url}, URLs http or https (or empty)' }),
    tabs_config: t.field({ type: 'JSON', description: 'A JSON object, stored as sent: at most 16 levels deep, 1,000 values and 64 KiB' }),
    sort_order: t.int(),
  }));

builder.queryFields((t) => ({
  ecosystems: t.field({
    type: EcosystemList,
    extensions: ECOSYSTEMS.reads,
    description: "The organisation's active ecosystems, by sort_order then id",
    args: { limit: t.arg.int(), offset: t.arg.int() },
    resolve: (_root, args, context, info) =>
      resolvePagedList(
        {
          typeName: 'Ecosystem',
          maxLimit: ECOSYSTEM_LIST_MAX_LIMIT,
          where: () => ({ is_active: true }),
          findMany: (query) => context.prisma.ecosystem.findMany({ ...query, orderBy: [{ sort_order: 'asc' }, { id: 'asc' }] }),
          count: (query) => context.prisma.ecosystem.count(query),
        },
        args,
        context,
        info,
      ),
  }),
  ecosystem: t.prismaField({
    type: Ecosystem,
    nullable: true,
    extensions: ECOSYSTEMS.reads,
    description: 'An active ecosystem by id or slug',
    args: { id: t.arg.string({ required: true, description: 'The id (all digits), or the slug' }) },
    resolve: async (query, _root, args, context) => {
      const id = await findEcosystemId(context.prisma, args.id);
      return id === null ? null : context.prisma.ecosystem.findUnique({ ...query, where: { id } });
    },
  }),
  ecosystemEntities: t.field({
    type: EntityList,
    // Entities' own fields also need read:entities (the Entity type says so). The compiled reads
    // (src/compile) find the list the way the resolver does: `listFor`.
    extensions: { ...ECOSYSTEMS.reads, listFor: ecosystemEntityList, ...replicaReads },
    description: "The entities the ecosystem's stored filter selects; a `filter` given here is ANDed to it",
    args: { ecosystem: t.arg.string({ required: true, description: 'The id (all digits), or the slug' }), ...listArgs },
    resolve: async (_root, args, context, info) =>
      resolveList(await ecosystemEntityList(args, context), args, context, info, {
        findMany: (query) => context.prisma.entity.findMany(query),
        count: (query) => context.prisma.entity.count(query),
      }),
  }),
}));

/** The entity list of the caller's ecosystem named by `args.ecosystem` (404 when there is none). */
export const ecosystemEntityList: ListFor<'entities'> = async (args, context) => {
  const id = await requireEcosystemId(context.prisma, args.ecosystem as string);
  const { filter } = await context.prisma.ecosystem.findUniqueOrThrow({ where: { id }, select: { filter: true } });
  return withinEcosystem(filter);
};

/** The entity list, narrowed to what the stored filter selects. */
function withinEcosystem(storedFilter: string): ListDefinition<'entities'> {
  const stored = compileFilter('entities', storedFilter);
  return {
    ...ENTITY_LIST,
    scopeReaches: stored.relatedResources,
    scope: (filter) => {
      // A stored filter about deletion shows deleted entities, as a client's filter does.
      const hidden = stored.namesField('deleted_at') ? undefined : ENTITY_LIST.scope?.(filter);
      const parts = [stored.where, hidden].filter((part): part is WhereFor<'entities'> => part !== undefined);
      return parts.length > 1 ? { AND: parts } : parts[0];
    },
  };
}

builder.mutationFields((t) => ({
  createEcosystem: t.prismaField({
    type: Ecosystem,
    extensions: ECOSYSTEMS.writes,
    args: ecosystemArgs(true),
    resolve: async (query, _root, args, context) => {
      const input = parseEcosystemInput(definedOnly(args), '');
      const { id } = await createEcosystem(context.prisma, requirePrincipal(context.principal), input);
      return context.prisma.ecosystem.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  updateEcosystem: t.prismaField({
    type: Ecosystem,
    extensions: ECOSYSTEMS.writes,
    description: 'Changes the fields given; the others keep their values',
    args: { id: t.arg.string({ required: true, description: 'The id (all digits), or the slug' }), ...ecosystemArgs(false) },
    resolve: async (query, _root, { id: key, ...args }, context) => {
      const patch = parseEcosystemPatch(definedOnly(args), '');
      const { id } = await updateEcosystem(context.prisma, key, patch);
      return context.prisma.ecosystem.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  deleteEcosystem: t.boolean({
    extensions: ECOSYSTEMS.writes,
    description: 'Deactivates the ecosystem: it is then not found and leaves the list',
    args: { id: t.arg.string({ required: true, description: 'The id (all digits), or the slug' }) },
    resolve: async (_root, args, context) => {
      await deleteEcosystem(context.prisma, args.id);
      return true;
    },
  }),
}));
