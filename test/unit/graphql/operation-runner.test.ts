// The one operation runner on the real schema, without a server or a database: the checks it makes
// before anything reads, in their order, and what it hands back to every transport.
import { getOperationAST, parse, type ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../../src/auth/principal.ts';
import { createErrorMasker } from '../../../src/graphql/mask-error.ts';
import { createOperationRunner } from '../../../src/graphql/operation-runner.ts';
import { createLogger } from '../../../src/logger.ts';
import type { GraphQLContext } from '../../../src/schema/context.ts';
import { getSchema } from '../../../src/api-schema.ts';

const schema = getSchema();
const runner = createOperationRunner({
  schema,
  compiledReads: undefined,
  readRouting: undefined,
  maxFanOut: 1_000,
  maxBatchRecords: 1_000,
  maskError: createErrorMasker(createLogger({ level: 'silent' })),
});

const principal = (permissions: string[]): Principal => ({ subject: 'c', kind: 'api-key', clientId: 'c', orgId: 'o', permissions: new Set(permissions) });
/** Nothing of it is read before the checks pass: a database client that fails on use proves it. */
const context = (who: Principal | null): GraphQLContext => {
  const untouchable = new Proxy({}, { get: () => { throw new Error('the database was reached'); } });
  return { principal: who, requestId: 'r', prisma: untouchable, sql: untouchable } as unknown as GraphQLContext;
};

function run(query: string, who: Principal | null, variables: Record<string, unknown> = {}): Promise<ExecutionResult> {
  const document = parse(query);
  return runner({ document, operation: getOperationAST(document)!, variables }, context(who));
}

describe('before anything is read', () => {
  it('refuses an operation the caller may not run, as a request error with its status', async () => {
    const result = await run('{ entities(limit: 1) { data { id } } }', principal(['read:founders']));
    expect(result.data).toBeUndefined();
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', http: { status: 403 } });
  });

  it("reads the rules with the request's variables", async () => {
    // Which resource's filters it describes decides the permission: known only from the variable.
    const query = 'query($resource: String!) { filters(resource: $resource) { name } }';
    const result = await run(query, principal(['read:entities']), { resource: 'founders' });
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('refuses a document that could reach more records than the fan-out limit', async () => {
    const result = await run('{ entities(limit: 500) { data { founders { name } } } }', principal(['read:entities', 'read:founders']));
    expect(result.errors?.[0]?.message).toMatch(/fan-out cost \d+ is over the limit of 1000/);
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});

it('answers a pure introspection query without a principal, and nothing else without one', async () => {
  const introspection = await run('{ __schema { queryType { name } } }', null);
  expect(introspection).toEqual({ data: { __schema: { queryType: { name: 'Query' } } } });
  const data = await run('{ entities(limit: 1) { data { id } } }', null);
  expect(data.errors?.[0]?.extensions).toMatchObject({ code: 'UNAUTHORIZED' });
});
