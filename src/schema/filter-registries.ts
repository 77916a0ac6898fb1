/**
 * Each filterable resource's field registry (src/filter), derived from its record type in the built
 * schema: every field backed by a column filters and sorts as its column's type allows (the value kind
 * from Prisma's data model: a uuid, a date, whole dollars), unless its declaration says otherwise
 * (src/schema/field-facts.ts); then the list's own extra filter fields, relations and groupings
 * (the resource's `filters`). Order is the record's, which GET /api/filters/{resource} shows.
 */
import { isObjectType, type GraphQLField, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import { columnAlong, isModelName, type GeneratedColumn, type ModelName } from '../db/datamodel.ts';
import { columnAt, registry } from '../filter/fields/build.ts';
import type { ColumnField, FieldSpec, RelatedGrouping, Resource, ResourceRegistry, ValueKind } from '../filter/index.ts';
import { factsOf, type ColumnFilter } from './field-facts.ts';
import { stepName, type FollowPath } from './follow.ts';
import { declaredResources, type GroupingDeclaration, type Resource as DeclaredResource } from './resource.ts';

/** The filter kind of a column's values; none for JSON and arrays, which do not filter. */
export function valueKindOf(column: GeneratedColumn): ValueKind | undefined {
  if (column.list) return undefined;
  switch (column.type) {
    case 'Int':
      return 'int';
    // The data model's convention (prisma/schema.prisma): a BigInt is whole US dollars.
    case 'BigInt':
      return 'money';
    case 'Float':
      return 'float';
    case 'Decimal':
      return 'decimal';
    case 'Boolean':
      return 'bool';
    case 'String':
      return column.nativeType === 'Uuid' ? 'uuid' : 'string';
    case 'DateTime':
      return column.nativeType === 'Date' ? 'date' : 'datetime';
    default:
      return undefined;
  }
}

const isFieldSpec = (filter: object): filter is FieldSpec => 'target' in filter;

/** The model a Pothos prismaObject type reads. */
export function modelOfType(type: GraphQLObjectType): ModelName {
  const model = (type.extensions as { pothosPrismaModel?: string }).pothosPrismaModel;
  if (!model || !isModelName(model)) throw new Error(`${type.name} is not a Prisma model's type`);
  return model;
}

/** A column filter on `path` of `model`, typed from the data model; undefined when its type does not filter. */
function columnFilter(model: ModelName, name: string, path: readonly string[], filter: ColumnFilter): ColumnField | undefined {
  const column = columnAlong(model, path.slice(0, -1), path[path.length - 1]!);
  const kind = valueKindOf(column);
  if (!kind) return undefined;
  const field = columnAt(path as [string, ...string[]], kind, { name, nullable: !column.required, sortable: filter.sortable });
  return {
    ...field,
    ...(filter.operators ? { operators: filter.operators } : {}),
    ...(filter.readValue ? { readValue: filter.readValue } : {}),
  };
}

/** How one field of the record type filters, if it does. */
function filterOfField(model: ModelName, field: GraphQLField<unknown, unknown>): FieldSpec | undefined {
  const { filter = {} } = factsOf(field);
  if (filter === false) return undefined;
  if (isFieldSpec(filter)) return filter;
  const follow = (field.extensions as { follow?: FollowPath }).follow;
  // A relation filters only when it names a column of the record to compare (`entity` by `entity_id`).
  const column = filter.column ?? follow?.column;
  if (!follow || !column) return undefined;
  const steps = filter.column ? [] : follow.steps.map(stepName);
  return columnFilter(model, filter.name ?? (filter.column ? column : field.name), [...steps, column], filter);
}

function recordTypeOf(schema: GraphQLSchema, resource: DeclaredResource): GraphQLObjectType {
  const list = resource.lists?.find((candidate) => candidate.resource === resource.filter);
  const type = list && schema.getType(list.typeName);
  if (!isObjectType(type)) throw new Error(`The filterable resource ${resource.name} declares no list of its records`);
  return type;
}

function groupingOf(declaration: GroupingDeclaration, model: ModelName, registries: ReadonlyMap<Resource, ResourceRegistry>): RelatedGrouping {
  const columns = declaration.resource
    ? [...registries.get(declaration.resource)!.fields.values()].filter((field): field is ColumnField => field.target === 'column')
    : (declaration.columns ?? []).flatMap((name) => columnFilter(model, name, [...declaration.path, name], {}) ?? []).map((field) => ({
        ...field,
        path: [field.name] as [string],
      }));
  return {
    name: declaration.name,
    path: declaration.path,
    ...(declaration.resource ? { resource: declaration.resource } : {}),
    fields: new Map(columns.map((field) => [field.name, field])),
  };
}

/** Every filterable resource's registry, from the built schema and the resources' declarations. */
export function deriveFilterRegistries(schema: GraphQLSchema): Record<Resource, ResourceRegistry> {
  const filterable = declaredResources().filter((resource) => resource.filter);
  const models = new Map(filterable.map((resource) => [resource, modelOfType(recordTypeOf(schema, resource))]));
  const bare = new Map<Resource, ResourceRegistry>();
  for (const [resource, model] of models) {
    const fields = Object.values(recordTypeOf(schema, resource).getFields()).flatMap((field) => filterOfField(model, field) ?? []);
    const { refs = [], fields: more = [], relations = [] } = resource.filters ?? {};
    bare.set(resource.filter!, registry(resource.filter!, refs, [...fields, ...more], relations));
  }
  // Groupings read other resources' fields, so they join once every resource's own are known.
  const registries = {} as Record<Resource, ResourceRegistry>;
  for (const [resource, model] of models) {
    const own = bare.get(resource.filter!)!;
    const groupings = (resource.filters?.groupings ?? []).map((declaration) => groupingOf(declaration, model, bare));
    registries[resource.filter!] = registry(own.resource, own.refs, [...own.fields.values()], [...own.relations.values()], groupings);
  }
  return registries;
}
