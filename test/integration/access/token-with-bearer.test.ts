/**
 * A client set up for /api sends `Authorization: Bearer ...` with every request; /oauth/token reads any
 * Authorization header as HTTP Basic client credentials, so such a request is 401 invalid_client even
 * with the right credentials in the body. The README, where it explains getting a token, and
 * docs/auth.md say so, and the server does what they say.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';

const README = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
const AUTH_DOC = readFileSync(new URL('../../../docs/auth.md', import.meta.url), 'utf8');

let app: TestApp;
let client: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  client = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
});

afterAll(async () => app?.close());

const tokenRequest = (headers: Record<string, string>) =>
  app.fetch('/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.clientId, client_secret: client.clientSecret }),
  });

it('refuses body credentials sent with a Bearer header, and takes them without one', async () => {
  const refused = await tokenRequest({ authorization: `Bearer ${client.token}` });
  expect(refused.status).toBe(401);
  expect(await refused.json()).toMatchObject({ error: 'invalid_client' });
  expect((await tokenRequest({})).status).toBe(200);
});

/** The paragraph (text between blank lines) that holds `marker`. */
function paragraphWith(text: string, marker: string): string {
  return text.split(/\n\s*\n/).find((paragraph) => paragraph.includes(marker)) ?? '';
}

it('says so where the README explains getting a token, and in docs/auth.md', () => {
  for (const [name, paragraph] of [
    ['README', paragraphWith(README, 'Exchange them for a token')],
    ['docs/auth.md', paragraphWith(AUTH_DOC, 'Client credentials as `client_id`')],
  ] as const) {
    expect(paragraph, name).toMatch(/Authorization: Bearer/);
    expect(paragraph, name).toMatch(/401 invalid_client/);
  }
});
