// Every REST route and every top-level GraphQL field refuses a valid token that lacks its permission.
// Both walks read the route table and the schema, so routes and fields added later are covered.
import {
  buildSchema,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  parse,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeOperation, rootFields } from '../../../src/auth/authorize.ts';
import {
  ACCESS,
  ANY_CALLER,
  assertAccessDeclared,
  PERMISSIONS,
  rootFieldRule,
  rulePermissions,
  undeclaredAccess,
  type Permission,
} from '../../../src/auth/permissions.ts';
import { loadOperations } from '../../../src/rest/operations.ts';
import { routes, type Route } from '../../../src/rest/routes.ts';
import { getSchema } from '../../../src/api-schema.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';

let app: TestApp;
const withoutCache = new Map<string, Promise<TestCredentials>>();

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app.close();
});

/** A token holding every permission but `missing`. */
function credentialsWithout(missing: Permission): Promise<TestCredentials> {
  let credentials = withoutCache.get(missing);
  if (!credentials) {
    credentials = createApiKeyAndToken(app, { permissions: PERMISSIONS.filter((permission) => permission !== missing) });
    withoutCache.set(missing, credentials);
  }
  return credentials;
}

const schema = getSchema();
const operations = loadOperations(schema);

/** The (path values, permission) pairs a route can be tried with; nothing for any-caller routes. */
function attemptsFor(route: Route): { path: string; permission: Permission }[] {
  const document = operations.get(route.operation)!;
  const fill = (value: string) => route.path.replace(/\{\w+\}/g, value);
  return rootFields(document).flatMap(({ key, node }) => {
    const rule = rootFieldRule(schema, key);
    if (rule === undefined) throw new Error(`${key} has no rule`);
    if (rule === ANY_CALLER) return [];
    if (typeof rule === 'string') return [{ path: fill('1'), permission: rule }];
    if ('grants' in rule) return [{ path: fill('1'), permission: rule.permission }];
    // An argument decides: the value the route's operation writes (`/api/aggregate/entities`), or each
    // value in the path parameter that carries it.
    const written = node.arguments?.find((argument) => argument.name.value === rule.argument)?.value;
    if (written?.kind === Kind.STRING) {
      const permission = rule.byValue[written.value] ?? rule.otherwise;
      return permission === ANY_CALLER ? [] : [{ path: route.path, permission }];
    }
    return Object.entries(rule.byValue).map(([value, permission]) => ({ path: fill(value), permission }));
  });
}

describe('REST: every route in src/rest/routes.ts', () => {
  const table = routes.flatMap((route) => attemptsFor(route).map((attempt) => [`${route.method} ${attempt.path}`, route, attempt] as const));

  it('has routes to check', () => {
    expect(table.length).toBeGreaterThan(0);
  });

  it.each(table)('%s without its permission → 403 naming it', async (_name, route, { path, permission }) => {
    const credentials = await credentialsWithout(permission);
    const response = await credentials.fetch(path, {
      method: route.method,
      ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { headers: { 'content-type': 'application/json' }, body: '{}' }),
    });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: { code: 'FORBIDDEN', message: expect.stringContaining(permission) } });
  });
});

/** A value of the right type for a required argument, so the query passes validation. */
function sampleValue(type: GraphQLInputType): string {
  const inner = getNullableType(type);
  if (isListType(inner)) return '[]';
  const named = getNamedType(inner);
  if (isEnumType(named)) return named.getValues()[0]!.name;
  if (isInputObjectType(named)) {
    const required = Object.values(named.getFields()).filter((field) => isNonNullType(field.type) && field.defaultValue === undefined);
    return `{ ${required.map((field) => `${field.name}: ${sampleValue(field.type)}`).join(', ')} }`;
  }
  if (isScalarType(named) && ['Int', 'Float', 'Money'].includes(named.name)) return '1';
  if (isScalarType(named) && named.name === 'Boolean') return 'true';
  if (isScalarType(named) && ['DateTime', 'Date'].includes(named.name)) return '"2026-01-01"';
  return '"1"';
}

function fieldQuery(operation: 'query' | 'mutation', field: GraphQLField<unknown, unknown>, args: Record<string, string> = {}): string {
  const required = field.args.filter((arg: GraphQLArgument) => isNonNullType(arg.type) && arg.defaultValue === undefined);
  const values = { ...Object.fromEntries(required.map((arg) => [arg.name, sampleValue(arg.type)])), ...args };
  const list = Object.entries(values).map(([name, value]) => `${name}: ${value}`).join(', ');
  const selection = isObjectType(getNamedType(field.type)) ? ' { __typename }' : '';
  return `${operation} { ${field.name}${list ? `(${list})` : ''}${selection} }`;
}

describe('GraphQL: every top-level field of the schema', () => {
  const roots = [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
  ] as const;
  const table = roots.flatMap(([operation, type]) =>
    type
      ? Object.values(type.getFields()).flatMap((field) => {
          const rule = rootFieldRule(schema, `${type.name}.${field.name}`);
          if (rule === undefined || rule === ANY_CALLER) return [];
          const variants: [string, Permission][] =
            typeof rule === 'string' ? [[fieldQuery(operation, field), rule]]
            : 'grants' in rule ? [[fieldQuery(operation, field), rule.permission]]
            : Object.entries(rule.byValue).map(([value, permission]) => [fieldQuery(operation, field, { [rule.argument]: JSON.stringify(value) }), permission]);
          return variants.map(([query, permission]) => [query, permission] as const);
        })
      : [],
  );

  it.each(table)('%s without %s → FORBIDDEN', async (query, permission) => {
    const credentials = await credentialsWithout(permission);
    const { status, body } = await credentials.graphql(query);
    expect(status).toBe(403);
    expect(body.data ?? null).toBeNull();
    expect(body.errors).toEqual([expect.objectContaining({ message: expect.stringContaining(permission), extensions: expect.objectContaining({ code: 'FORBIDDEN' }) })]);
  });

  it('lets a caller without any permission use the any-caller fields', async () => {
    const credentials = await createApiKeyAndToken(app, { permissions: ['read:usage'] });
    const { status, body } = await credentials.graphql('{ apiKeys { data { id } } __typename }');
    expect(status).toBe(200);
    expect(body.errors).toBeUndefined();
  });

  it('checks fields reached through fragments, aliases and inline fragments', async () => {
    const credentials = await credentialsWithout('read:founders');
    const queries = [
      'query { ...F } fragment F on Query { founders { __typename } }',
      'query { renamed: founders { __typename } }',
      'query { ... on Query { founders { __typename } } }',
      'query { entities { __typename } founders @skip(if: true) { __typename } }',
    ];
    for (const query of queries) {
      const { status, body } = await credentials.graphql(query);
      expect({ query, status, code: body.errors?.[0]?.extensions?.code }).toEqual({ query, status: 403, code: 'FORBIDDEN' });
    }
  });
});

describe('the declared access', () => {
  it('covers every root field of the schema and every type they return', () => {
    expect(undeclaredAccess(schema)).toEqual([]);
    expect(() => assertAccessDeclared(schema)).not.toThrow();
  });

  it('stops the start when a root field has no rule or a returned type no access, and refuses such a field at run time (fail closed)', () => {
    const extended = buildSchema('type Query { entities: Int, somethingNew: Thing } type Thing { id: Int }');
    expect(undeclaredAccess(extended)).toEqual([
      'Query.entities has no permission rule',
      'Query.somethingNew has no permission rule',
      'Thing (returned by Query.somethingNew) declares no access',
    ]);
    expect(() => assertAccessDeclared(extended)).toThrow(/Query\.somethingNew/);
    const principal = { subject: 's', kind: 'api-key' as const, clientId: 's', orgId: 'o', permissions: new Set<string>(PERMISSIONS) };
    expect(() => authorizeOperation(parse('{ somethingNew { id } }'), principal, { schema: extended })).toThrow(
      expect.objectContaining({ code: 'FORBIDDEN', message: 'Query.somethingNew has no permission rule' }),
    );
  });

  it('catches a rule naming a permission that does not exist', () => {
    const extended = buildSchema('type Query { things: Int }');
    const field = extended.getQueryType()!.getFields().things!;
    field.extensions = { [ACCESS]: 'read:thngs' };
    expect(undeclaredAccess(extended)).toEqual(['Query.things names unknown permission read:thngs']);
  });

  it('names only known permissions', () => {
    const roots = [schema.getQueryType()!, schema.getMutationType()!];
    const named = roots.flatMap((type) =>
      Object.keys(type.getFields()).flatMap((name) => rulePermissions(rootFieldRule(schema, `${type.name}.${name}`)!)),
    );
    expect(named.length).toBeGreaterThan(0);
    for (const permission of named) expect([...PERMISSIONS, ANY_CALLER]).toContain(permission);
  });
});
