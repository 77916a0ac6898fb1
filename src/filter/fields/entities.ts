import type { Prisma } from '../../db/generated/prisma/client.ts';
import type { ColumnField } from './types.ts';
import { normaliseDomain } from '../../identifiers/domain.ts';
import { parseExternalIdRef } from '../../identifiers/external-ids.ts';
import { columnAt, columnOf, grouping, idList, locationAnyColumn, lookup, quantify, registry, relation } from './build.ts';
import { TAG_COLUMNS } from './tags.ts';

type Where = Prisma.EntityWhereInput;
const column = columnOf<Where>();

/**
 * `website` compares normalised domains (src/identifiers/domain.ts), kept in `website_domain`:
 * `website[eq]:https://www.stripe.com/about` finds stripe.com. `contains` searches within the domain.
 */
const WEBSITE: ColumnField = {
  ...columnAt(['website_domain'], 'string', { name: 'website' }),
  operators: ['eq', 'neq', 'contains', 'in_any'],
  // `website[eq]:""` finds the entities without a website; other text must name a domain.
  readValue: (text: string) => {
    const domain = normaliseDomain(text);
    return domain || text.trim() === ''
      ? { ok: true as const, value: domain }
      : { ok: false as const, expected: 'a domain, URL or e-mail address' };
  },
};

/** `external_id[eq]:<source>:<id>`, e.g. `external_id[eq]:crunchbase:airbnb`. */
const EXTERNAL_ID = lookup(
  'external_id',
  'external_id',
  (text) => {
    const ref = parseExternalIdRef(text);
    return ref ? { ok: true as const, value: `${ref.source}:${ref.id}` } : { ok: false as const, expected: '<source>:<id>, e.g. crunchbase:airbnb' };
  },
  (values): Where => ({
    external_ids: {
      some: {
        OR: values.map((value) => {
          const ref = parseExternalIdRef(value)!;
          return { source: ref.source, external_id: ref.id };
        }),
      },
    },
  }),
);

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
    WEBSITE,
    EXTERNAL_ID,
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
