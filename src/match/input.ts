/**
 * The body of `POST /api/match` and the arguments of the `match` field, read once for both transports:
 * 1..1000 records, each with at least one of name, website, external_id (docs/finding-companies.md,
 * "Matching a CRM export"). Detail paths are `records[i]` and `records[i].<field>`; REST prefixes `body.`.
 */
import { z } from 'zod';
import { validationError, type ErrorDetail } from '../errors.ts';
import { domainOf } from '../identifiers/domain.ts';
import { isPlatformDomain } from '../identifiers/platforms.ts';
import { EXTERNAL_ID_MAX_LENGTH, parseExternalIdRef, type ExternalId } from '../identifiers/external-ids.ts';

export const MATCH_MAX_RECORDS = 1000;

const text = (max: number) => z.string({ error: 'must be a string' }).max(max, `must be at most ${max} characters`).nullish();

/**
 * What parseExternalIdRef takes, as patterns (so that the document states it whole): a source word of
 * any case, a colon, an id of 1 to 200 characters; spaces around either are ignored.
 */
const SOURCE = '\\s*[A-Za-z][A-Za-z0-9_]{0,39}\\s*';
const ID = `\\s*\\S(?:[\\s\\S]{0,${EXTERNAL_ID_MAX_LENGTH - 2}}\\S)?\\s*`;
const EXTERNAL_ID = `must be "<source>:<id>" or {source, id} (source a word of letters, digits and _; id 1 to ${EXTERNAL_ID_MAX_LENGTH} characters), e.g. crunchbase:airbnb`;

/** `"crunchbase:airbnb"` or `{"source": "crunchbase", "id": "airbnb"}`. */
const externalId = z
  .union(
    [
      z.string().regex(new RegExp(`^${SOURCE}:${ID}$`), EXTERNAL_ID),
      z.strictObject({ source: z.string().regex(new RegExp(`^${SOURCE}$`), EXTERNAL_ID), id: z.string().regex(new RegExp(`^${ID}$`), EXTERNAL_ID) }),
    ],
    { error: EXTERNAL_ID },
  )
  .nullish();

/** The id a record gives, in either form (the patterns above are what it takes, so there always is one). */
const externalIdOf = (value: string | { source: string; id: string }): ExternalId | null =>
  parseExternalIdRef(typeof value === 'string' ? value : `${value.source}:${value.id}`) ?? null;

const hasText = (value: unknown): boolean => typeof value === 'string' && value.trim() !== '';

const recordInputs = {
  name: text(300),
  website: text(2000).refine((value) => !value || domainOf(value) !== '', 'must be a domain, URL or e-mail address'),
  hq_country: text(200).describe('A country name or ISO code'),
  hq_city: text(200),
  launch_year: z.number({ error: 'must be an integer from 1000 to 2200' }).int('must be an integer').min(1000, 'must be from 1000 to 2200').max(2200, 'must be from 1000 to 2200').nullish(),
  external_id: externalId,
  metadata: z.unknown().optional().describe('Any JSON value, echoed back unchanged with the answer'),
};

/** The inputs a record compares with a candidate, in the body's order: every key but `metadata`. */
export const MATCH_COMPARED_INPUTS = Object.keys(recordInputs).filter((key) => key !== 'metadata');
/** The inputs of which a record needs at least one. */
export const MATCH_IDENTIFYING_INPUTS = ['name', 'website', 'external_id'] as const satisfies readonly (keyof typeof recordInputs)[];
const identifying = MATCH_IDENTIFYING_INPUTS.join(', ');

export const matchRecordSchema = z
  .strictObject(recordInputs)
  .superRefine((record, context) => {
    if (!hasText(record.name) && !hasText(record.website) && !record.external_id) {
      context.addIssue({ code: 'custom', message: `needs at least one of ${identifying}` });
    }
  })
  // What the refinement checks, as JSON Schema says it (src/openapi/body-schema.ts).
  .meta({
    description: `One of your records: at least one of ${identifying} (a name or website that is only spaces counts as none)`,
    anyOf: [
      { required: ['name'], properties: { name: { type: 'string', pattern: '\\S' } } },
      { required: ['website'], properties: { website: { type: 'string', pattern: '\\S' } } },
      { required: ['external_id'], properties: { external_id: { type: ['string', 'object'] } } },
    ],
  });

const confidence = 'must be a number from 0 to 1';

export const matchBodySchema = z
  .strictObject({
    records: z
      .array(matchRecordSchema, { error: `must be a list of 1 to ${MATCH_MAX_RECORDS} records` })
      .min(1, `must hold 1 to ${MATCH_MAX_RECORDS} records`)
      .max(MATCH_MAX_RECORDS, `must hold 1 to ${MATCH_MAX_RECORDS} records`)
      .describe(`1 to ${MATCH_MAX_RECORDS} of your records`),
    min_confidence: z
      .number({ error: confidence })
      .min(0, confidence)
      .max(1, confidence)
      .nullish()
      .describe('Raises the confidence `matched` needs (never lowers it)'),
  })
  .meta({
    examples: [
      {
        records: [
          { name: 'Airbnb, Inc.', website: 'https://www.airbnb.com/rooms?utm_source=crm', hq_country: 'US', metadata: { crm_id: 'A-17' } },
          { name: 'Cotrex Healthcare', hq_country: 'United States', hq_city: 'Boston', launch_year: 2010 },
          { external_id: 'crunchbase:stripe' },
        ],
        min_confidence: 0.95,
      },
    ],
  });

export interface MatchRecord {
  name: string;
  /** The normalised domain of the website, URL or e-mail address given ("" when none, or a platform's: a profile there is no company's domain). */
  domain: string;
  hq_country: string;
  hq_city: string;
  launch_year: number | null;
  external_id: ExternalId | null;
  metadata: unknown;
}

export interface MatchRequest {
  records: MatchRecord[];
  minConfidence: number | null;
}

/** The request, or VALIDATION_ERROR with a detail per problem (`prefix` is `body` over REST). */
export function readMatchRequest(input: unknown, prefix: string): MatchRequest {
  const parsed = matchBodySchema.safeParse(input);
  if (!parsed.success) throw validationError(detailsOf(parsed.error, prefix));
  const records = parsed.data.records.map((record): MatchRecord => ({
    name: record.name?.trim() ?? '',
    domain: companyDomain(record.website),
    hq_country: record.hq_country?.trim() ?? '',
    hq_city: record.hq_city?.trim() ?? '',
    launch_year: record.launch_year ?? null,
    external_id: record.external_id ? externalIdOf(record.external_id) : null,
    metadata: record.metadata ?? null,
  }));
  return { records, minConfidence: parsed.data.min_confidence ?? null };
}

/** A detail per problem, at `records[i]` or `records[i].<field>` (a record's place as an index, not a key). */
function detailsOf(error: z.ZodError, prefix: string): ErrorDetail[] {
  const at = (path: readonly PropertyKey[]) =>
    [prefix, path.map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index ? '.' : ''}${String(key)}`)).join('')].filter(Boolean).join('.') || 'input';
  const details = error.issues.flatMap((issue): ErrorDetail[] =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ path: at([...issue.path, key]), message: 'unknown field' }))
      : [{ path: at(issue.path), message: issue.message }],
  );
  return details.slice(0, MAX_DETAILS);
}

/** A batch of many bad records answers with the first problems. */
const MAX_DETAILS = 50;

function companyDomain(website: string | null | undefined): string {
  const domain = website ? domainOf(website) : '';
  return isPlatformDomain(domain) ? '' : domain;
}

