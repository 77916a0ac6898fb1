import { z } from 'zod';
import { domainOf } from '../../../identifiers/domain.ts';
import { externalIdProblem } from '../../../identifiers/external-ids.ts';
import { ENTITY_FLAGS, ENTITY_TYPES, FLAG_BY_TYPE, type EntityFlag } from '../../vocabulary.ts';
import { ignored, optionalNumber, recordId, requiredText, slug, tagRef, text, timestamp, uuid, year } from './common.ts';

const flag = z.boolean().optional();

const website = text.refine((value) => value === '' || domainOf(value) !== '', 'expected a website: a domain or URL (e.g. https://stripe.com)');

const externalId = z
  .strictObject({ source: z.string(), id: z.string() })
  .superRefine((value, context) => {
    const problem = externalIdProblem(value);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });

export const entitySchema = z
  .strictObject({
    id: recordId,
    uuid,
    slug,
    type: z.enum(ENTITY_TYPES),
    is_company: flag,
    is_investor: flag,
    is_university: flag,
    is_crowdfunding: flag,
    is_government: flag,
    is_non_profit: flag,
    is_founder: flag,
    name: requiredText,
    tagline: text,
    image: text,
    platform_url: text,
    website,
    external_ids: z.array(externalId).max(100).default([]),
    launch_year: year,
    hq_country: text,
    hq_city: text,
    lat: optionalNumber.refine((v) => v === null || Math.abs(v) <= 90, 'expected a latitude (-90..90)'),
    lon: optionalNumber.refine((v) => v === null || Math.abs(v) <= 180, 'expected a longitude (-180..180)'),
    created_at: timestamp,
    updated_at: timestamp,
    deleted_at: timestamp,
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

/** Investor profile: only the id matters; the counts are derived, the other fields live on the entity. */
export const investorSchema = z.strictObject({
  id: recordId,
  uuid: ignored,
  name: ignored,
  type: ignored,
  image: ignored,
  platform_url: ignored,
  hq_country: ignored,
  hq_city: ignored,
  launch_year: ignored,
  tags: ignored,
  total_invested_usd: ignored,
  investments_count: ignored,
  portfolio_count: ignored,
  exits_count: ignored,
  lead_investments_count: ignored,
});

export type InvestorRecord = z.output<typeof investorSchema>;
