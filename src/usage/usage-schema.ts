/**
 * Usage over GraphQL and REST, declared once: `usageTimeseries` and `GET /api/usage/timeseries`,
 * both needing read:usage. The rules (parameters, which client a caller may see) live in
 * src/usage/timeseries.ts; counting lives in src/usage/counter.ts.
 */
import { requirePrincipal } from '../auth/principal.ts';
import { tenantSql } from '../auth/tenancy.ts';
import { parseUsageQuery, readUsageTimeseries, USAGE_PARAMETERS, usageParameters, type UsageBucketRecord } from './timeseries.ts';
import { builder } from '../schema/builder.ts';
import { declareResource } from '../schema/resource.ts';

export const USAGE = declareResource({
  name: 'usage',
  description: "Each client's request and error counts per endpoint, hourly or daily.",
  read: 'read:usage',
  tenant: { UsageBucket: { column: 'org_id' } },
  rest: [
    {
      method: 'GET',
      path: '/api/usage/timeseries',
      operation: 'UsageTimeseries',
      kind: 'items',
      // Passed as text: the resolver checks them, so both transports report the same details.
      query: USAGE_PARAMETERS.map((name) => ({ name, type: 'string' as const, required: name.endsWith('_date') })),
      querySchema: usageParameters,
    },
  ],
});

const UsageBucket = builder.objectRef<UsageBucketRecord>('UsageBucket').implement({
  extensions: USAGE.owns(),
  description: 'Requests to one endpoint in one hour or day (UTC); buckets without requests are left out',
  fields: (t) => ({
    bucket: t.expose('bucket', { type: 'DateTime', description: "The bucket's start" }),
    endpoint: t.exposeString('endpoint', {
      description: 'Method and route template, e.g. `GET /api/entities/{id}`; GraphQL requests are `POST /graphql`',
    }),
    request_count: t.exposeInt('request_count'),
    error_count: t.exposeInt('error_count', { description: 'Requests answered with a status of 400 or more' }),
    rows_exported: t.exposeInt('rows_exported', { description: 'Rows written by exports that finished in the bucket (on `POST /api/exports`)' }),
  }),
});

builder.queryFields((t) => ({
  usageTimeseries: t.field({
    type: [UsageBucket],
    extensions: USAGE.reads,
    description:
      "Request and error counts per endpoint over time, ordered by bucket then endpoint: the caller's own client, or with `client_id` (and admin:api-keys) another client of the organisation",
    // Text, checked by the resolver, so a malformed value gets the same VALIDATION_ERROR details as REST.
    args: {
      start_date: t.arg.string({ required: true, description: 'First day, an ISO 8601 date (YYYY-MM-DD, UTC), inclusive' }),
      end_date: t.arg.string({ required: true, description: 'Last day, inclusive; at most 366 days counting both ends' }),
      granularity: t.arg.string({ description: '`hourly` or `daily` (the default)' }),
      client_id: t.arg.string({ description: 'Another client of the organisation (needs admin:api-keys)' }),
    },
    resolve: async (_root, args, context) => {
      const principal = requirePrincipal(context.principal);
      const organization = tenantSql(USAGE.tenant!, 'UsageBucket', principal.orgId);
      return readUsageTimeseries(context.prisma, organization, parseUsageQuery(principal, args));
    },
  }),
}));
