/**
 * Usage over GraphQL: `usageTimeseries`, the same series as `GET /api/usage/timeseries`. The rules
 * (parameters, which client a caller may see) live in src/usage/timeseries.ts.
 */
import { requirePrincipal } from '../auth/principal.ts';
import { parseUsageQuery, readUsageTimeseries, type UsageBucketRecord } from '../usage/timeseries.ts';
import { builder } from './builder.ts';

const UsageBucket = builder.objectRef<UsageBucketRecord>('UsageBucket').implement({
  description: 'Requests to one endpoint in one hour or day (UTC); buckets without requests are left out',
  fields: (t) => ({
    bucket: t.expose('bucket', { type: 'DateTime', description: "The bucket's start" }),
    endpoint: t.exposeString('endpoint', {
      description: 'Method and route template, e.g. `GET /api/entities/{id}`; GraphQL requests are `POST /graphql`',
    }),
    request_count: t.exposeInt('request_count'),
    error_count: t.exposeInt('error_count', { description: 'Requests answered with a status of 400 or more' }),
  }),
});

const UsageTimeseries = builder.objectRef<{ data: UsageBucketRecord[] }>('UsageTimeseries').implement({
  fields: (t) => ({
    data: t.field({ type: [UsageBucket], resolve: (series) => series.data }),
  }),
});

builder.queryFields((t) => ({
  usageTimeseries: t.field({
    type: UsageTimeseries,
    description:
      "Request and error counts per endpoint over time, for the caller's own client; another client of the organisation with `client_id` and admin:api-keys",
    // Nullable on purpose: a missing or malformed value gets the same VALIDATION_ERROR details as REST.
    args: {
      start_date: t.arg.string({ description: 'Required. First day, ISO 8601 date (UTC), inclusive' }),
      end_date: t.arg.string({ description: `Required. Last day, inclusive; at most 366 days from start_date, both counted` }),
      granularity: t.arg.string({ description: '`hourly` or `daily` (default)' }),
      client_id: t.arg.string({ description: 'Another client of the organisation (needs admin:api-keys)' }),
    },
    resolve: async (_root, args, context) => {
      const principal = requirePrincipal(context.principal);
      const query = parseUsageQuery(principal, args);
      return { data: await readUsageTimeseries(context.prisma, principal.orgId, query) };
    },
  }),
}));
