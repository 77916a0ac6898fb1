import type { Prisma } from '../../db/generated/prisma/client.ts';
import { columnOf, grouping, idList, locationColumn, quantify, registry } from './build.ts';
import { TAG_COLUMNS } from './tags.ts';

type Where = Prisma.FounderWhereInput;
const column = columnOf<Where>();

export const FOUNDER_FIELDS = registry(
  'founders',
  ['entity'],
  [
    column('id', 'int'),
    column('uuid', 'uuid'),
    column('name', 'string'),
    column('tagline', 'string'),
    column('image', 'string'),
    column('platform_url', 'string'),
    column('gender', 'string'),
    column('is_serial_founder', 'bool'),
    column('is_super_founder', 'bool'),
    column('is_promising_founder', 'bool'),
    column('is_strong_founder', 'bool'),
    column('launch_year', 'int', { nullable: true }),
    column('hq_country', 'string'),
    column('hq_city', 'string'),
    locationColumn<Where>('location_country', 'location_country_id'),
    idList('tags', (q, id): Where => ({ tags: quantify(q, { tag_id: id }) })),
    // Every role the founder has held, as the record's `companies` lists them.
    idList('companies', (q, id): Where => ({ companies: quantify(q, { entity_id: id }) })),
    idList('education', (q, id): Where => ({ education: quantify(q, { university_id: id }) })),
    idList('backgrounds', (q, id): Where => ({ backgrounds: quantify(q, { background_id: id }) })),
  ],
  [],
  [grouping('tags', ['tags', 'tag'], TAG_COLUMNS)],
);
