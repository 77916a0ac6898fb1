// The GraphQL-over-HTTP audit of graphql-http (the reference implementation's own checks) against the
// running server: every MUST, SHOULD and MAY it makes passes, with the three required headers sent.
import { auditServer } from 'graphql-http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';

let app: TestApp;
let client: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  client = await createApiKeyAndToken(app);
});

afterAll(async () => {
  await app.close();
});

it('passes the graphql-http server audit with no warning and no error', async () => {
  const results = await auditServer({
    url: `${app.url}/graphql`,
    // The audit's requests, with the token and the two identifying headers every request carries.
    fetchFn: (input: RequestInfo | URL, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      for (const [name, value] of Object.entries(client.headers)) headers.set(name, value);
      return fetch(input, { ...init, headers });
    },
  });
  const problems = await Promise.all(
    results.filter((result) => result.status !== 'ok').map(async (result) => `${result.status}: ${result.name}: ${result.reason}${'response' in result ? ` (${result.response.status} ${await result.response.text()})` : ''}`),
  );
  expect(problems).toEqual([]);
  expect(results.length).toBeGreaterThan(30);
});
