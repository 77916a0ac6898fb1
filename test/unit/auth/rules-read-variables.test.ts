// REST checks an operation's access once before reading parameters, and again with them only when a
// root field's rule reads an argument: a second check of any other operation could not decide otherwise.
import { parse } from 'graphql';
import { expect, it } from 'vitest';
import { authorizeOperation, rulesReadVariables } from '../../../src/auth/authorize.ts';
import { loadOperations } from '../../../src/rest/operations.ts';
import { getSchema } from '../../../src/api-schema.ts';

const schema = getSchema();
const operations = loadOperations(schema);

it('are read by the operations whose root rules depend on an argument, and only by those', () => {
  const reading = [...operations.entries()].filter(([, document]) => rulesReadVariables(document, schema)).map(([name]) => name);
  // The filter registry by resource, the aggregates by source, a new key by the permissions it grants.
  expect(reading).toEqual(expect.arrayContaining(['ListFilterFields', 'AggregateEntities', 'CreateApiKey']));
  expect(reading).not.toContain('GetEntity');
  expect(reading).not.toContain('ListEntities');
});

it('decide nothing for the others: a check with any variables answers as the one without', () => {
  const principal = { subject: 's', kind: 'api-key' as const, clientId: 's', orgId: 'o', permissions: new Set(['read:founders']) };
  for (const [name, document] of operations) {
    if (rulesReadVariables(document, schema)) continue;
    const outcome = (variables?: Record<string, unknown>) => {
      try {
        authorizeOperation(document, principal, { schema, variables });
        return 'allowed';
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(outcome({ id: 1, resource: 'entities', source: 'entities', permissions: ['admin'] }), name).toBe(outcome());
  }
  expect(rulesReadVariables(parse('{ filters(resource: "entities") { name } }'), schema)).toBe(true);
});
