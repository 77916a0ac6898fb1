// schema.graphql is the published contract of /graphql: it must be exactly what the code serves.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { printSchemaSdl } from '../../src/api-schema.ts';

it('schema.graphql matches the schema the code builds (run `npm run print-schema` after a change)', () => {
  const committed = readFileSync(new URL('../../schema.graphql', import.meta.url), 'utf8');
  expect(committed).toBe(printSchemaSdl());
});
