import { z } from 'zod';
import { FILTER_LIMITS } from '../filter/index.ts';
import { builder } from './builder.ts';
import { ENTITY_FILTERS, EXTERNAL_ID_FILTER, WEBSITE_FILTER } from './entity-filters.ts';
import { column, follow } from './follow.ts';
import { Founder } from './founder.ts';
import { listArgs, listType } from './list.ts';
import { resolveList, type ListDefinition, type RecordDefinition } from './list-query.ts';
import { declareResource } from './resource.ts';
import { Tag } from './tag.ts';

export const ENTITY_LIST: ListDefinition<'entities'> = {
  resource: 'entities',
  typeName: 'Entity',
  maxLimit: 500,
  defaultSort: 'id',
  // Soft-deleted entities stay hidden unless the filter asks about deletion (sync clients do).
  scope: (filter) => (filter.namesField('deleted_at') ? undefined : { deleted_at: null }),
};

export const ENTITY_RECORD: RecordDefinition = {
  where: (id) => ({ id, deleted_at: null }),
};

/** How many similar companies one request may ask for (src/compile/similar-schema.ts). */
export const SIMILAR_LIMIT = { default: 10, max: 100 } as const;

export const ENTITIES = declareResource({
  name: 'entities',
  replicaReads: true,
  description: 'Companies, investors, universities and other organisations.',
  read: 'read:entities',
  filter: 'entities',
  filters: ENTITY_FILTERS,
  lists: [ENTITY_LIST],
  rest: [
    { method: 'GET', path: '/api/entities', operation: 'ListEntities', kind: 'list' },
    { method: 'GET', path: '/api/entities/{id}', operation: 'GetEntity', kind: 'record', noun: 'Entity' },
    // Answered by src/compile/similar-schema.ts, which adds its root field.
    {
      method: 'GET',
      path: '/api/entities/{id}/similar',
      operation: 'SimilarEntities',
      kind: 'ranking',
      query: [
        { name: 'limit', type: 'integer' },
        { name: 'filter', type: 'string' },
      ],
      // Their bounds, as the resolver checks them, for the OpenAPI document.
      querySchema: z.object({
        limit: z.number().int().min(1).max(SIMILAR_LIMIT.max).optional(),
        filter: z.string().max(FILTER_LIMITS.maxLength).optional(),
      }),
    },
  ],
});

/** An entity's id in another system (CrunchBase permalink, LinkedIn, Wikidata, LEI...): src/identifiers/external-ids.ts. */
export const ExternalId = builder.prismaObject('EntityExternalId', {
  name: 'ExternalId',
  select: { source: true, external_id: true },
  fields: (t) => ({
    source: t.string(column('source', { example: 'crunchbase' })),
    id: t.string(column('external_id', { example: 'solaris-bank' })),
  }),
});

/**
 * A field is declared once, here: its type, its column (or path), and its facts (src/schema/field-facts.ts).
 * The REST record, `fields=`, filters and sorting, GET /api/filters/entities, the OpenAPI document,
 * CSV and exports, aggregates, the importer and MCP derive from it (docs/adding-a-field.md).
 */
export const Entity = builder.prismaObject('Entity', {
  extensions: ENTITIES.owns(['id', 'name']),
  // Only the queried fields are read: each exposed field adds its column to the selection.
  select: { id: true },
  fields: (t) => ({
    id: t.int(column('id', { example: 1042 })),
    uuid: t.string(column('uuid', { example: '5b1c2f4e-8a3d-4c1e-9f2a-7d6e5c4b3a21' })),
    type: t.string(column('type', { example: 'company' })),
    is_company: t.boolean(column('is_company', { example: true })),
    is_investor: t.boolean(column('is_investor', { example: false })),
    is_university: t.boolean(column('is_university', { example: false })),
    is_crowdfunding: t.boolean(column('is_crowdfunding', { example: false })),
    is_government: t.boolean(column('is_government', { example: false })),
    is_non_profit: t.boolean(column('is_non_profit', { example: false })),
    is_founder: t.boolean(column('is_founder', { example: false })),
    name: t.string(column('name', { example: 'Solaris' })),
    tagline: t.string(column('tagline', { example: 'Banking as a service' })),
    image: t.string(column('image', { example: 'https://images.example.org/solaris.png' })),
    platform_url: t.string(column('platform_url', { example: 'https://platform.example.org/entities/solaris' })),
    website: t.string({
      description: 'The website as given ("" when unknown); filters compare its normalised domain.',
      ...column('website', { example: 'https://www.solarisgroup.com', filter: WEBSITE_FILTER }),
    }),
    external_ids: t.field({
      type: [ExternalId],
      description: 'Ids of the entity in other systems, ordered by source then id.',
      ...follow([['external_ids', { orderBy: [{ source: 'asc' }, { external_id: 'asc' }] }]], { filter: EXTERNAL_ID_FILTER }),
    }),
    launch_year: t.int({ nullable: true, ...column('launch_year', { example: 2016 }) }),
    hq_country: t.string(column('hq_country', { example: 'Germany' })),
    hq_city: t.string(column('hq_city', { example: 'Berlin' })),
    lat: t.float({ nullable: true, ...column('lat', { example: 52.52 }) }),
    lon: t.float({ nullable: true, ...column('lon', { example: 13.405 }) }),
    created_at: t.field({ type: 'DateTime', ...column('created_at', { example: '2026-01-15T09:30:00.000Z' }) }),
    updated_at: t.field({ type: 'DateTime', ...column('updated_at', { example: '2026-03-02T17:05:00.000Z' }) }),
    deleted_at: t.field({ type: 'DateTime', nullable: true, ...column('deleted_at', { example: null }) }),
    tags: t.field({ type: [Tag], ...follow([['tags', { orderBy: { tag_id: 'asc' } }], 'tag']) }),
    founders: t.field({
      type: [Founder],
      ...follow([['founder_roles', { where: { is_founder: true }, orderBy: { founder_id: 'asc' } }], 'founder']),
    }),
    // GraphQL-only: the derived figures filters use. Relations to rounds, valuations, news and
    // investors are added by those resources' files (prismaObjectField), next to their types.
    total_funding_usd: t.field({ type: 'Money', ...column('total_funding_usd', { record: false }) }),
    is_unicorn: t.boolean(column('is_unicorn', { record: false })),
  }),
});

// Declared here, not with FounderCompany in founder.ts, which entity.ts imports: the types would refer to each other.
builder.prismaObjectField('FounderCompany', 'entity', (t) => t.field({ type: Entity, ...follow(['entity'], { record: false }) }));

export const EntityList = listType('Entity', Entity);

builder.queryFields((t) => ({
  entities: t.field({
    extensions: { ...ENTITIES.reads, list: ENTITY_LIST },
    type: EntityList,
    args: listArgs,
    resolve: (_root, args, context, info) =>
      resolveList(ENTITY_LIST, args, context, info, {
        findMany: (query) => context.prisma.entity.findMany(query),
        count: (query) => context.prisma.entity.count(query),
      }),
  }),
  entity: t.prismaField({
    extensions: { ...ENTITIES.reads, record: ENTITY_RECORD },
    type: Entity,
    nullable: true,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, context) =>
      context.prisma.entity.findFirst({ ...query, where: ENTITY_RECORD.where(args.id) }),
  }),
}));
