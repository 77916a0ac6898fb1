import type { Prisma } from '../../db/generated/prisma/client.ts';
import { columnOf, grouping, idList, locationAnyColumn, quantify, registry, relation } from './build.ts';
import { TAG_COLUMNS } from './tags.ts';

type Where = Prisma.EntityWhereInput;
const column = columnOf<Where>();

/** Entities, and ecosystems (whose filters select entities). */
export const ENTITY_FIELDS = registry(
  'entities',
  ['entity'],
  [
    column('id', 'int'),
    column('uuid', 'uuid'),
    column('type', 'string'),
    column('is_company', 'bool'),
    column('is_investor', 'bool'),
    column('is_university', 'bool'),
    column('is_crowdfunding', 'bool'),
    column('is_government', 'bool'),
    column('is_non_profit', 'bool'),
    column('is_founder', 'bool'),
    column('name', 'string'),
    column('tagline', 'string'),
    column('image', 'string'),
    column('platform_url', 'string'),
    column('launch_year', 'int', { nullable: true }),
    column('hq_country', 'string'),
    column('hq_city', 'string'),
    column('lat', 'float', { nullable: true }),
    column('lon', 'float', { nullable: true }),
    column('created_at', 'datetime'),
    column('updated_at', 'datetime'),
    column('deleted_at', 'datetime', { nullable: true }),
    // Derived, but kept in columns by the importer and seeder so they filter and sort like any column.
    column('total_funding_usd', 'money'),
    column('is_unicorn', 'bool'),
    locationAnyColumn<Where>('location', ['country_location_id', 'city_location_id']),
    idList('tags', (q, id): Where => ({ tags: quantify(q, { tag_id: id }) })),
    // An entity's founders are the people with a founding role there, not every employee on record.
    idList('founders', (q, id): Where => ({ founder_roles: quantify(q, { is_founder: true, founder_id: id }) })),
    // Investors over all of the entity's rounds: "has investor X" means some round has X.
    idList('investors', (q, id): Where => ({ rounds: quantify(q, { investors: { some: { investor_id: id } } }) })),
  ],
  [
    relation(
      'investor',
      'investors',
      'round_investors',
      (inner: Prisma.InvestorWhereInput): Where => ({ rounds: { some: { investors: { some: { investor: inner } } } } }),
    ),
  ],
  [grouping('tags', ['tags', 'tag'], TAG_COLUMNS)],
);
