/**
 * An aggregate query as one SQL statement. The source's rows (the list's where, written by the
 * compiler's where writer) are grouped by the dimensions; a related record's column comes from a
 * LATERAL subquery of the record's distinct values, so a round with two investors from one country
 * counts once under that country (and once under each of the others). The groups pass `having`, are
 * counted for `page.total`, and the page of them is built as JSON by PostgreSQL:
 *
 *   WITH g AS (SELECT <dimensions>, <metrics> FROM <table> r <laterals> WHERE <where> GROUP BY 1, 2),
 *        h AS (SELECT * FROM g WHERE <having>)
 *   SELECT (SELECT count(*) FROM h) AS total,
 *          (SELECT json_agg(<row> ORDER BY <order>) FROM (SELECT * FROM h ORDER BY <order> LIMIT OFFSET) p) AS rows
 */
import { quoteIdentifier } from '../db/client.ts';
import type { Model, Models } from '../compile/model.ts';
import { column, joinCondition, Statement, table } from '../compile/statement.ts';
import { whereSql } from '../compile/where.ts';
import type { ColumnField } from '../filter/fields.ts';
import { RESOURCE_MODEL } from '../schema/list-query.ts';
import { CODECS } from '../values/codecs.ts';
import type { Dimension } from './dimensions.ts';
import type { Metric } from './metrics.ts';
import type { AggregateQuery } from './query.ts';

export interface AggregateStatement {
  sql: string;
  params: unknown[];
}

export function aggregateStatement(query: AggregateQuery, models: Models, where: object): AggregateStatement {
  const { statement, groups, order } = groupsOf(query, models, where);
  const page = `SELECT * FROM h ORDER BY ${order('h')} LIMIT ${statement.param(query.window.limit)} OFFSET ${statement.param(query.window.offset)}`;
  const sql = [
    groups,
    `SELECT (SELECT count(*) FROM h)::int AS total,`,
    `(SELECT coalesce(json_agg(${rowJson(query)} ORDER BY ${order('p')}), '[]'::json) FROM (${page}) p)::text AS rows`,
  ].join(' ');
  return { sql, params: statement.params };
}

/**
 * Every group from the query's offset on, one row each (`row`: the group as the page's JSON writes
 * it), in the page's order: what a CSV export reads behind a cursor, one statement however many groups.
 */
export function aggregateRowsStatement(query: AggregateQuery, models: Models, where: object): AggregateStatement {
  const { statement, groups, order } = groupsOf(query, models, where);
  const sql = `${groups} SELECT ${rowJson(query)}::text AS row FROM h p ORDER BY ${order('p')} OFFSET ${statement.param(query.window.offset)}`;
  return { sql, params: statement.params };
}

/** The groups that pass `having` (the CTEs `g` and `h`), and their order under an alias. */
function groupsOf(query: AggregateQuery, models: Models, where: object): { statement: Statement; groups: string; order: (alias: string) => string } {
  const statement = new Statement(models);
  const model = statement.model(RESOURCE_MODEL[query.source]);
  const values = new ValueSources(statement, model);
  const dimensions = query.dimensions.map((dimension) => `${dimensionSql(statement, values, dimension)} AS ${quoteIdentifier(dimension.key)}`);
  const metrics = query.metrics.map((metric) => `${metricSql(values, metric)} AS ${quoteIdentifier(metric.label)}`);
  const filtered = whereSql(statement, model, 'r', where);
  const groupBy = dimensions.length ? ` GROUP BY ${dimensions.map((_, index) => index + 1).join(', ')}` : '';
  const grouped = `SELECT ${[...dimensions, ...metrics].join(', ')} FROM ${table(model)} r${values.joins()} WHERE ${filtered}${groupBy}`;

  const labels: Model = { name: 'having', table: 'h', scalars: new Map(query.metrics.map((metric) => [metric.label, ''])), relations: new Map() };
  const having = query.having ? whereSql(statement, labels, 'h', query.having) : 'TRUE';
  const order = (alias: string) =>
    query.order.map(({ key, descending }) => `${alias}.${quoteIdentifier(key)} ${descending ? 'DESC' : 'ASC'} NULLS LAST`).join(', ');
  return { statement, groups: `WITH g AS (${grouped}), h AS (SELECT * FROM g h WHERE ${having})`, order };
}

/** Each value's column: the row's own, or a LATERAL subquery's for a column behind relations (written once per path). */
class ValueSources {
  private readonly laterals = new Map<string, { alias: string; sql: string }>();

  constructor(
    private readonly statement: Statement,
    private readonly model: Model,
  ) {}

  of(steps: readonly string[], field: ColumnField): string {
    const name = field.path[field.path.length - 1]!;
    if (steps.length === 0) return column('r', name);
    const key = [...steps, name].join('.');
    let lateral = this.laterals.get(key);
    if (!lateral) {
      lateral = { alias: this.statement.alias(), sql: relatedValues(this.statement, this.model, steps, name) };
      this.laterals.set(key, lateral);
    }
    return `${lateral.alias}.v`;
  }

  joins(): string {
    return [...this.laterals.values()].map(({ alias, sql }) => ` LEFT JOIN LATERAL (${sql}) ${alias} ON TRUE`).join('');
  }
}

/** The distinct values of `name` on the records `steps` reach from the row `r` (none: one NULL, by the LEFT JOIN). */
function relatedValues(statement: Statement, model: Model, steps: readonly string[], name: string): string {
  let outer = 'r';
  let current = model;
  let reachesMany = false;
  const from: string[] = [];
  let correlation = '';
  for (const step of steps) {
    const relation = current.relations.get(step);
    if (!relation) throw new Error(`aggregate: ${current.name} has no relation ${step}`);
    const alias = statement.alias();
    current = statement.model(relation.model);
    const on = joinCondition(outer, alias, relation.from, relation.to);
    if (from.length === 0) correlation = on;
    from.push(from.length === 0 ? `${table(current)} ${alias}` : `JOIN ${table(current)} ${alias} ON ${on}`);
    reachesMany ||= relation.isList;
    outer = alias;
  }
  return `SELECT ${reachesMany ? 'DISTINCT ' : ''}${column(outer, name)} AS v FROM ${from.join(' ')} WHERE ${correlation}`;
}

/** Buckets of dates are their first day, in UTC; numeric buckets their lower bound. */
function dimensionSql(statement: Statement, values: ValueSources, dimension: Dimension): string {
  const value = values.of(dimension.steps, dimension.field);
  const { bucket } = dimension;
  if (!bucket) return value;
  if ('unit' in bucket) {
    const instant = dimension.field.kind === 'datetime' ? `(${value} AT TIME ZONE 'UTC')` : `${value}::timestamp`;
    return `date_trunc('${bucket.unit}', ${instant})::date`;
  }
  const width = statement.param(bucket.width);
  return `floor(${value}::numeric / ${width}::numeric) * ${width}::numeric`;
}

function metricSql(values: ValueSources, metric: Metric): string {
  if (metric.fn === 'count') return 'count(*)';
  const value = values.of(metric.field!.path.slice(0, -1), metric.field!);
  switch (metric.fn) {
    case 'count_distinct':
      return `count(DISTINCT ${value})`;
    case 'avg':
      return `avg(${value})::float8`;
    case 'median':
    case 'percentile':
      // Exact and continuous; `fraction` is two digits checked by the parser, not client text.
      return `percentile_cont(${metric.fraction!}) WITHIN GROUP (ORDER BY ${value}::float8)`;
    default:
      return `${metric.fn}(${value})`;
  }
}

/**
 * A group as the response row: dimensions as their records write them (dates `YYYY-MM-DD`, date-times
 * ISO), a bucket's start as a date or a number; counts, sums, averages and percentiles as numbers.
 */
function rowJson(query: AggregateQuery): string {
  const pairs = [
    ...query.dimensions.map((dimension) => {
      const value = `p.${quoteIdentifier(dimension.key)}`;
      const kind = !dimension.bucket ? dimension.field.kind : 'unit' in dimension.bucket ? 'date' : 'float';
      return `${literal(dimension.key)}, ${CODECS[kind].jsonSql(value)}`;
    }),
    ...query.metrics.map((metric) => {
      const value = `p.${quoteIdentifier(metric.label)}`;
      const dated = (metric.fn === 'min' || metric.fn === 'max') && (metric.field!.kind === 'date' || metric.field!.kind === 'datetime');
      return `${literal(metric.label)}, ${dated ? CODECS[metric.field!.kind].jsonSql(value) : value}`;
    }),
  ];
  return `json_build_object(${pairs.join(', ')})`;
}

/** Keys are checked names (fields, buckets, labels); quoted all the same. */
const literal = (text: string): string => `'${text.replaceAll("'", "''")}'`;
