/**
 * A resource, declared once, in its own schema file: the permissions reading and writing it need, how
 * its records belong to an organisation, the facts about its lists, and its REST rows. Its Pothos types and root fields carry the access rules
 * (`extensions: X.reads`, `extensions: X.owns()`), so from this one declaration the service derives
 * the permission checks at the root and below it (src/auth/authorize.ts), the route table
 * (src/rest/routes.ts), the OpenAPI document (src/openapi/), and `GET /api/filters/{resource}`.
 * `getSchema()` refuses to build a schema that leaves a root field or a returned type undeclared.
 */
import { ACCESS, ANY_CALLER, type FieldRule, type Permission, type TypeAccess } from '../auth/permissions.ts';
import type { TenantRule, TenantRules } from '../auth/tenancy.ts';
import type { FieldSpec, Resource as FilterResource, RelationSpec } from '../filter/index.ts';
import type { z } from 'zod';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * How a REST row reads its request and answers:
 * - `list`: a filterable, sortable list (filter, sort, cursor, limit, offset, include_total) → `{data, page}`;
 * - `page`: a paged list (limit, offset, include_total) → `{data, page}`;
 * - `items`: a short list of its own query parameters → `{data}`;
 * - `record`: one record (from the path, and the body if it has one) → `{data}`, 404 when null;
 * - `created`: 201 with `{data}`; `accepted`: 202 with `{data}` and `Location` (a job that runs later); `deleted`: 204 without a body;
 * - `aggregate`: metrics by dimensions (metric, group_by, filter, having, sort, limit, offset) →
 *   `{data, page, query_info}` (docs/aggregates.md);
 * - `ranking`: a ranked, unpaged answer to its own query parameters, as its root field (aliased
 *   `ranking`) gives it: `{data, page: {limit}}` (similar companies).
 */
export type RestKind = 'list' | 'page' | 'items' | 'record' | 'created' | 'accepted' | 'deleted' | 'aggregate' | 'feed' | 'ranking';

export interface QueryParameter {
  name: string;
  type: 'string' | 'integer' | 'boolean';
  /** Missing is 400 (`is required`); declare its operation variable non-null too, for the documents. */
  required?: boolean;
}

export interface RestRow {
  method: HttpMethod;
  /** Path template; every `{param}` becomes the operation variable of that name. */
  path: string;
  /** Name of the prepared operation in src/rest/operations/*.graphql. */
  operation: string;
  kind: RestKind;
  /** Path parameters taken as text, each with the pattern it must match (else 400); every other one is a numeric id. */
  textParams?: Readonly<Record<string, RegExp>>;
  /** Query parameters of an `items`, `feed` or `ranking` row. */
  query?: readonly QueryParameter[];
  /** The JSON body → operation variables; throws VALIDATION_ERROR with `body.<field>` paths. */
  body?: (body: unknown) => Record<string, unknown>;
  /** Error statuses it answers beyond those of its kind (the OpenAPI document lists them). */
  errors?: readonly number[];
  /** Request headers → operation variables (an `Idempotency-Key`). */
  headers?: (header: (name: string) => string | undefined) => Record<string, unknown>;
  /** The zod schema `body` parses with: the OpenAPI document describes the body from it (src/openapi/body-schema.ts). */
  bodySchema?: z.ZodType;
  /** The zod object an `items` row's resolver checks its query parameters with, for the document likewise. */
  querySchema?: z.ZodType;
  /** What the 404 of a `record` row calls the record, e.g. `Entity` (`Entity not found`). */
  noun?: string;
  /** The source an `aggregate` row aggregates (which fields it groups and measures). */
  aggregates?: FilterResource;
  /** Query parameters that the operation's arguments name otherwise (`groupBy` is `group_by`), for error details. */
  argumentNames?: Readonly<Record<string, string>>;
}

/** What the list code enforces about a list of `typeName` rows (the document states it too). */
export interface ListFacts {
  typeName: string;
  maxLimit: number;
  /** The filter registry of a filterable, sortable list. */
  resource?: FilterResource;
  defaultSort?: string;
}

/**
 * Records reached from each record whose fields aggregates group by (`group_by=entity.hq_country`):
 * the fields of a related resource, or columns of the related model's own (a tag's name and type).
 */
export interface GroupingDeclaration {
  readonly name: string;
  /** Prisma relation steps from the resource's model to the related records' model. */
  readonly path: readonly [string, ...string[]];
  /** The resource the related records are: its column fields, and its read permission a dimension needs. */
  readonly resource?: FilterResource;
  /** Columns of the related model, when the records are part of this resource's own (an entity's tags). */
  readonly columns?: readonly string[];
}

/**
 * What a list filters by beyond its record type's column fields, which filter as they declare
 * (src/schema/field-facts.ts); src/schema/filter-registries.ts makes the registry of both.
 */
export interface ListFilters {
  /** The `ref.` prefixes it accepts (`entity.name` on entities); writing one changes nothing. */
  readonly refs?: readonly string[];
  /** Filter fields that are no field of the record: id lists over relations, a location matching either column. */
  readonly fields?: readonly FieldSpec[];
  /** `investor__<field>`: another resource's fields, met through a relation. */
  readonly relations?: readonly RelationSpec[];
  readonly groupings?: readonly GroupingDeclaration[];
}

export interface ResourceDeclaration {
  /** `entities`, `api-keys`: the OpenAPI tag and the prefix of its route ids. */
  name: string;
  /** What it is, in a sentence: the OpenAPI tag's description. */
  description: string;
  read: Permission | typeof ANY_CALLER;
  write?: Permission;
  /** Its filter registry, when `GET /api/filters/{name}` describes it. */
  filter?: FilterResource;
  /** What its list filters by beyond its record's fields. */
  filters?: ListFilters;
  lists?: readonly ListFacts[];
  rest?: readonly RestRow[];
  /** How each organisation-owned model it serves belongs to an organisation (src/auth/tenancy.ts). */
  tenant?: TenantRules;
  /** Its root reads may be answered by a read replica: data that tolerates the replicas' lag (`replicaReads`). */
  replicaReads?: true;
}

type Extensions = { readonly [ACCESS]: FieldRule; readonly [REPLICA_READS]?: true };

/**
 * Marks a root field a read replica may answer (src/graphql/read-routing.ts): an operation goes to a
 * replica only when every root field it selects carries it; management reads, which must be current,
 * do not (docs/operations.md, "Read replicas").
 */
export const REPLICA_READS = 'replicaReads';
export const replicaReads = { [REPLICA_READS]: true } as const;

export interface Resource extends ResourceDeclaration {
  /** `extensions` of a root field that reads the resource. */
  readonly reads: Extensions;
  /** `extensions` of a root field that changes it. */
  readonly writes: Extensions;
  /**
   * `extensions` of a type it owns; `summary` fields come with any record that embeds it. A read
   * resource's type also names its records' filter registry (`records`): src/compile reads its rows' model from it.
   */
  owns(summary?: readonly string[]): { readonly [ACCESS]: TypeAccess; readonly records?: FilterResource };
}

/** `extensions` of a root field with a rule of its own (e.g. any caller may list its own keys). */
export const accessRule = (rule: FieldRule): Extensions => ({ [ACCESS]: rule });

const declared = new Map<string, Resource>();

export function declareResource(declaration: ResourceDeclaration): Resource {
  if (declared.has(declaration.name)) throw new Error(`Resource ${declaration.name} is declared twice`);
  const resource: Resource = {
    ...declaration,
    reads: { ...accessRule(declaration.read), ...(declaration.replicaReads ? replicaReads : {}) },
    writes: accessRule(declaration.write ?? declaration.read),
    // Whoever may change a record sees the record the change returns.
    owns: (summary = []) => ({
      [ACCESS]: { anyOf: declaration.write ? [declaration.read, declaration.write] : [declaration.read], summary },
      ...(declaration.filter ? { records: declaration.filter } : {}),
    }),
  };
  declared.set(declaration.name, resource);
  return resource;
}

/** Every declared resource, in declaration order (src/api-schema.ts imports them). */
export function declaredResources(): readonly Resource[] {
  return [...declared.values()];
}

/** Every declared tenant rule, by model; a model two resources declare is a mistake. */
export function declaredTenantRules(): TenantRules {
  const rules: Record<string, TenantRule> = {};
  for (const resource of declared.values()) {
    for (const [model, rule] of Object.entries(resource.tenant ?? {})) {
      if (rules[model]) throw new Error(`The tenant rule of ${model} is declared twice`);
      rules[model] = rule;
    }
  }
  return rules;
}

/** The permission that reads each filterable resource's records (`investors` → `read:investors`). */
export function readPermissionByFilter(): Record<string, Permission> {
  return Object.fromEntries(
    [...declared.values()].flatMap((resource) => (resource.filter && resource.read !== ANY_CALLER ? [[resource.filter, resource.read]] : [])),
  );
}

/** The list facts of `typeName` rows, from whichever resource declares them. */
export function listFacts(typeName: string): ListFacts | undefined {
  for (const resource of declared.values()) {
    const facts = resource.lists?.find((list) => list.typeName === typeName);
    if (facts) return facts;
  }
  return undefined;
}
