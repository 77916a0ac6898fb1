import type { NewsRecord } from '../schemas/news.ts';
import { type Column, replaceChildren, upsertById } from '../../sql/unnest.ts';
import { assertReferencesExist, type Parsed, type WriteContext } from './context.ts';

type NewsRow = Omit<NewsRecord, 'entities'>;

const NEWS_COLUMNS: Column<NewsRow>[] = [
  { name: 'id', type: 'int' },
  { name: 'url', type: 'text' },
  { name: 'title', type: 'text' },
  { name: 'summary', type: 'text' },
  { name: 'image_url', type: 'text' },
  { name: 'source', type: 'text' },
  { name: 'article_type', type: 'text' },
  { name: 'publish_date', type: 'timestamptz' },
  { name: 'language', type: 'text' },
  { name: 'amount_usd', type: 'numeric' },
  { name: 'round_type', type: 'text' },
  { name: 'deal_date', type: 'date' },
  { name: 'sector', type: 'text' },
  { name: 'hq_country', type: 'text' },
  { name: 'enriched_summary', type: 'text' },
  { name: 'relevance_score', type: 'float8' },
  { name: 'hub_score', type: 'float8' },
];

interface MentionRow {
  news_id: number;
  entity_id: number;
  mention_role: string;
  is_primary: boolean;
  sector: string;
}

const MENTION_COLUMNS: Column<MentionRow>[] = [
  { name: 'news_id', type: 'int' },
  { name: 'entity_id', type: 'int' },
  { name: 'mention_role', type: 'text' },
  { name: 'is_primary', type: 'bool' },
  { name: 'sector', type: 'text' },
];

export async function writeNews(context: WriteContext, batch: readonly Parsed<NewsRecord>[]): Promise<void> {
  await assertReferencesExist(
    context,
    'entities',
    batch.flatMap(({ line, record }) =>
      record.entities.map((mention, i) => ({ id: mention.id, line, path: `entities[${i}].id` })),
    ),
  );
  const records = batch.map((item) => item.record);
  await upsertById(context.tx, { table: 'news_articles', columns: NEWS_COLUMNS }, records);
  await replaceChildren(
    context.tx,
    { table: 'news_entities', parentColumn: 'news_id', key: ['news_id', 'entity_id'], columns: MENTION_COLUMNS },
    records.map((r) => r.id),
    records.flatMap((r) =>
      r.entities.map((m) => ({ news_id: r.id, entity_id: m.id, mention_role: m.mention_role, is_primary: m.is_primary, sector: m.sector })),
    ),
  );
}
