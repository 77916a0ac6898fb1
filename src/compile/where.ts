/**
 * A Prisma where input as a SQL condition, for the part of Prisma's where language the filter
 * grammar, the list scopes and the keyset cursors produce. It mirrors what Prisma writes for each form
 * (plain `<>` and `NOT IN`, so NULLs are excluded exactly as there; ILIKE without an ESCAPE clause),
 * and anything else is NotCompiled, so the request runs through Prisma instead. The differential test
 * (test/integration/compile/) holds the two translations together.
 */
import { column, joinCondition, NotCompiled, table, type Statement } from './statement.ts';
import type { Model, Relation } from './model.ts';

type Where = Record<string, unknown>;

export function whereSql(statement: Statement, model: Model, alias: string, where: unknown): string {
  if (!isObject(where)) throw new NotCompiled('where', 'where that is not an object');
  const parts = Object.entries(where)
    .filter(([, value]) => value !== undefined)
    .map(([key, value]) => keySql(statement, model, alias, key, value));
  return all(parts);
}

function keySql(statement: Statement, model: Model, alias: string, key: string, value: unknown): string {
  switch (key) {
    case 'AND':
      return all(asList(value).map((part) => whereSql(statement, model, alias, part)));
    case 'OR':
      return any(asList(value).map((part) => whereSql(statement, model, alias, part)));
    case 'NOT':
      return `NOT ${all(asList(value).map((part) => whereSql(statement, model, alias, part)))}`;
  }
  if (model.scalars.has(key)) return scalarSql(statement, column(alias, key), value);
  const relation = model.relations.get(key);
  if (relation) return relationSql(statement, alias, relation, value);
  throw new NotCompiled('where', `where on ${model.name}.${key}`);
}

function scalarSql(statement: Statement, target: string, value: unknown): string {
  if (value === null) return `${target} IS NULL`;
  if (!isObject(value) || value instanceof Date) return `${target} = ${statement.param(value)}`;
  const filter = value as Where;
  const insensitive = filter.mode === 'insensitive';
  if (filter.mode !== undefined && !insensitive) throw new NotCompiled('where', `mode ${String(filter.mode)}`);
  const parts: string[] = [];
  for (const [op, operand] of Object.entries(filter)) {
    if (operand === undefined || op === 'mode') continue;
    parts.push(operatorSql(statement, target, op, operand, insensitive));
  }
  return all(parts);
}

const COMPARISONS: Record<string, string> = { gt: '>', gte: '>=', lt: '<', lte: '<=' };

function operatorSql(statement: Statement, target: string, op: string, operand: unknown, insensitive: boolean): string {
  const like = insensitive ? 'ILIKE' : 'LIKE';
  switch (op) {
    case 'equals':
      return scalarSql(statement, target, operand);
    case 'not':
      if (operand === null) return `${target} IS NOT NULL`;
      if (isObject(operand) && !(operand instanceof Date)) return `NOT (${scalarSql(statement, target, operand)})`;
      return `${target} <> ${statement.param(operand)}`;
    case 'in':
      return asArray(operand).length ? `${target} = ANY(${statement.param(asArray(operand))})` : 'FALSE';
    case 'notIn':
      return asArray(operand).length ? `NOT (${target} = ANY(${statement.param(asArray(operand))}))` : 'TRUE';
    case 'contains':
      return `${target} ${like} ${statement.param(`%${String(operand)}%`)}`;
    case 'startsWith':
      return `${target} ${like} ${statement.param(`${String(operand)}%`)}`;
    case 'endsWith':
      return `${target} ${like} ${statement.param(`%${String(operand)}`)}`;
  }
  const comparison = COMPARISONS[op];
  if (!comparison || operand === null) throw new NotCompiled('where', `operator ${op}`);
  return `${target} ${comparison} ${statement.param(operand)}`;
}

/** `EXISTS` over the related rows: some/none/every for lists, is/isNot (or a bare where) for one. */
function relationSql(statement: Statement, alias: string, relation: Relation, value: unknown): string {
  const exists = (where: unknown) => {
    const inner = statement.alias();
    const model = statement.model(relation.model);
    const condition = where === undefined ? '' : ` AND ${whereSql(statement, model, inner, where)}`;
    return `EXISTS (SELECT 1 FROM ${table(model)} ${inner} WHERE ${joinCondition(alias, inner, relation.from, relation.to)}${condition})`;
  };
  if (!isObject(value)) {
    if (value === null && !relation.isList) return `NOT ${exists(undefined)}`;
    throw new NotCompiled('where', `relation filter on ${relation.name}`);
  }
  const filter = value as Where;
  if (relation.isList) {
    const parts: string[] = [];
    if (filter.some !== undefined) parts.push(exists(filter.some));
    if (filter.none !== undefined) parts.push(`NOT ${exists(filter.none)}`);
    if (filter.every !== undefined) parts.push(`NOT ${exists({ NOT: filter.every })}`);
    if (Object.keys(filter).some((key) => !['some', 'none', 'every'].includes(key))) {
      throw new NotCompiled('where', `list relation filter on ${relation.name}`);
    }
    return all(parts);
  }
  if ('is' in filter || 'isNot' in filter) {
    const parts: string[] = [];
    if (filter.is !== undefined) parts.push(filter.is === null ? `NOT ${exists(undefined)}` : exists(filter.is));
    if (filter.isNot !== undefined) parts.push(filter.isNot === null ? exists(undefined) : `NOT ${exists(filter.isNot)}`);
    return all(parts);
  }
  return exists(filter);
}

function all(parts: string[]): string {
  if (parts.length === 0) return 'TRUE';
  return parts.length === 1 ? parts[0]! : `(${parts.join(' AND ')})`;
}

function any(parts: string[]): string {
  if (parts.length === 0) return 'FALSE';
  return parts.length === 1 ? parts[0]! : `(${parts.join(' OR ')})`;
}

function asList(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [value];
}

function asArray(value: unknown): unknown[] {
  if (!Array.isArray(value)) throw new NotCompiled('where', 'in/notIn without a list');
  return value;
}

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && typeof value !== 'bigint';
}
