import { builder } from './builder.ts';
import { follow, followColumn } from './follow.ts';
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
  read: 'read:news',
  filter: 'news',
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
    id: t.exposeInt('entity_id'),
    name: t.string(followColumn(['entity'], 'name')),
    mention_role: t.exposeString('mention_role'),
    is_primary: t.exposeBoolean('is_primary'),
    sector: t.exposeString('sector'),
    hq_country: t.string(followColumn(['entity'], 'hq_country')),
    entity: t.relation('entity'),
  }),
});

export const NewsArticle = builder.prismaObject('NewsArticle', {
  extensions: NEWS.owns(),
  // Only the queried fields are read: each exposed field adds its column to the selection.
  select: { id: true },
  fields: (t) => ({
    id: t.exposeInt('id'),
    url: t.exposeString('url'),
    title: t.exposeString('title'),
    summary: t.exposeString('summary'),
    image_url: t.exposeString('image_url'),
    source: t.exposeString('source'),
    article_type: t.exposeString('article_type'),
    publish_date: t.expose('publish_date', { type: 'DateTime' }),
    language: t.exposeString('language'),
    // The spec types it as a string; it is stored as a number so filters compare it as one.
    amount_usd: t.string({ nullable: true, ...followColumn([], 'amount_usd', { asText: true }) }),
    round_type: t.exposeString('round_type'),
    deal_date: t.expose('deal_date', { type: 'Date', nullable: true }),
    sector: t.exposeString('sector'),
    hq_country: t.exposeString('hq_country'),
    enriched_summary: t.exposeString('enriched_summary'),
    relevance_score: t.exposeFloat('relevance_score'),
    hub_score: t.exposeFloat('hub_score'),
    entities: t.relation('entities', {
      type: NewsEntity,
      query: { orderBy: [{ is_primary: 'desc' }, { entity_id: 'asc' }] },
    }),
  }),
});

builder.prismaObjectField('Entity', 'news', (t) =>
  t.field({ type: [NewsArticle], ...follow([['news', { orderBy: { news_id: 'desc' } }], 'news']) }),
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
