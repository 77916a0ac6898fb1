/**
 * How an entity list filters beyond its record's columns: websites as normalised domains, external
 * ids, location, and the ids of related records. Written against Prisma's EntityWhereInput, so a
 * relation or column name that does not exist fails to compile.
 */
import type { Prisma } from '../db/generated/prisma/client.ts';
import { idList, locationAnyColumn, lookup, quantify, relation } from '../filter/fields/build.ts';
import { normaliseDomain } from '../identifiers/domain.ts';
import { parseExternalIdRef } from '../identifiers/external-ids.ts';
import type { ColumnFilter } from './field-facts.ts';
import type { ListFilters } from './resource.ts';

type Where = Prisma.EntityWhereInput;

/**
 * `website` compares normalised domains (src/identifiers/domain.ts), kept in `website_domain`:
 * `website[eq]:https://www.stripe.com/about` finds stripe.com. `contains` searches within the domain.
 */
export const WEBSITE_FILTER: ColumnFilter = {
  column: 'website_domain',
  name: 'website',
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
export const EXTERNAL_ID_FILTER = lookup(
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
export const ENTITY_FILTERS: ListFilters = {
  refs: ['entity'],
  fields: [
    locationAnyColumn<Where>('location', ['country_location_id', 'city_location_id']),
    idList('tags', (q, id): Where => ({ tags: quantify(q, { tag_id: id }) })),
    // An entity's founders are the people with a founding role there, not every employee on record.
    idList('founders', (q, id): Where => ({ founder_roles: quantify(q, { is_founder: true, founder_id: id }) })),
    // Investors over all of the entity's rounds: "has investor X" means some round has X.
    idList('investors', (q, id): Where => ({ rounds: quantify(q, { investors: { some: { investor_id: id } } }) })),
  ],
  relations: [
    relation(
      'investor',
      'investors',
      'round_investors',
      (inner: Prisma.InvestorWhereInput): Where => ({ rounds: { some: { investors: { some: { investor: inner } } } } }),
    ),
  ],
  groupings: [{ name: 'tags', path: ['tags', 'tag'], columns: ['name', 'type'] }],
};
