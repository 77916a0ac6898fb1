/**
 * Checks an operation against the access rules its schema declares before anything runs: each root
 * field's rule, and the access of every resource type it reaches (src/auth/permissions.ts). Every
 * field of every selected operation is checked before any of it executes. The REST handler calls it
 * before reading parameters; the GraphQL plugin calls it before execution, with the variables, so both
 * transports refuse the same requests with the same error.
 */
import {
  Kind,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLSchema,
  type FieldNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { AppError } from '../errors.ts';
import { assertGrantable } from './api-keys.ts';
import { ANY_CALLER, isPermission, rootFieldRule, typeAccess, type FieldRule, type GrantRule, type Permission, type TypeAccess } from './permissions.ts';
import type { Principal } from './principal.ts';

const ROOT_TYPE_NAMES = { query: 'Query', mutation: 'Mutation', subscription: 'Subscription' } as const;

export interface RootField {
  /** `Query.entities` */
  key: string;
  node: FieldNode;
}

export interface AuthorizeOptions {
  /** The schema whose declared rules apply. */
  schema: GraphQLSchema;
  /** Unknown (REST before parameters are read): rules that depend on a variable are left to execution. */
  variables?: Readonly<Record<string, unknown>> | null | undefined;
  operationName?: string | null | undefined;
}

/** Throws FORBIDDEN naming what is missing; UNAUTHORIZED when there is no principal at all. */
export function authorizeOperation(document: DocumentNode, principal: Principal | null, options: AuthorizeOptions): void {
  if (!principal) throw new AppError('UNAUTHORIZED', 'Authentication is required', { headers: { 'WWW-Authenticate': 'Bearer' } });
  const missing = new Set<string>();
  for (const field of rootFieldsOnce(document, options.operationName)) {
    if (field.node.name.value.startsWith('__')) continue;
    const rule = rootFieldRule(options.schema, field.key);
    // Fail closed: a field nobody declared a rule for is nobody's to call.
    if (rule === undefined) throw new AppError('FORBIDDEN', `${field.key} has no permission rule`);
    for (const needed of resolveRule(rule, field.node, options.variables)) {
      if (needed !== ANY_CALLER && !principal.permissions.has(needed)) missing.add(needed);
    }
    if (typeof rule === 'object' && 'grants' in rule && !missing.size) {
      assertGrantable(principal, grantedBy(rule, field.node, options.variables));
    }
  }
  for (const anyOf of typePermissions(document, options.schema)) {
    if (!anyOf.some((permission) => permission === ANY_CALLER || principal.permissions.has(permission))) missing.add(anyOf[0]!);
  }
  if (missing.size) {
    const list = [...missing].join(', ');
    throw new AppError('FORBIDDEN', `This request needs the ${list} permission${missing.size > 1 ? 's' : ''}`);
  }
}

/**
 * Whether a check with the variables can decide otherwise than one without them: only a root field
 * whose rule reads an argument (or grants what an argument names) can. REST checks once before reading
 * parameters, and again with them only then.
 */
export function rulesReadVariables(document: DocumentNode, schema: GraphQLSchema, operationName?: string | null): boolean {
  return rootFieldsOnce(document, operationName).some((field) => typeof rootFieldRule(schema, field.key) === 'object');
}

type AnyOf = TypeAccess['anyOf'];

/** Per schema and document: REST's prepared documents and /graphql's known documents reuse the same objects. */
const typePermissionCache = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, ReadonlySet<AnyOf>>>();

/**
 * The permissions the fields of `document` need by the type they are on (its declared access; any one
 * of each set will do). Every definition is walked, unused fragments too: conservative, like the root check.
 */
function typePermissions(document: DocumentNode, schema: GraphQLSchema): ReadonlySet<AnyOf> {
  let bySchema = typePermissionCache.get(schema);
  if (!bySchema) typePermissionCache.set(schema, (bySchema = new WeakMap()));
  let needed = bySchema.get(document);
  if (!needed) bySchema.set(document, (needed = walkTypePermissions(document, schema)));
  return needed;
}

function walkTypePermissions(document: DocumentNode, schema: GraphQLSchema): Set<AnyOf> {
  const needed = new Set<AnyOf>();
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field: (node) => {
        const access = typeAccess(typeInfo.getParentType());
        if (access && !access.summary.includes(node.name.value) && !node.name.value.startsWith('__')) needed.add(access.anyOf);
      },
    }),
  );
  return needed;
}

/**
 * The permissions a field needs; a part that depends on a variable not known yet (REST checks before
 * reading parameters) is left to the check at execution, which has the variables.
 */
function resolveRule(rule: FieldRule, node: FieldNode, variables: AuthorizeOptions['variables']): (Permission | typeof ANY_CALLER)[] {
  if (typeof rule === 'string') return [rule];
  const argumentValue = (name: string) => argumentOf(node, name, variables);
  if ('grants' in rule) return [rule.permission];
  const value = argumentValue(rule.argument);
  if (value === DEFERRED) return [];
  return [(typeof value === 'string' && Object.hasOwn(rule.byValue, value) ? rule.byValue[value] : undefined) ?? rule.otherwise];
}

/** The known permissions a grant rule's argument lists (unknown names are the resolver's 400, not a 403). */
function grantedBy(rule: GrantRule, node: FieldNode, variables: AuthorizeOptions['variables']): string[] {
  const granted = argumentOf(node, rule.grants, variables);
  return Array.isArray(granted) ? granted.filter(isPermission) : [];
}

function argumentOf(node: FieldNode, name: string, variables: AuthorizeOptions['variables']): unknown {
  const argument = node.arguments?.find((candidate) => candidate.name.value === name);
  return argument ? literalValue(argument.value, variables) : undefined;
}

const DEFERRED = Symbol('deferred');

function literalValue(node: ValueNode, variables: AuthorizeOptions['variables']): unknown {
  if (node.kind === Kind.VARIABLE) return variables ? variables[node.name.value] : DEFERRED;
  if (node.kind === Kind.STRING || node.kind === Kind.ENUM) return node.value;
  if (node.kind === Kind.LIST) return node.values.map((item) => literalValue(item, variables));
  return undefined;
}

/** Per document and operation name, like the type permissions: a document is walked once. */
const rootFieldCache = new WeakMap<DocumentNode, Map<string, readonly RootField[]>>();

function rootFieldsOnce(document: DocumentNode, operationName?: string | null): readonly RootField[] {
  let byName = rootFieldCache.get(document);
  if (!byName) rootFieldCache.set(document, (byName = new Map()));
  let fields = byName.get(operationName ?? '');
  if (!fields) byName.set(operationName ?? '', (fields = rootFields(document, operationName)));
  return fields;
}

/**
 * The root fields an operation selects, through fragments and inline fragments. Directives are not
 * evaluated: a field under `@skip` still needs its permission (conservative on purpose).
 */
export function rootFields(document: DocumentNode, operationName?: string | null): RootField[] {
  const operations = document.definitions.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  const chosen = operationName ? operations.filter((operation) => operation.name?.value === operationName) : operations;
  const fragments = new Map(
    document.definitions
      .filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment]),
  );
  // No match by name: check every operation rather than none (execution will reject the name anyway).
  return (chosen.length ? chosen : operations).flatMap((operation) =>
    collectFields(operation.selectionSet, fragments, new Set()).map((node) => ({
      key: `${ROOT_TYPE_NAMES[operation.operation]}.${node.name.value}`,
      node,
    })),
  );
}

function collectFields(
  selectionSet: SelectionSetNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  visited: Set<string>,
): FieldNode[] {
  return selectionSet.selections.flatMap((selection): FieldNode[] => {
    if (selection.kind === Kind.FIELD) return [selection];
    if (selection.kind === Kind.INLINE_FRAGMENT) return collectFields(selection.selectionSet, fragments, visited);
    const name = selection.name.value;
    const fragment = fragments.get(name);
    if (!fragment || visited.has(name)) return [];
    visited.add(name);
    return collectFields(fragment.selectionSet, fragments, visited);
  });
}
