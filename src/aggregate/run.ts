/**
 * Answers an aggregate query: the filter read by the source's own list code (the same checks, the
 * same scope such as hidden soft-deleted entities, the same where, and the same related permissions
 * for the filter's conditions and an ecosystem's stored filter), the related dimensions' permissions
 * checked by the same rule (src/schema/read-permissions.ts), then one statement.
 */
import type { Models } from '../compile/model.ts';
import type { Resource } from '../filter/index.ts';
import type { GraphQLContext } from '../schema/context.ts';
import { readListRequest, type ListDefinition } from '../schema/list-query.ts';
import { requireReadPermissions } from '../schema/read-permissions.ts';
import type { AggregateQuery } from './query.ts';
import { aggregateRowsStatement, aggregateStatement } from './statement.ts';

export interface AggregateResult {
  data: Record<string, unknown>[];
  page: { limit: number; offset: number; total: number };
  query_info: { source: Resource; group_by: string[]; metrics: { label: string; metric: string }[] };
}

export interface AggregateSources {
  models: Models;
}

export async function runAggregate(
  query: AggregateQuery,
  filter: string | null | undefined,
  definition: ListDefinition<Resource>,
  context: GraphQLContext,
  sources: AggregateSources,
): Promise<AggregateResult> {
  const request = await readListRequest(definition, { filter }, context);
  requireReadPermissions(context, query.dimensions.flatMap((dimension) => (dimension.needs ? [dimension.needs] : [])));
  const query_info: AggregateResult['query_info'] = {
    source: query.source,
    group_by: query.dimensions.map((dimension) => dimension.written),
    metrics: query.metrics.map(({ label, metric }) => ({ label, metric })),
  };
  // Exported whole: the statement of every group goes to the export, which streams it (src/aggregate/export.ts).
  const exporting = context.exportAggregate;
  if (exporting) {
    exporting({ ...aggregateRowsStatement(query, sources.models, request.where), client: context.sql, signal: context.signal });
    return { data: [], page: { limit: query.window.limit, offset: query.window.offset, total: 0 }, query_info };
  }
  const { sql, params } = aggregateStatement(query, sources.models, request.where);
  const [row] = await context.sql.prepared<{ total: number; rows: string }>(sql, params, context.signal);
  return {
    data: JSON.parse(row!.rows) as Record<string, unknown>[],
    page: { limit: query.window.limit, offset: query.window.offset, total: Number(row!.total) },
    query_info,
  };
}
