import type { Prisma } from '../../db/generated/prisma/client.ts';
import { columnOf, grouping, idList, quantify, registry } from './build.ts';
import { ENTITY_FIELDS } from './entities.ts';

type Where = Prisma.NewsArticleWhereInput;
const column = columnOf<Where>();

export const NEWS_FIELDS = registry(
  'news',
  ['news'],
  [
    column('id', 'int'),
    column('url', 'string'),
    column('title', 'string'),
    column('summary', 'string'),
    column('image_url', 'string'),
    column('source', 'string'),
    column('article_type', 'string'),
    column('publish_date', 'datetime'),
    column('language', 'string'),
    // Served as a string, stored as a decimal so that it compares as a number.
    column('amount_usd', 'decimal', { nullable: true }),
    column('round_type', 'string'),
    column('deal_date', 'date', { nullable: true }),
    column('sector', 'string'),
    column('hq_country', 'string'),
    column('enriched_summary', 'string'),
    column('relevance_score', 'float'),
    column('hub_score', 'float'),
    idList('entities', (q, id): Where => ({ entities: quantify(q, { entity_id: id }) })),
  ],
  [],
  // Every entity the article mentions.
  [grouping('entities', ['entities', 'entity'], ENTITY_FIELDS)],
);
