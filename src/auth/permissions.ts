/**
 * The one table of who may call what: every top-level GraphQL field (Query and Mutation) and the
 * permission it needs. REST routes run prepared GraphQL operations, so this table serves both
 * transports. A root field without a row is refused (fail closed), and `assertEveryRootFieldHasARule`
 * stops the start-up when the schema has such a field, so a new field cannot ship unguarded.
 *
 * Rows for fields that do not exist yet are fine: they are ignored until the field appears.
 */
import { isObjectType, type GraphQLSchema } from 'graphql';

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
  'create:api-keys',
  'admin:api-keys',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(value: unknown): value is Permission {
  return typeof value === 'string' && (PERMISSIONS as readonly string[]).includes(value);
}

/** A valid token is enough (e.g. a caller's own API keys). */
export const ANY_CALLER = 'any-caller' as const;

/** The permission depends on an argument's value, e.g. `filters(resource: "founders")`. */
export interface ArgumentRule {
  argument: string;
  byValue: Readonly<Record<string, Permission>>;
  /** For values without a row. */
  otherwise: Permission | typeof ANY_CALLER;
}

export type FieldRule = Permission | typeof ANY_CALLER | ArgumentRule;

const READ_BY_RESOURCE: Readonly<Record<string, Permission>> = {
  entities: 'read:entities',
  investors: 'read:investors',
  founders: 'read:founders',
  transactions: 'read:transactions',
  valuations: 'read:valuations',
  news: 'read:news',
};

/** `Type.field` → rule. Keep rows grouped by resource; CONTRACT.md section 4 is the source. */
export const ROOT_FIELD_RULES: Readonly<Record<string, FieldRule>> = {
  'Query.entities': 'read:entities',
  'Query.entity': 'read:entities',
  'Query.investors': 'read:investors',
  'Query.investor': 'read:investors',
  'Query.founders': 'read:founders',
  'Query.founder': 'read:founders',
  'Query.transactions': 'read:transactions',
  'Query.transaction': 'read:transactions',
  'Query.valuations': 'read:valuations',
  'Query.valuation': 'read:valuations',
  'Query.news': 'read:news',
  'Query.news_article': 'read:news',
  // Filter descriptions hold no records; an unknown resource is the resolver's 400, not a 403.
  'Query.filters': { argument: 'resource', byValue: READ_BY_RESOURCE, otherwise: ANY_CALLER },
  // Country and city names for location filters: reference data any caller may look up.
  'Query.locations': ANY_CALLER,

  'Query.ecosystems': 'read:ecosystems',
  'Query.ecosystem': 'read:ecosystems',
  'Query.ecosystemEntities': 'read:ecosystems',
  'Query.landscapes': 'read:ecosystems',
  'Query.landscape': 'read:ecosystems',
  'Mutation.createEcosystem': 'write:ecosystems',
  'Mutation.updateEcosystem': 'write:ecosystems',
  'Mutation.deleteEcosystem': 'write:ecosystems',
  'Mutation.createLandscape': 'write:ecosystems',
  'Mutation.updateLandscape': 'write:ecosystems',
  'Mutation.deleteLandscape': 'write:ecosystems',
  'Mutation.setLandscapeEntities': 'write:ecosystems',

  'Query.teams': 'read:teams',
  'Query.team': 'read:teams',
  'Query.teamMembers': 'read:teams',
  'Query.teamInvitations': 'read:teams',
  'Mutation.createTeam': 'write:teams',
  'Mutation.updateTeam': 'write:teams',
  'Mutation.deleteTeam': 'write:teams',
  'Mutation.updateTeamMember': 'write:teams',
  'Mutation.removeTeamMember': 'write:teams',
  'Mutation.createInvitation': 'write:teams',
  'Mutation.revokeInvitation': 'write:teams',
  'Mutation.acceptInvitation': 'write:teams',
  'Mutation.declineInvitation': 'write:teams',

  'Query.usage': 'read:usage',
  'Query.usageTimeseries': 'read:usage',

  // Every caller lists and revokes its own keys; the resolvers widen that with admin:api-keys.
  'Query.apiKeys': ANY_CALLER,
  'Mutation.createApiKey': 'create:api-keys',
  'Mutation.revokeApiKey': ANY_CALLER,
};

/**
 * Below the root, a resource's type needs that resource's read permission wherever a query reaches it
 * (entity → rounds → investors ...), so a relation never shows what the resource's own path would
 * refuse. The summary fields other records embed are the exception: a round's `entity {id name}` and
 * an entity's `founders {id name image platform_url}` come with the embedding record.
 */
export const TYPE_RULES: Readonly<Record<string, { permission: Permission; summary: readonly string[] }>> = {
  Entity: { permission: 'read:entities', summary: ['id', 'name'] },
  Founder: { permission: 'read:founders', summary: ['id', 'name', 'image', 'platform_url'] },
  Investor: { permission: 'read:investors', summary: [] },
  Transaction: { permission: 'read:transactions', summary: [] },
  Valuation: { permission: 'read:valuations', summary: [] },
  NewsArticle: { permission: 'read:news', summary: [] },
};

const ROOT_TYPES = ['Query', 'Mutation', 'Subscription'] as const;

/** Every root field of `schema` that has no row (introspection fields excepted). */
export function rootFieldsWithoutRule(schema: GraphQLSchema, rules = ROOT_FIELD_RULES): string[] {
  return ROOT_TYPES.flatMap((typeName) => {
    const type = schema.getType(typeName);
    if (!type || !isObjectType(type)) return [];
    return Object.keys(type.getFields())
      .filter((field) => !field.startsWith('__'))
      .map((field) => `${typeName}.${field}`)
      .filter((key) => !(key in rules));
  });
}

/** Fails the start when a root field has no permission rule. */
export function assertEveryRootFieldHasARule(schema: GraphQLSchema): void {
  const missing = rootFieldsWithoutRule(schema);
  if (missing.length) {
    throw new Error(
      `Root fields without a permission rule (add them to ROOT_FIELD_RULES in src/auth/permissions.ts): ${missing.join(', ')}`,
    );
  }
}

/** `a,b,c` from the command line: known permission names, else an error naming the unknown ones. */
export function parsePermissionList(text: string): Permission[] {
  const names = [...new Set(text.split(',').map((name) => name.trim()).filter(Boolean))];
  const unknown = names.filter((name) => !isPermission(name));
  if (unknown.length) throw new Error(`Unknown permission(s): ${unknown.join(', ')}; known: ${PERMISSIONS.join(', ')}`);
  return names as Permission[];
}
