/**
 * The resources the changes feed reports, by the name a change type starts with (`entity.updated`):
 * the resource each names (its filter registry, from which its read permission and record type are
 * derived), and how the columns a trigger saw change become the names of the record's fields.
 */
import { isObjectType, type GraphQLSchema } from 'graphql';
import type { Resource as FilterResource } from '../filter/index.ts';
import type { Permission } from '../auth/permissions.ts';
import { declaredResources, readPermissionByFilter } from '../schema/resource.ts';

/** Change type prefix → the resource's filter registry (its record, its permission). */
export const CHANGE_RESOURCES = {
  entity: 'entities',
  investor: 'investors',
  founder: 'founders',
  transaction: 'transactions',
  valuation: 'valuations',
  news: 'news',
} as const satisfies Record<string, FilterResource>;

export type ChangeResource = keyof typeof CHANGE_RESOURCES;
export const CHANGE_KINDS = ['created', 'updated', 'deleted'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

export const CHANGE_RESOURCE_NAMES = Object.keys(CHANGE_RESOURCES) as ChangeResource[];

export function isChangeResource(name: string): name is ChangeResource {
  return Object.hasOwn(CHANGE_RESOURCES, name);
}

/** What reading a resource's changes needs: reading the resource. */
export function changePermission(resource: ChangeResource): Permission {
  const permission = readPermissionByFilter()[CHANGE_RESOURCES[resource]];
  if (!permission) throw new Error(`No read permission is declared for ${CHANGE_RESOURCES[resource]}`);
  return permission;
}

export interface RecordFields {
  /** Every field of the record, in declaration order: what a created record set. */
  all: readonly string[];
  /** A changed column → the field a client sees change, or undefined for a column the record does not show. */
  fieldOf(column: string): string | undefined;
}

const fieldsCache = new WeakMap<GraphQLSchema, Map<ChangeResource, RecordFields>>();

/**
 * A resource's record fields, read from its GraphQL type: a column is the field of its name, and a
 * foreign key `entity_id` is the `entity` field that shows the record it points at.
 */
export function recordFields(schema: GraphQLSchema, resource: ChangeResource): RecordFields {
  let bySchema = fieldsCache.get(schema);
  if (!bySchema) fieldsCache.set(schema, (bySchema = new Map()));
  let fields = bySchema.get(resource);
  if (fields) return fields;
  const typeName = recordTypeName(resource);
  const type = schema.getType(typeName);
  if (!isObjectType(type)) throw new Error(`No record type ${typeName}`);
  const all = type.getFields();
  const fieldOf = (column: string) => {
    if (Object.hasOwn(all, column)) return column;
    const target = column.endsWith('_id') ? column.slice(0, -'_id'.length) : undefined;
    return target && Object.hasOwn(all, target) ? target : undefined;
  };
  fields = { all: Object.keys(all), fieldOf };
  bySchema.set(resource, fields);
  return fields;
}

/** The GraphQL type of a resource's records (`Entity`), as its list declares it. */
export function recordTypeName(resource: ChangeResource): string {
  const list = declaredResources()
    .flatMap((declared) => declared.lists ?? [])
    .find((facts) => facts.resource === CHANGE_RESOURCES[resource]);
  if (list) return list.typeName;
  throw new Error(`No list declares the records of ${CHANGE_RESOURCES[resource]}`);
}
