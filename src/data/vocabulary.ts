/**
 * The closed vocabularies of the reference data. The importer validates against them and the converter
 * and seeder only produce these values, so filters on `type`, `round_type`, ... see a known set.
 */

export const ENTITY_TYPES = [
  'company',
  'investor',
  'university',
  'accelerator',
  'government',
  'non_profit',
  'crowdfunding',
  'person',
] as const;
export type EntityType = (typeof ENTITY_TYPES)[number];

export const TAG_TYPES = ['industry', 'technology', 'business_model', 'program'] as const;
export type TagType = (typeof TAG_TYPES)[number];

/** Named round types; `series_a` ... `series_z` are accepted as well (see isRoundType). */
export const ROUND_TYPES = [
  'pre_seed',
  'seed',
  'angel',
  'venture',
  'convertible_note',
  'debt',
  'grant',
  'crowdfunding',
  'private_equity',
  'secondary',
  'ipo',
  'post_ipo',
  'acquisition',
  'other',
] as const;

const SERIES_ROUND = /^series_[a-z]$/;

export function isRoundType(value: string): boolean {
  return (ROUND_TYPES as readonly string[]).includes(value) || SERIES_ROUND.test(value);
}

/** Round types that move money into the company; an acquisition price goes to its shareholders. */
export const NON_FUNDING_ROUND_TYPES = ['acquisition'] as const;
/** Round types that mark an exit for the company's earlier investors. */
export const EXIT_ROUND_TYPES = ['acquisition', 'ipo'] as const;

export const GENDERS = ['male', 'female', 'other', 'unknown', ''] as const;

export const MENTION_ROLES = ['subject', 'acquirer', 'acquired', 'investor', 'mentioned'] as const;

export const ARTICLE_TYPES = ['funding', 'acquisition', 'launch', 'partnership', 'hiring', 'other', ''] as const;

/** Role flag implied by an entity type when a record does not set the flags itself. */
export const FLAG_BY_TYPE: Partial<Record<EntityType, EntityFlag>> = {
  company: 'is_company',
  investor: 'is_investor',
  university: 'is_university',
  crowdfunding: 'is_crowdfunding',
  government: 'is_government',
  non_profit: 'is_non_profit',
};

export const ENTITY_FLAGS = [
  'is_company',
  'is_investor',
  'is_university',
  'is_crowdfunding',
  'is_government',
  'is_non_profit',
  'is_founder',
] as const;
export type EntityFlag = (typeof ENTITY_FLAGS)[number];

/** A valuation at or above this makes its company a unicorn. */
export const UNICORN_THRESHOLD_USD = 1_000_000_000n;
