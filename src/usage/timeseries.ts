/**
 * The usage time series, for both transports: parameters checked with zod (every problem at once),
 * who may see which client, and the read over usage_buckets.
 *
 * Visibility: always the caller's organisation; by default the caller's own client (the token's
 * client, for user tokens too: a `token:user` user is its own client, an identity provider's user
 * sees its application's client, whose counts sum all its users); another client only through
 * `client_id` with admin:api-keys. Clients carry their issuer (`<client>@<issuer>` for an external
 * issuer's, src/auth/identity.ts), so no external token reads or adds to one of our keys' series. A
 * client of another organisation has no rows in this organisation, so it reads as an empty series.
 */
import { z } from 'zod';
import type { Principal } from '../auth/principal.ts';
import type { PrismaClient } from '../db/client.ts';
import type { Prisma } from '../db/generated/prisma/client.ts';
import { AppError, validationError, type ErrorDetail } from '../errors.ts';
import { FIRST_DATE, LAST_DATE } from '../filter/values.ts';

/** The parameters, in the order the documents list them. */
export const USAGE_PARAMETERS = ['start_date', 'end_date', 'granularity', 'client_id'] as const;

export const GRANULARITIES = ['hourly', 'daily'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

/** Both ends counted: one leap year at most. */
export const MAX_SPAN_DAYS = 366;

const DAY_MS = 86_400_000;

export interface UsageQueryInput {
  start_date?: string | null | undefined;
  end_date?: string | null | undefined;
  granularity?: string | null | undefined;
  client_id?: string | null | undefined;
}

export interface UsageQuery {
  clientId: string;
  /** Inclusive, midnight UTC. */
  start: Date;
  /** Exclusive: midnight UTC after end_date. */
  end: Date;
  granularity: Granularity;
}

export interface UsageBucketRecord {
  bucket: Date;
  endpoint: string;
  request_count: number;
  error_count: number;
  /** Rows written by exports (asked for at `POST /api/exports`) that finished in the bucket. */
  rows_exported: number;
}

const required = (what: string) => ({
  error: (issue: { input: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`),
});

// zod's ISO date takes four-digit years, 0000 included (a leap year, to the proleptic calendar), which
// PostgreSQL has not: the dates are held to the API's range (src/filter/values.ts) like filter values.
const calendarDate = z
  .string(required('an ISO 8601 date (YYYY-MM-DD)'))
  .pipe(z.iso.date({ error: 'must be a real calendar date written YYYY-MM-DD, e.g. 2026-11-23' }))
  .refine((text) => text >= FIRST_DATE && text <= LAST_DATE, `must be a date from ${FIRST_DATE} to ${LAST_DATE}`)
  // The pipe's input is any string; what it checks, for the OpenAPI document.
  .meta({ format: 'date' });

/** The query of `GET /api/usage/timeseries` and the arguments of `usageTimeseries` (the OpenAPI document's too). */
export const usageParameters = z
  .object({
    start_date: calendarDate.meta({ format: 'date', examples: ['2026-03-01'] }),
    end_date: calendarDate.meta({ format: 'date', examples: ['2026-03-31'] }),
    granularity: z.enum(GRANULARITIES, { error: `must be one of: ${GRANULARITIES.join(', ')}` }).default('daily'),
    client_id: z.string().min(1, 'must not be empty').max(256, 'must be at most 256 characters').optional(),
  })
  .check((context) => {
    const { start_date: start, end_date: end } = context.value;
    // Only two real dates have a span (the checks above may have reported either already).
    if (!calendarDate.safeParse(start).success || !calendarDate.safeParse(end).success) return;
    const days = (Date.parse(end) - Date.parse(start)) / DAY_MS + 1;
    if (days < 1) {
      context.issues.push({ code: 'custom', path: ['end_date'], message: 'must not be before start_date', input: end });
    } else if (days > MAX_SPAN_DAYS) {
      context.issues.push({
        code: 'custom',
        path: ['end_date'],
        message: `must be at most ${MAX_SPAN_DAYS} days after start_date, both counted (asked for ${days})`,
        input: end,
      });
    }
  });

/** Drops nulls (GraphQL's "not given") so zod sees them as missing. */
function present(input: UsageQueryInput): Record<string, string> {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null && value !== undefined)) as Record<string, string>;
}

/**
 * Checks who may read which client first (403 comes before parameter errors), then the parameters.
 * Detail paths are the parameter names; REST prefixes them with `query.`.
 */
export function parseUsageQuery(principal: Principal, input: UsageQueryInput): UsageQuery {
  const requested = input.client_id ?? undefined;
  if (requested !== undefined && requested !== principal.clientId && !principal.permissions.has('admin:api-keys')) {
    // Naming the caller's own client helps a caller of an external issuer, whose client carries `@<issuer>`.
    throw new AppError(
      'FORBIDDEN',
      `Reading another client's usage (client_id) needs the admin:api-keys permission; your own client is ${JSON.stringify(principal.clientId)}`,
    );
  }
  const parsed = usageParameters.safeParse(present(input));
  if (!parsed.success) {
    const details: ErrorDetail[] = parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message }));
    throw validationError(details);
  }
  const { start_date, end_date, granularity, client_id } = parsed.data;
  return {
    clientId: client_id ?? principal.clientId,
    start: new Date(`${start_date}T00:00:00.000Z`),
    end: new Date(Date.parse(`${end_date}T00:00:00.000Z`) + DAY_MS),
    granularity,
  };
}

interface BucketRow {
  bucket: Date;
  endpoint: string;
  request_count: bigint | number;
  error_count: bigint | number;
  rows_exported: bigint | number;
}

/** The series, ordered by bucket then endpoint (byte order, the same on every server). */
export async function readUsageTimeseries(
  prisma: PrismaClient,
  /** The caller's organisation, as its tenant rule writes it (src/auth/tenancy.ts `tenantSql`). */
  organization: Prisma.Sql,
  query: UsageQuery,
): Promise<UsageBucketRecord[]> {
  const unit = query.granularity === 'hourly' ? 'hour' : 'day';
  const rows = await prisma.$queryRaw<BucketRow[]>`
    SELECT date_trunc(${unit}, bucket, 'UTC') AS bucket, endpoint,
           sum(request_count)::bigint AS request_count, sum(error_count)::bigint AS error_count,
           sum(rows_exported)::bigint AS rows_exported
      FROM usage_buckets
     WHERE ${organization} AND client_id = ${query.clientId} AND bucket >= ${query.start} AND bucket < ${query.end}
     GROUP BY 1, 2
    HAVING sum(request_count) > 0 OR sum(rows_exported) > 0
     ORDER BY 1, endpoint COLLATE "C"`;
  return rows.map((row) => ({
    bucket: new Date(row.bucket),
    endpoint: row.endpoint,
    request_count: Number(row.request_count),
    error_count: Number(row.error_count),
    rows_exported: Number(row.rows_exported),
  }));
}
