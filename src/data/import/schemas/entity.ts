import { z } from 'zod';
import { domainOf } from '../../../identifiers/domain.ts';
import { externalIdProblem } from '../../../identifiers/external-ids.ts';
import { ENTITY_FLAGS, ENTITY_TYPES, FLAG_BY_TYPE, type EntityFlag } from '../../vocabulary.ts';
import { modelColumns } from '../../../db/datamodel.ts';
import { columnFields } from './columns.ts';
import { ignored, optionalNumber, recordId, slug, tagRef, text, year } from './common.ts';

const flag = z.boolean().optional();

const website = text.refine((value) => value === '' || domainOf(value) !== '', 'expected a website: a domain or URL (e.g. https://stripe.com)');

const externalId = z
  .strictObject({ source: z.string(), id: z.string() })
  .superRefine((value, context) => {
    const problem = externalIdProblem(value);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });

/** Columns the writer derives (src/data/import/writers/entities.ts), and the totals the importer recomputes. */
const DERIVED = ['website_domain', 'country_location_id', 'city_location_id', 'total_funding_usd', 'is_unicorn'] as const;

/** Every column of an entity as its type says (columns.ts), and what is really about a field. */
export const entitySchema = z
  .strictObject({
    ...columnFields('Entity', DERIVED),
    slug,
    type: z.enum(ENTITY_TYPES),
    // Absent: as the type implies (below).
    ...(Object.fromEntries(ENTITY_FLAGS.map((name) => [name, flag])) as Record<EntityFlag, typeof flag>),
    website,
    launch_year: year,
    lat: optionalNumber.refine((v) => v === null || Math.abs(v) <= 90, 'expected a latitude (-90..90)'),
    lon: optionalNumber.refine((v) => v === null || Math.abs(v) <= 180, 'expected a longitude (-180..180)'),
    external_ids: z.array(externalId).max(100).default([]),
    tags: z.array(tagRef).default([]),
    // Derived by the importer from other files; accepted so API responses can be imported as they are.
    founders: ignored,
    total_funding_usd: ignored,
    is_unicorn: ignored,
  })
  .transform((record) => {
    const implied = FLAG_BY_TYPE[record.type];
    const flags = Object.fromEntries(
      ENTITY_FLAGS.map((name) => [name, record[name] ?? name === implied]),
    ) as Record<EntityFlag, boolean>;
    return { ...record, ...flags };
  });

export type EntityRecord = z.output<typeof entitySchema>;

/**
 * Investor profile: only the id matters; the counts are derived, and the other fields are its entity's.
 * So that API responses import as they are, a field named as a column of either is accepted and dropped.
 */
export const investorSchema = z
  .strictObject({
    ...Object.fromEntries([...modelColumns('Investor'), ...modelColumns('Entity')].map((column) => [column.name, ignored])),
    tags: ignored,
    id: recordId,
  })
  .transform(({ id }) => ({ id }));

export type InvestorRecord = z.output<typeof investorSchema>;
