/**
 * Aggregates over GraphQL, and the REST rows that map onto them (docs/aggregates.md): one root field
 * per question shape, `aggregate(source, ...)` and `ecosystemAggregate(ecosystem, ...)`, each reading
 * the query once (src/aggregate/query.ts) and answering it with one statement (src/aggregate/run.ts).
 */
import { ANY_CALLER } from '../auth/permissions.ts';
import { readModels } from '../compile/model.ts';
import { OWN_STATEMENT } from '../compile/operation.ts';
import { aggregateError, suggest } from './errors.ts';
import { readAggregateQuery } from './query.ts';
import { runAggregate, type AggregateResult, type AggregateSources } from './run.ts';
import { requireReadPermissions } from '../schema/read-permissions.ts';
import { AGGREGATE_LIMITS } from '../filter/aggregate-vocabulary.ts';
import { isResource, RESOURCES, type Resource } from '../filter/index.ts';
import { ECOSYSTEM_SLUG } from '../management/ecosystems.ts';
import { builder } from '../schema/builder.ts';
import { ecosystemEntityList, ECOSYSTEMS } from '../management/ecosystem-schema.ts';
import { ENTITY_LIST } from '../schema/entity.ts';
import { FOUNDER_LIST } from '../schema/founder.ts';
import { INVESTOR_LIST } from '../schema/investor.ts';
import type { ListDefinition } from '../schema/list-query.ts';
import { NEWS_LIST } from '../schema/news.ts';
import { accessRule, declareResource, readPermissionByFilter, replicaReads, type RestRow } from '../schema/resource.ts';
import { TRANSACTION_LIST } from '../schema/transaction.ts';
import { VALUATION_LIST } from '../schema/valuation.ts';

const LISTS: Readonly<Record<Resource, ListDefinition<Resource>>> = {
  entities: ENTITY_LIST,
  founders: FOUNDER_LIST,
  investors: INVESTOR_LIST,
  transactions: TRANSACTION_LIST,
  valuations: VALUATION_LIST,
  news: NEWS_LIST,
};

/** REST parameter names of the arguments named otherwise in GraphQL, for the error details. */
const REST_NAMES = { metrics: 'metric', groupBy: 'group_by' };

const operationName = (source: string): string => `Aggregate${source.charAt(0).toUpperCase()}${source.slice(1)}`;

const sourceRow = (source: Resource): RestRow => ({
  method: 'GET',
  path: `/api/aggregate/${source}`,
  operation: operationName(source),
  kind: 'aggregate',
  aggregates: source,
  argumentNames: REST_NAMES,
});

// Who may read the answer is decided by the root field (the source's read permission) and the
// resolver (a related source's): the result types themselves hold no records.
export const AGGREGATES = declareResource({
  name: 'aggregates',
  description: 'How much, by what: counts, sums, averages and percentiles of any data resource, grouped and filtered with the list grammar.',
  read: ANY_CALLER,
  rest: [
    ...RESOURCES.map(sourceRow),
    {
      method: 'GET',
      path: '/api/ecosystems/{ecosystem}/aggregate',
      operation: 'AggregateEcosystemEntities',
      kind: 'aggregate',
      aggregates: 'entities',
      argumentNames: REST_NAMES,
      textParams: { ecosystem: ECOSYSTEM_SLUG },
    },
  ],
});

const SOURCES: AggregateSources = { models: readModels() };

const AggregatePage = builder.objectRef<AggregateResult['page']>('AggregatePage').implement({
  description: 'The page of groups: `total` is the number of groups (after `having`), always counted',
  fields: (t) => ({
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
    total: t.exposeInt('total'),
  }),
});

const AggregateMetric = builder.objectRef<AggregateResult['query_info']['metrics'][number]>('AggregateMetric').implement({
  fields: (t) => ({
    label: t.exposeString('label', { description: "The metric's key in each row" }),
    metric: t.exposeString('metric', { description: 'The metric as written, e.g. `sum:amount_usd`' }),
  }),
});

const AggregateQueryInfo = builder.objectRef<AggregateResult['query_info']>('AggregateQueryInfo').implement({
  extensions: AGGREGATES.owns(),
  description: 'What was asked, as read: the source, the dimensions, each metric with its label',
  fields: (t) => ({
    source: t.exposeString('source'),
    group_by: t.exposeStringList('group_by', { description: 'The dimensions as written' }),
    metrics: t.field({ type: [AggregateMetric], resolve: (info) => info.metrics }),
  }),
});

const AggregateAnswer = builder.objectRef<AggregateResult>('AggregateResult').implement({
  extensions: AGGREGATES.owns(),
  description: 'One row per group: each dimension under its key, each metric under its label',
  fields: (t) => ({
    data: t.field({
      type: ['JSON'],
      description:
        'The groups, e.g. `{"hq_country": "Germany", "count": 812}`: dimension keys are the dimensions as written with `:` and `.` as `_` ' +
        '(`date:year` → `date_year`); counts are integers, sums, averages and percentiles numbers (money in USD), null for an empty set',
      resolve: (answer) => answer.data,
    }),
    page: t.field({ type: AggregatePage, resolve: (answer) => answer.page }),
    query_info: t.field({ type: AggregateQueryInfo, resolve: (answer) => answer.query_info }),
  }),
});

const aggregateArgs = builder.args((t) => ({
  metrics: t.stringList({
    required: true,
    description:
      `1 to ${AGGREGATE_LIMITS.metrics} metrics: \`count\`, \`count_distinct:<field>\`, \`sum:<field>\`, \`avg:<field>\`, \`min:<field>\`, ` +
      '`max:<field>`, `median:<field>`, `p01:<field>`..`p99:<field>`; `<label>,<metric>` names its key (default: the metric with `:` as `_`). ' +
      '`GET /api/filters/{resource}` lists which field takes which',
  }),
  groupBy: t.string({
    description:
      `Up to ${AGGREGATE_LIMITS.dimensions} comma-separated dimensions: a field (\`hq_country\`), a date bucket (\`date:year|quarter|month|week|day\`), ` +
      'a numeric bucket (`amount_usd:bucket(1000000)`) or a related record\'s field (`entity.hq_country`, `tags.name`)',
  }),
  filter: t.string({ description: "The source's list filter: the same grammar and meaning" }),
  having: t.string({ description: 'The filter grammar over the metric labels, e.g. `and(count[gte]:10,median_amount_usd[gt]:1000000)`' }),
  sort: t.string({ description: 'Metric labels and dimension keys, `-` for descending; default: the first metric descending, then the dimensions' }),
  limit: t.int({ description: `Groups per page: 1 to ${AGGREGATE_LIMITS.maxLimit} (default 25)` }),
  offset: t.int({ description: 'Groups to skip (default 0)' }),
}));

function sourceNamed(source: string): Resource {
  if (isResource(source)) return source;
  throw aggregateError('source', `unknown source '${source}'; ${suggest(source, RESOURCES)}`);
}

builder.queryFields((t) => ({
  aggregate: t.field({
    type: AggregateAnswer,
    description: 'How much, by what: metrics over the records of `source`, grouped by up to three dimensions (docs/aggregates.md)',
    // The source's read permission; a related dimension or filter also needs that source's (checked by the resolver).
    // OWN_STATEMENT: served by this resolver's one statement, not counted as a compiled read or a fallback.
    extensions: { ...accessRule({ argument: 'source', byValue: readPermissionByFilter(), otherwise: ANY_CALLER }), ...OWN_STATEMENT, ...replicaReads },
    args: {
      source: t.arg.string({ required: true, description: RESOURCES.join(', ') }),
      ...aggregateArgs,
    },
    resolve: async (_root, { source: written, filter, groupBy, ...args }, context) => {
      const source = sourceNamed(written);
      const query = readAggregateQuery(source, { ...args, groupBy: groupBy ? [groupBy] : [] });
      return runAggregate(query, filter, LISTS[source], context, SOURCES);
    },
  }),
  ecosystemAggregate: t.field({
    type: AggregateAnswer,
    description: "`aggregate` over the entities of an ecosystem: its stored filter ANDed with `filter`",
    // read:ecosystems here; the entities' read:entities in the resolver, before anything else.
    extensions: { ...ECOSYSTEMS.reads, ...OWN_STATEMENT, ...replicaReads },
    args: {
      ecosystem: t.arg.string({ required: true, description: 'The id (all digits), or the slug' }),
      ...aggregateArgs,
    },
    resolve: async (_root, { ecosystem, filter, groupBy, ...args }, context) => {
      requireReadPermissions(context, ['entities']);
      const query = readAggregateQuery('entities', { ...args, groupBy: groupBy ? [groupBy] : [] });
      return runAggregate(query, filter, await ecosystemEntityList({ ecosystem }, context), context, SOURCES);
    },
  }),
}));
