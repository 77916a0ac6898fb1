// HTTP rules that hold for every endpoint (docs/read-api.md, Transport): JSON bodies only, 1 MiB at most,
// envelopes for unknown paths, request ids on every response.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';

let app: TestApp;
let client: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  client = await createApiKeyAndToken(app);
});

afterAll(async () => {
  await app.close();
});

const MIB = 1024 * 1024;

async function errorOf(response: Response): Promise<{ status: number; code: string }> {
  const body = (await response.json()) as { error?: { code: string }; errors?: { extensions?: { code: string } }[] };
  return { status: response.status, code: body.error?.code ?? body.errors?.[0]?.extensions?.code ?? '' };
}

it.each([
  ['/api/api-keys', 'POST'],
  ['/graphql', 'POST'],
])('%s refuses a body over 1 MiB with 413 PAYLOAD_TOO_LARGE', async (path, method) => {
  const body = JSON.stringify({ name: 'x'.repeat(MIB + 10), permissions: ['read:entities'] });
  const response = await client.fetch(path, { method, headers: { 'content-type': 'application/json' }, body });
  expect(await errorOf(response)).toEqual({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
});

it('refuses a body that is not JSON with 400 VALIDATION_ERROR', async () => {
  const response = await client.fetch('/api/api-keys', {
    method: 'POST',
    headers: { 'content-type': 'text/plain' },
    body: 'name=x',
  });
  expect(await errorOf(response)).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
});

it('refuses unparsable JSON with 400 VALIDATION_ERROR and creates nothing', async () => {
  const before = await app.db.prisma.apiKey.count();
  const response = await client.fetch('/api/api-keys', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"name": "x", "permissions": [',
  });
  expect(await errorOf(response)).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
  expect(await app.db.prisma.apiKey.count()).toBe(before);
});

it('answers unknown paths outside /api with the error envelope', async () => {
  const response = await app.fetch('/nothing/here');
  expect(response.status).toBe(404);
  expect(await response.json()).toEqual({ error: { code: 'NOT_FOUND', message: expect.any(String) } });
  expect(response.headers.get('x-request-id')).toBeTruthy();
});

it('serves GraphiQL to a browser without a token', async () => {
  const response = await app.fetch('/graphql', { headers: { accept: 'text/html' } });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/text\/html/);
  const html = await response.text();
  expect(html).toMatch(/renderYogaGraphiQL/);
  // Everything the page needs is in it: no script, style or icon from another host.
  expect(html).not.toMatch(/(src|href)=["']?https?:/);
  const errors = app.logs.filter((line) => JSON.parse(line).level >= 50);
  expect(errors).toEqual([]);
});

it('answers health and readiness without a token', async () => {
  expect(await (await app.fetch('/healthz')).json()).toEqual({ status: 'ok' });
  expect(await (await app.fetch('/readyz')).json()).toEqual({ status: 'ready' });
});

it('limits a chunked GraphQL body too (no Content-Length to trust)', async () => {
  const chunk = new TextEncoder().encode(`{"query": "{ entities { data { id } } }", "extensions": {"pad": "${'x'.repeat(MIB)}"}}`);
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let offset = 0; offset < chunk.length; offset += 64 * 1024) controller.enqueue(chunk.slice(offset, offset + 64 * 1024));
      controller.close();
    },
  });
  const response = await client.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: stream,
    duplex: 'half',
  } as RequestInit);
  expect(await errorOf(response)).toEqual({ status: 413, code: 'PAYLOAD_TOO_LARGE' });
});

it('still answers GraphQL posted as JSON after the body parser', async () => {
  const { status, body } = await client.graphql('{ entities(limit: 1) { page { limit } } }');
  expect(status).toBe(200);
  expect(body.data).toEqual({ entities: { page: { limit: 1 } } });
});

it('exposes Prometheus metrics with route templates, not raw paths', async () => {
  await client.fetch('/api/entities/123456');
  await client.fetch('/api/entities/7');
  const response = await app.fetch('/metrics');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  const text = await response.text();
  expect(text).toMatch(/process_cpu_user_seconds_total/);
  expect(text).toMatch(/http_request_duration_seconds_count\{endpoint="GET \/api\/entities\/\{id\}",status="404"\} 2/);
  expect(text).not.toMatch(/123456/);
});
