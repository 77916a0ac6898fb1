/**
 * Organisation scoping, declared once per model and applied in one place. A resource declares the
 * tenant rule of each organisation-owned model it serves beside its access rules (src/schema/resource.ts):
 * the model's own organisation column, or the relation that leads to a model that has one. Every
 * request with a principal then reads and writes through `scopedClient`, a Prisma client that ANDs the
 * rule onto the `where` of every read, update and delete of those models (Keystone's pattern:
 * `{AND: [userWhere, tenantWhere]}`), so a forgotten condition cannot read across organisations; the
 * few raw statements take the same rule as SQL (`tenantSql`). The
 * start stops while a model that holds an organisation's data has no rule (`undeclaredTenancy`).
 */
import { quoteIdentifier, type PrismaClient } from '../db/client.ts';
import { Prisma } from '../db/generated/prisma/client.ts';

/** The organisation column of the model itself, or the to-one relation to a model with a rule. */
export type TenantRule = { column: string } | { through: string };

/** Model name (Prisma's, e.g. `TeamMember`) → its rule. */
export type TenantRules = Readonly<Record<string, TenantRule>>;

interface DatamodelField {
  name: string;
  kind: string;
  type: string;
  isList: boolean;
  relationFromFields?: readonly string[];
}

/** Prisma's generated data model (src/db/generated/pothos-types.ts `getDatamodel().datamodel`). */
export interface Datamodel {
  models: Readonly<Record<string, { fields: readonly DatamodelField[] }>>;
}

/** The column every organisation-owned table carries, or names through a relation. */
const ORGANIZATION_COLUMN = 'org_id';

/** Operations with a `where` to narrow; creates carry the organisation in their data instead. */
const NARROWED = new Set([
  'findUnique', 'findUniqueOrThrow', 'findFirst', 'findFirstOrThrow', 'findMany', 'count', 'aggregate', 'groupBy',
  'update', 'updateMany', 'updateManyAndReturn', 'upsert', 'delete', 'deleteMany',
]);
/** Their `where` must keep the unique fields at the top; the rule joins them under AND. */
const UNIQUE = new Set(['findUnique', 'findUniqueOrThrow', 'update', 'upsert', 'delete']);

type Where = Record<string, unknown>;

/** The Prisma where of `model`'s rule for one organisation: `{team: {org_id: 'acme'}}` for TeamMember. */
function tenantWhere(datamodel: Datamodel, rules: TenantRules, model: string, orgId: string): Where | undefined {
  const rule = rules[model];
  if (!rule) return undefined;
  if ('column' in rule) return { [rule.column]: orgId };
  const relation = datamodel.models[model]?.fields.find((field) => field.name === rule.through);
  const inner = relation && tenantWhere(datamodel, rules, relation.type, orgId);
  if (!inner) throw new Error(`tenancy: ${model}.${rule.through} does not lead to a model with a tenant rule`);
  return { [rule.through]: inner };
}

/**
 * The same rule as a SQL condition, for the few statements Prisma cannot write (a usage series truncates
 * its buckets in SQL): only a rule on the model's own column has one.
 */
export function tenantSql(rules: TenantRules, model: string, orgId: string): Prisma.Sql {
  const rule = rules[model];
  if (!rule || !('column' in rule)) throw new Error(`tenancy: ${model} has no tenant column to write as SQL`);
  return Prisma.sql`${Prisma.raw(quoteIdentifier(rule.column))} = ${orgId}`;
}

function narrowed(where: Where | undefined, tenant: Where, unique: boolean): Where {
  if (!unique) return { AND: [where ?? {}, tenant] };
  const and = where?.AND === undefined ? [] : Array.isArray(where.AND) ? where.AND : [where.AND];
  return { ...where, AND: [...and, tenant] };
}

/**
 * `prisma` narrowed to one organisation for every model with a rule (others pass through untouched);
 * interactive transactions opened on it are narrowed too.
 */
export function scopedClient(prisma: PrismaClient, datamodel: Datamodel, rules: TenantRules, orgId: string): PrismaClient {
  const wheres = new Map(Object.keys(rules).map((model) => [model, tenantWhere(datamodel, rules, model, orgId)!]));
  return prisma.$extends({
    name: 'tenancy',
    query: {
      $allModels: {
        $allOperations({ model, operation, args, query }) {
          const tenant = wheres.get(model);
          if (!tenant || !NARROWED.has(operation)) return query(args);
          const { where } = args as { where?: Where };
          return query({ ...args, where: narrowed(where, tenant, UNIQUE.has(operation)) } as typeof args);
        },
      },
    },
  }) as unknown as PrismaClient;
}

/** One scoped client per organisation, made on first use (bounded: a flood of org ids cannot grow it). */
export function createTenantClients(prisma: PrismaClient, datamodel: Datamodel, rules: TenantRules): (orgId: string) => PrismaClient {
  const clients = new Map<string, PrismaClient>();
  return (orgId) => {
    let client = clients.get(orgId);
    if (!client) {
      if (clients.size >= 1_000) clients.clear();
      clients.set(orgId, (client = scopedClient(prisma, datamodel, rules, orgId)));
    }
    return client;
  };
}

/**
 * Models holding an organisation's data without a rule (see organizationOwned), and rules naming a
 * model, column or relation that does not exist.
 */
export function undeclaredTenancy(datamodel: Datamodel, rules: TenantRules): string[] {
  const problems: string[] = [];
  for (const [model, rule] of Object.entries(rules)) {
    const fields = datamodel.models[model]?.fields;
    if (!fields) problems.push(`a tenant rule names the unknown model ${model}`);
    else if ('column' in rule && !fields.some((field) => field.name === rule.column && field.kind === 'scalar')) {
      problems.push(`${model} has no column ${rule.column} for its tenant rule`);
    } else if ('through' in rule) {
      const relation = fields.find((field) => field.name === rule.through && field.kind === 'object' && !field.isList);
      if (!relation) problems.push(`${model} has no to-one relation ${rule.through} for its tenant rule`);
      else if (!rules[relation.type]) problems.push(`${model}.${rule.through} leads to ${relation.type}, which has no tenant rule`);
    }
  }
  for (const model of organizationOwned(datamodel)) {
    if (!rules[model]) problems.push(`${model} holds an organisation's data but declares no tenant rule`);
  }
  return problems;
}

/**
 * Models with an organisation column, and, to a fixed point, those with a foreign key to one: a
 * team's members, a landscape's entities.
 */
function organizationOwned(datamodel: Datamodel): Set<string> {
  const owned = new Set<string>();
  const models = Object.entries(datamodel.models);
  for (let grown = true; grown; ) {
    grown = false;
    for (const [model, { fields }] of models) {
      if (owned.has(model)) continue;
      const ownsColumn = fields.some((field) => field.name === ORGANIZATION_COLUMN && field.kind === 'scalar');
      const belongs = fields.some((field) => field.kind === 'object' && !field.isList && field.relationFromFields?.length && owned.has(field.type));
      if (ownsColumn || belongs) {
        owned.add(model);
        grown = true;
      }
    }
  }
  return owned;
}

/** Fails the start, naming every model left unscoped. */
export function assertTenancyDeclared(datamodel: Datamodel, rules: TenantRules): void {
  const problems = undeclaredTenancy(datamodel, rules);
  if (problems.length) throw new Error(`Undeclared tenancy (declare it with the resource, src/schema/resource.ts): ${problems.join('; ')}`);
}
