import type { Prisma } from '../db/generated/prisma/client.ts';
import { idList, quantify } from '../filter/fields/build.ts';
import { builder } from './builder.ts';
import { Entity } from './entity.ts';
import { column, follow, followColumn } from './follow.ts';
import { listArgs, listType } from './list.ts';
import { resolveList, type ListDefinition, type RecordDefinition } from './list-query.ts';
import { declareResource } from './resource.ts';

export const NEWS_LIST: ListDefinition<'news'> = {
  resource: 'news',
  typeName: 'NewsArticle',
  maxLimit: 2000,
  defaultSort: '-publish_date',
};

export const NEWS_RECORD: RecordDefinition = { where: (id) => ({ id }) };

export const NEWS = declareResource({
  name: 'news',
  replicaReads: true,
  description: 'News articles and the entities they mention.',
  read: 'read:news',
  filter: 'news',
  filters: {
    refs: ['news'],
    fields: [idList('entities', (q, id): Prisma.NewsArticleWhereInput => ({ entities: quantify(q, { entity_id: id }) }))],
    // Every entity the article mentions.
    groupings: [{ name: 'entities', path: ['entities', 'entity'], resource: 'entities' }],
  },
  lists: [NEWS_LIST],
  rest: [
    { method: 'GET', path: '/api/news', operation: 'ListNews', kind: 'list' },
    { method: 'GET', path: '/api/news/{id}', operation: 'GetNews', kind: 'record', noun: 'News article' },
  ],
});

/** An entity as a news article mentions it (spec: News article.entities). */
const NewsEntity = builder.prismaObject('NewsEntity', {
  select: { entity_id: true },
  fields: (t) => ({
    id: t.int(column('entity_id', { example: 1042 })),
    name: t.string(followColumn(['entity'], 'name', { example: 'Solaris' })),
    mention_role: t.string(column('mention_role', { example: 'subject' })),
    is_primary: t.boolean(column('is_primary', { example: true })),
    sector: t.string(column('sector', { example: 'Fintech' })),
    hq_country: t.string(followColumn(['entity'], 'hq_country', { example: 'Germany' })),
    entity: t.field({ type: Entity, ...follow(['entity'], { record: false }) }),
  }),
});

export const NewsArticle = builder.prismaObject('NewsArticle', {
  extensions: NEWS.owns(),
  // Only the queried fields are read: each exposed field adds its column to the selection.
  select: { id: true },
  fields: (t) => ({
    id: t.int(column('id', { example: 1116 })),
    url: t.string(column('url', { example: 'https://news.example.org/solaris-raises' })),
    title: t.string(column('title', { example: 'Solaris raises a Series D' })),
    summary: t.string(column('summary', { example: 'The Berlin banking-as-a-service company raised new money.' })),
    image_url: t.string(column('image_url', { example: '' })),
    source: t.string(column('source', { example: 'Example News' })),
    article_type: t.string(column('article_type', { example: 'funding' })),
    publish_date: t.field({ type: 'DateTime', ...column('publish_date', { example: '2021-06-01T08:00:00.000Z' }) }),
    language: t.string(column('language', { example: 'en' })),
    // The spec types it as a string; it is stored as a number so filters compare it as one.
    amount_usd: t.string({ nullable: true, ...followColumn([], 'amount_usd', { asText: true, example: '190000000' }) }),
    round_type: t.string(column('round_type', { example: 'series_d' })),
    deal_date: t.field({ type: 'Date', nullable: true, ...column('deal_date', { example: '2021-05-31' }) }),
    sector: t.string(column('sector', { example: 'Fintech' })),
    hq_country: t.string(column('hq_country', { example: 'Germany' })),
    enriched_summary: t.string(column('enriched_summary', { example: '' })),
    relevance_score: t.float(column('relevance_score', { example: 0.92 })),
    hub_score: t.float(column('hub_score', { example: 0.4 })),
    entities: t.field({
      type: [NewsEntity],
      ...follow([['entities', { orderBy: [{ is_primary: 'desc' }, { entity_id: 'asc' }] }]]),
    }),
  }),
});

builder.prismaObjectField('Entity', 'news', (t) =>
  t.field({ type: [NewsArticle], ...follow([['news', { orderBy: { news_id: 'desc' } }], 'news'], { record: false }) }),
);

const NewsList = listType('NewsArticle', NewsArticle);

builder.queryFields((t) => ({
  news: t.field({
    extensions: { ...NEWS.reads, list: NEWS_LIST },
    type: NewsList,
    args: listArgs,
    resolve: (_root, args, context, info) =>
      resolveList(NEWS_LIST, args, context, info, {
        findMany: (query) => context.prisma.newsArticle.findMany(query),
        count: (query) => context.prisma.newsArticle.count(query),
      }),
  }),
  news_article: t.prismaField({
    extensions: { ...NEWS.reads, record: NEWS_RECORD },
    type: NewsArticle,
    nullable: true,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, context) => context.prisma.newsArticle.findFirst({ ...query, where: NEWS_RECORD.where(args.id) }),
  }),
}));
