import type { NewsRecord } from '../schemas/news.ts';
import { columnsOf, replaceChildren, upsertById } from '../../sql/unnest.ts';
import { assertReferencesExist, type Parsed, type WriteContext } from './context.ts';

interface MentionRow {
  news_id: number;
  entity_id: number;
  mention_role: string;
  is_primary: boolean;
  sector: string;
}

const MENTION_COLUMNS = columnsOf<MentionRow>('NewsEntity');

export async function writeNews(context: WriteContext, batch: readonly Parsed<NewsRecord>[]): Promise<void> {
  await assertReferencesExist(
    context,
    'entities',
    batch.flatMap(({ line, record }) =>
      record.entities.map((mention, i) => ({ id: mention.id, line, path: `entities[${i}].id` })),
    ),
  );
  const records = batch.map((item) => item.record);
  await upsertById(context.tx, { table: 'news_articles', columns: columnsOf<NewsRecord>('NewsArticle') }, records);
  await replaceChildren(
    context.tx,
    { table: 'news_entities', parentColumn: 'news_id', key: ['news_id', 'entity_id'], columns: MENTION_COLUMNS },
    records.map((r) => r.id),
    records.flatMap((r) =>
      r.entities.map((m) => ({ news_id: r.id, entity_id: m.id, mention_role: m.mention_role, is_primary: m.is_primary, sector: m.sector })),
    ),
  );
}
