// The typed client users generate (openapi-typescript types, openapi-fetch calls; client.ts) against a
// running server: its types are what the current document generates, it compiles under `tsc --strict`
// with no cast and the identifying headers set once, and a list, a record, a create, an update and a
// delete answer as their types say.
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateClientTypes, CLIENT_TYPES_FILE } from '../../../scripts/openapi-types.ts';
import { seedDatabase } from '../../../src/data/seed/index.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { tour } from './client.ts';

const CLIENT_FILE = new URL('./client.ts', import.meta.url);

let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  await seedDatabase(app.db, { entities: 5 });
  auth = await createApiKeyAndToken(app);
});

afterAll(async () => {
  await app.close();
});

it('uses the types openapi-typescript generates from the current document (npm run openapi:types)', async () => {
  expect(readFileSync(CLIENT_TYPES_FILE, 'utf8')).toBe(await generateClientTypes());
});

it('compiles under tsc --strict, without a cast', () => {
  const program = ts.createProgram([CLIENT_FILE.pathname], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    allowImportingTsExtensions: true,
    // fetch and its types come with Node's; libraries' own declarations are theirs to check.
    types: ['node'],
    skipLibCheck: true,
  });
  const diagnostics = ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  expect(diagnostics).toEqual([]);
  // No `as` cast and no `!` assertion in the client: the generated types carry it alone.
  const source = program.getSourceFile(CLIENT_FILE.pathname)!;
  const casts: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isAsExpression(node) || ts.isTypeAssertionExpression(node) || ts.isNonNullExpression(node)) casts.push(node.getText(source));
    ts.forEachChild(node, visit);
  };
  visit(source);
  expect(casts).toEqual([]);
});

it('lists, reads, creates, updates and deletes through openapi-fetch', async () => {
  const result = await tour({ baseUrl: app.url, token: auth.token, clientId: auth.clientId }, 'typed-client');
  expect(result.names).toHaveLength(3);
  expect(result.names).toEqual([...result.names].sort());
  expect(result.firstEntity).toMatchObject({ id: expect.any(Number), name: result.names[0] });
  expect(result.created).toMatchObject({ slug: 'typed-client', name: 'Typed client', tabs_config: { view: 'grid' }, is_active: true });
  expect(result.renamed).toBe('Renamed');
  expect(result.deleteStatus).toBe(204);
  expect(result.goneCode).toBe('NOT_FOUND');
});
