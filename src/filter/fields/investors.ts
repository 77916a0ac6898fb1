import type { Prisma } from '../../db/generated/prisma/client.ts';
import { columnAt, columnOf, grouping, idList, quantify, registry, type ColumnOptions } from './build.ts';
import { TAG_COLUMNS } from './tags.ts';
import type { ValueKind } from './types.ts';

type Where = Prisma.InvestorWhereInput;
const column = columnOf<Where>();
// The investor record shows its entity's name, type, HQ... which live on Entity, one relation away.
const ofEntity = (name: keyof Prisma.EntityWhereInput & string, kind: ValueKind, options?: ColumnOptions) =>
  columnAt(['entity', name], kind, options);

export const INVESTOR_FIELDS = registry(
  'investors',
  ['entity'],
  [
    column('id', 'int'),
    ofEntity('uuid', 'uuid'),
    ofEntity('name', 'string'),
    ofEntity('type', 'string'),
    ofEntity('image', 'string'),
    ofEntity('platform_url', 'string'),
    ofEntity('hq_country', 'string'),
    ofEntity('hq_city', 'string'),
    ofEntity('launch_year', 'int', { nullable: true }),
    column('total_invested_usd', 'money'),
    column('investments_count', 'int'),
    column('portfolio_count', 'int'),
    column('exits_count', 'int'),
    column('lead_investments_count', 'int'),
    idList('tags', (q, id): Where => ({ entity: { tags: quantify(q, { tag_id: id }) } })),
    // The portfolio is every entity the investor has joined a round of.
    idList('portfolio', (q, id): Where => ({ rounds: quantify(q, { round: { entity_id: id } }) })),
  ],
  [],
  [grouping('tags', ['entity', 'tags', 'tag'], TAG_COLUMNS)],
);
