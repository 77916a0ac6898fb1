/**
 * Permissions and the access rules the schema carries. A rule is declared where its field or type is
 * declared (src/schema/resource.ts puts it in the GraphQL `extensions` under ACCESS), and read back
 * here from the built schema, so there is no separate table to forget a row in or to hold a row for a
 * field that does not exist. `assertAccessDeclared` stops the start when a root field has no rule or a
 * type can be reached without passing a field that guards it.
 */
import {
  getNamedType,
  isObjectType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';

export const PERMISSIONS = [
  'read:entities',
  'read:investors',
  'read:founders',
  'read:transactions',
  'read:valuations',
  'read:news',
  'read:ecosystems',
  'write:ecosystems',
  'read:teams',
  'write:teams',
  'read:usage',
  'read:webhooks',
  'write:webhooks',
  'create:api-keys',
  'admin:api-keys',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value);
}

/** A valid token is enough (e.g. a caller's own API keys, reference data). */
export const ANY_CALLER = 'any-caller' as const;

/** The permission depends on an argument's value, e.g. `filters(resource: "founders")`. */
export interface ArgumentRule {
  argument: string;
  byValue: Readonly<Record<string, Permission>>;
  /** For values without a row. */
  otherwise: Permission | typeof ANY_CALLER;
}

/**
 * `permission`, plus every permission the `argument` lists: whoever grants permissions (to a new API
 * key) must hold them. Checked with the other rules before anything executes, so an operation whose
 * second mutation grants too much is refused before its first one commits.
 */
export interface GrantRule {
  permission: Permission;
  grants: string;
}

export type FieldRule = Permission | typeof ANY_CALLER | ArgumentRule | GrantRule;

/**
 * A resource type's access: its fields need one of `anyOf` wherever a query reaches them, except the
 * `summary` fields other records embed (a round's `entity {id name}`).
 */
export interface TypeAccess {
  anyOf: readonly (Permission | typeof ANY_CALLER)[];
  summary: readonly string[];
}

/** The `extensions` key under which fields carry their FieldRule and types their TypeAccess. */
export const ACCESS = 'access';

type WithExtensions = { extensions?: Readonly<Record<string, unknown>> | null };

/** The rule of a root field (`Query.entities`), or undefined when none was declared. */
export function rootFieldRule(schema: GraphQLSchema, key: string): FieldRule | undefined {
  // Looked up per request and root field: kept per schema and key.
  let rules = rulesBySchema.get(schema);
  if (!rules) rulesBySchema.set(schema, (rules = new Map()));
  if (!rules.has(key)) rules.set(key, lookUpRootFieldRule(schema, key));
  return rules.get(key);
}

const rulesBySchema = new WeakMap<GraphQLSchema, Map<string, FieldRule | undefined>>();

function lookUpRootFieldRule(schema: GraphQLSchema, key: string): FieldRule | undefined {
  const [typeName, fieldName] = key.split('.');
  const type = schema.getType(typeName ?? '');
  const field = type && isObjectType(type) ? type.getFields()[fieldName ?? ''] : undefined;
  return field ? ((field as WithExtensions).extensions?.[ACCESS] as FieldRule | undefined) : undefined;
}

/**
 * A type whose access is the access of what one of its fields returns: a `{data, page}` list is
 * guarded by its records' access, so its page (counts, cursors) is no easier to read than its rows.
 */
export interface DerivedAccess {
  accessOf: string;
}

/** `extensions` of a type guarded as its `field`'s type is (list envelopes: `data`). */
export const accessOf = (field: string): { readonly [ACCESS]: DerivedAccess } => ({ [ACCESS]: { accessOf: field } });

/**
 * A type's access: its own, or the access it derives from a field's type (every field guarded, no
 * summary); undefined for types reached only through a guarded field (Page, Tag ...).
 */
export function typeAccess(type: GraphQLNamedType | null | undefined): TypeAccess | undefined {
  const declared = (type as WithExtensions | null | undefined)?.extensions?.[ACCESS] as TypeAccess | DerivedAccess | undefined;
  if (!declared || !('accessOf' in declared)) return declared;
  const field = isObjectType(type) ? type.getFields()[declared.accessOf] : undefined;
  const source = field ? typeAccess(getNamedType(field.type)) : undefined;
  return source && { anyOf: source.anyOf, summary: [] };
}

/** Every permission a rule can ask for (for documentation and the start-up check). */
export function rulePermissions(rule: FieldRule): string[] {
  if (rule === ANY_CALLER) return [];
  if (typeof rule === 'string') return [rule];
  if ('grants' in rule) return [rule.permission];
  const named = [...new Set(Object.values(rule.byValue))];
  return rule.otherwise === ANY_CALLER || named.includes(rule.otherwise) ? named : [...named, rule.otherwise];
}

const ROOT_TYPES = ['Query', 'Mutation', 'Subscription'] as const;

function rootFieldEntries(schema: GraphQLSchema): [string, GraphQLField<unknown, unknown>][] {
  return ROOT_TYPES.flatMap((typeName) => {
    const type = schema.getType(typeName);
    if (!type || !isObjectType(type)) return [];
    return Object.values(type.getFields())
      .filter((field) => !field.name.startsWith('__'))
      .map((field): [string, GraphQLField<unknown, unknown>] => [`${typeName}.${field.name}`, field]);
  });
}

/**
 * What a schema leaves undeclared: root fields without a rule, rules and types naming unknown
 * permissions, and object types without access reached from anything that does not guard them (a
 * root field, another undeclared type, a summary field): such a type would answer whoever may call
 * the root field, whatever the data it describes.
 */
export function undeclaredAccess(schema: GraphQLSchema): string[] {
  const problems: string[] = [];
  for (const [key] of rootFieldEntries(schema)) {
    const rule = rootFieldRule(schema, key);
    if (rule === undefined) problems.push(`${key} has no permission rule`);
    else for (const name of unknownPermissions(rule)) problems.push(`${key} names unknown permission ${name}`);
  }
  for (const type of objectTypes(schema)) {
    const access = typeAccess(type);
    for (const name of access?.anyOf ?? []) {
      if (name !== ANY_CALLER && !isPermission(name)) problems.push(`${type.name} names unknown permission ${name}`);
    }
    for (const field of Object.values(type.getFields())) {
      const returned = getNamedType(field.type);
      const guarded = access !== undefined && !access.summary.includes(field.name);
      if (isObjectType(returned) && !typeAccess(returned) && !guarded) {
        problems.push(`${returned.name} (returned by ${type.name}.${field.name}) declares no access`);
      }
    }
  }
  return [...new Set(problems)];
}

function unknownPermissions(rule: FieldRule): string[] {
  return rulePermissions(rule).filter((name) => !isPermission(name));
}

function objectTypes(schema: GraphQLSchema): GraphQLObjectType[] {
  return Object.values(schema.getTypeMap()).filter(
    (type): type is GraphQLObjectType => isObjectType(type) && !type.name.startsWith('__'),
  );
}

/** Fails the start, naming everything undeclared. */
export function assertAccessDeclared(schema: GraphQLSchema): void {
  const problems = undeclaredAccess(schema);
  if (problems.length) {
    throw new Error(`Undeclared access (declare it with the resource, src/schema/resource.ts): ${problems.join('; ')}`);
  }
}

/** `a,b,c` from the command line: known permission names, else an error naming the unknown ones. */
export function parsePermissionList(text: string): Permission[] {
  const names = [...new Set(text.split(',').map((name) => name.trim()).filter(Boolean))];
  const unknown = names.filter((name) => !isPermission(name));
  if (unknown.length) throw new Error(`Unknown permission(s): ${unknown.join(', ')}; known: ${PERMISSIONS.join(', ')}`);
  return names as Permission[];
}
