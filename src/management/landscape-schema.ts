/**
 * Landscapes over GraphQL: ordered, hand-picked entity lists inside an ecosystem. Their access is the
 * ecosystems' (read:ecosystems / write:ecosystems); the entity summaries they carry come with them.
 * The rules live in src/management/landscapes.ts.
 */
import { requireEcosystemId, ECOSYSTEM_SLUG } from './ecosystems.ts';
import { definedOnly } from './records.ts';
import {
  createLandscape,
  deleteLandscape,
  LANDSCAPE_LIST_MAX_LIMIT,
  parseEntityIds,
  parseLandscapeInput,
  replaceLandscapeEntities,
  VISIBLE_LANDSCAPE,
  LANDSCAPE_CREATE,
  LANDSCAPE_ENTITY_IDS,
} from './landscapes.ts';
import { builder } from '../schema/builder.ts';
import { example } from '../schema/field-facts.ts';
import { listType } from '../schema/list.ts';
import { resolvePagedList } from '../schema/list-query.ts';
import { declareResource } from '../schema/resource.ts';

export const LANDSCAPES = declareResource({
  name: 'landscapes',
  description: 'Ordered, hand-picked entity lists inside an ecosystem.',
  read: 'read:ecosystems',
  write: 'write:ecosystems',
  tenant: { Landscape: { through: 'ecosystem' }, LandscapeEntity: { through: 'landscape' } },
  lists: [{ typeName: 'Landscape', maxLimit: LANDSCAPE_LIST_MAX_LIMIT }],
  rest: [
    {
      method: 'GET',
      path: '/api/ecosystems/{ecosystem}/landscapes',
      operation: 'ListLandscapes',
      kind: 'page',
      textParams: { ecosystem: ECOSYSTEM_SLUG },
    },
    {
      method: 'POST',
      path: '/api/ecosystems/{ecosystem}/landscapes',
      operation: 'CreateLandscape',
      kind: 'created',
      noun: 'Landscape',
      textParams: { ecosystem: ECOSYSTEM_SLUG },
      body: (body) => parseLandscapeInput(body, 'body'),
      bodySchema: LANDSCAPE_CREATE,
    },
    { method: 'GET', path: '/api/landscapes/{id}', operation: 'GetLandscape', kind: 'record', noun: 'Landscape' },
    {
      method: 'PUT',
      path: '/api/landscapes/{id}/entities',
      operation: 'SetLandscapeEntities',
      kind: 'record',
      noun: 'Landscape',
      body: (body) => ({ entity_ids: parseEntityIds(body, 'body') }),
      bodySchema: LANDSCAPE_ENTITY_IDS,
    },
    { method: 'DELETE', path: '/api/landscapes/{id}', operation: 'DeleteLandscape', kind: 'deleted' },
  ],
});

interface EntitySummary {
  id: number;
  name: string;
  tagline: string;
  image: string;
}

const LandscapeEntity = builder.objectRef<EntitySummary>('LandscapeEntity').implement({
  extensions: LANDSCAPES.owns(),
  description: 'An entity as a landscape shows it',
  fields: (t) => ({
    id: t.exposeInt('id', example(1042)),
    name: t.exposeString('name', example('Solaris')),
    tagline: t.exposeString('tagline', example('Banking as a service')),
    image: t.exposeString('image', example('')),
  }),
});

export const Landscape = builder.prismaObject('Landscape', {
  extensions: LANDSCAPES.owns(),
  description: 'An ordered list of entities inside an ecosystem',
  select: { id: true },
  fields: (t) => ({
    id: t.exposeInt('id', example(3)),
    ecosystem_id: t.exposeInt('ecosystem_id', example(14)),
    name: t.exposeString('name', example('Payments')),
    description: t.exposeString('description', example('Payment infrastructure')),
    sort_order: t.exposeInt('sort_order', example(1)),
    entities: t.field({
      type: [LandscapeEntity],
      description: 'In the curated order; soft-deleted entities are left out',
      select: {
        entities: {
          where: { entity: { deleted_at: null } },
          orderBy: { position: 'asc' },
          select: { entity: { select: { id: true, name: true, tagline: true, image: true } } },
        },
      },
      resolve: (landscape) => landscape.entities.map((link) => link.entity),
    }),
  }),
});

const LandscapeList = listType('Landscape', Landscape);

const ECOSYSTEM_ARG = { required: true, description: 'The ecosystem id (all digits), or its slug' } as const;

builder.queryFields((t) => ({
  landscapes: t.field({
    type: LandscapeList,
    extensions: LANDSCAPES.reads,
    description: "An ecosystem's landscapes, by sort_order then id",
    args: { ecosystem: t.arg.string(ECOSYSTEM_ARG), limit: t.arg.int(), offset: t.arg.int() },
    resolve: (_root, args, context, info) =>
      resolvePagedList(
        {
          typeName: 'Landscape',
          maxLimit: LANDSCAPE_LIST_MAX_LIMIT,
          where: async () => ({
            ecosystem_id: await requireEcosystemId(context.prisma, args.ecosystem),
          }),
          findMany: (query) => context.prisma.landscape.findMany({ ...query, orderBy: [{ sort_order: 'asc' }, { id: 'asc' }] }),
          count: (query) => context.prisma.landscape.count(query),
        },
        args,
        context,
        info,
      ),
  }),
  landscape: t.prismaField({
    type: Landscape,
    nullable: true,
    extensions: LANDSCAPES.reads,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, context) =>
      context.prisma.landscape.findFirst({ ...query, where: { id: args.id, ...VISIBLE_LANDSCAPE } }),
  }),
}));

builder.mutationFields((t) => ({
  createLandscape: t.prismaField({
    type: Landscape,
    extensions: LANDSCAPES.writes,
    args: {
      ecosystem: t.arg.string(ECOSYSTEM_ARG),
      name: t.arg.string({ required: true }),
      description: t.arg.string(),
      sort_order: t.arg.int(),
    },
    resolve: async (query, _root, { ecosystem, ...args }, context) => {
      const input = parseLandscapeInput(definedOnly(args), '');
      const ecosystemId = await requireEcosystemId(context.prisma, ecosystem);
      const id = await createLandscape(context.prisma, ecosystemId, input);
      return context.prisma.landscape.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  setLandscapeEntities: t.prismaField({
    type: Landscape,
    extensions: LANDSCAPES.writes,
    description: 'Replaces the whole entity list, in the order given; duplicates count once, at their first place',
    args: { id: t.arg.int({ required: true }), entity_ids: t.arg.intList({ required: true }) },
    resolve: async (query, _root, args, context) => {
      const entityIds = parseEntityIds({ entity_ids: args.entity_ids }, '');
      await replaceLandscapeEntities(context.prisma, args.id, entityIds, 'entity_ids');
      return context.prisma.landscape.findUniqueOrThrow({ ...query, where: { id: args.id } });
    },
  }),
  deleteLandscape: t.boolean({
    extensions: LANDSCAPES.writes,
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, context) => {
      await deleteLandscape(context.prisma, args.id);
      return true;
    },
  }),
}));
