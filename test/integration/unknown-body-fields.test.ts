// Every REST body refuses a field it does not know (a misspelt field must not be silently dropped):
// the route table is walked, so a new route with a body is covered the day it is declared.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { declaredResources } from '../../src/schema/resource.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';

let app: TestApp;
let auth: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  auth = await createApiKeyAndToken(app);
});

afterAll(async () => {
  await app.close();
});

const bodyRoutes = declaredResources().flatMap((resource) =>
  (resource.rest ?? [])
    .filter((row) => row.body)
    .map((row) => ({
      route: `${row.method} ${row.path}`,
      method: row.method,
      // Well-formed path values (id 1, slug `x`): the body is read before the record is looked up.
      path: row.path.replace(/\{(\w+)\}/g, (_, name: string) => (row.textParams?.[name] ? 'x' : '1')),
    })),
);

it('finds the routes with a body', () => {
  expect(bodyRoutes.map((route) => route.route)).toEqual(
    expect.arrayContaining(['POST /api/ecosystems', 'PATCH /api/ecosystems/{id}', 'PUT /api/landscapes/{id}/entities', 'POST /api/invitations/accept']),
  );
});

for (const { route, method, path } of bodyRoutes) {
  it(`${route} refuses an unknown field with 400 naming it`, async () => {
    for (const body of [{ nmae: 'x' }, { name: 'x', slug: 'x', role: 'member', token: 'x', entity_ids: [], nmae: 'x' }]) {
      const response = await auth.fetch(path, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const answer = (await response.json()) as { error?: { code: string; details?: { path: string; message: string }[] } };
      expect(response.status).toBe(400);
      expect(answer.error?.code).toBe('VALIDATION_ERROR');
      expect(answer.error?.details).toContainEqual({ path: 'body.nmae', message: 'unknown field' });
    }
  });
}
