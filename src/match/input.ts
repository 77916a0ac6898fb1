/**
 * The body of `POST /api/match` and the arguments of the `match` field, read once for both transports:
 * 1..1000 records, each with at least one of name, website, external_id (docs/finding-companies.md,
 * "Matching a CRM export"). Detail paths are `records[i]` and `records[i].<field>`; REST prefixes `body.`.
 */
import { z } from 'zod';
import { parseInput } from '../management/input.ts';
import { validationError, type ErrorDetail } from '../errors.ts';
import { domainOf } from '../identifiers/domain.ts';
import { parseExternalIdRef, type ExternalId } from '../identifiers/external-ids.ts';

export const MATCH_MAX_RECORDS = 1000;

const text = (max: number) => z.string({ error: 'must be a string' }).max(max, `must be at most ${max} characters`).nullish();

/** `"crunchbase:airbnb"` or `{"source": "crunchbase", "id": "airbnb"}`. */
const externalId = z
  .union([z.string(), z.strictObject({ source: z.string(), id: z.string() })], { error: 'must be "<source>:<id>" or {source, id}' })
  .transform((value, context): ExternalId => {
    const ref = parseExternalIdRef(typeof value === 'string' ? value : `${value.source}:${value.id}`);
    if (!ref) context.addIssue({ code: 'custom', message: 'must be "<source>:<id>" (source a lower-case word), e.g. crunchbase:airbnb' });
    return ref ?? { source: '', id: '' };
  })
  .nullish();

export const matchRecordSchema = z
  .strictObject({
    name: text(300),
    website: text(2000).refine((value) => !value || domainOf(value) !== '', 'must be a domain, URL or e-mail address'),
    hq_country: text(200),
    hq_city: text(200),
    launch_year: z.number({ error: 'must be an integer' }).int('must be an integer').min(1000).max(2200).nullish(),
    external_id: externalId,
    metadata: z.unknown().optional().describe('Any JSON value, echoed back unchanged with the answer'),
  })
  .meta({ description: 'One of your records: at least one of name, website, external_id' });

export const matchBodySchema = z.strictObject({
  records: z.array(z.unknown()).describe(`1 to ${MATCH_MAX_RECORDS} records`),
  min_confidence: z.number({ error: 'must be a number' }).min(0).max(1).nullish(),
});

export interface MatchRecord {
  name: string;
  /** The normalised domain of the website, URL or e-mail address given ("" when none). */
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

const hasText = (value: string | null | undefined): value is string => typeof value === 'string' && value.trim() !== '';

/** The request, or VALIDATION_ERROR with a detail per problem (`prefix` is `body` over REST). */
export function readMatchRequest(input: unknown, prefix: string): MatchRequest {
  const at = (path: string) => (prefix ? `${prefix}.${path}` : path);
  // The body's own fields as every management body is read (an unknown one named); the records one by one below.
  const { records: raw, min_confidence } = parseInput(matchBodySchema, input, prefix);
  if (raw.length < 1 || raw.length > MATCH_MAX_RECORDS) {
    throw validationError([{ path: at('records'), message: `must hold 1 to ${MATCH_MAX_RECORDS} records, found ${raw.length}` }]);
  }
  const details: ErrorDetail[] = [];
  const records = raw.map((item, index): MatchRecord => {
    const parsed = matchRecordSchema.safeParse(item);
    const where = at(`records[${index}]`);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const keys = issue.code === 'unrecognized_keys' ? issue.keys : [issue.path.join('.')];
        for (const key of keys) details.push({ path: key ? `${where}.${key}` : where, message: issue.code === 'unrecognized_keys' ? 'unknown field' : issue.message });
      }
      return emptyRecord();
    }
    const record = parsed.data;
    if (!hasText(record.name) && !hasText(record.website) && !record.external_id) {
      details.push({ path: where, message: 'needs at least one of name, website, external_id' });
    }
    return {
      name: record.name?.trim() ?? '',
      domain: record.website ? domainOf(record.website) : '',
      hq_country: record.hq_country?.trim() ?? '',
      hq_city: record.hq_city?.trim() ?? '',
      launch_year: record.launch_year ?? null,
      external_id: record.external_id ?? null,
      metadata: record.metadata ?? null,
    };
  });
  if (details.length) throw validationError(details.slice(0, 50));
  return { records, minConfidence: min_confidence ?? null };
}

function emptyRecord(): MatchRecord {
  return { name: '', domain: '', hq_country: '', hq_city: '', launch_year: null, external_id: null, metadata: null };
}
