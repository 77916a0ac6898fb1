/**
 * HTTP/1.1's request forms, sent as exact bytes (docs/request-pipeline.md, "Request forms"): an
 * absolute-form target (RFC 9112 §3.2.2) is served as its path is, on the API and the pages alike;
 * none or two Host headers are 400; `OPTIONS *` is answered, another method with `*` is 400; a
 * Content-Length over the body limit is 413 at once, before any of the body; a head over node's limit
 * is 431. Every refusal is the contract's envelope with an X-Request-Id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import { sendBytes, type RawResponse } from '../helpers/raw-http.ts';

let app: TestApp;
let auth: TestCredentials;
let host: string;

beforeAll(async () => {
  app = await startTestApp();
  auth = await createApiKeyAndToken(app);
  host = new URL(app.url).host;
});

afterAll(async () => {
  await app.close();
});

interface Sent {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** The Host lines, as sent (default: one, the server's). */
  hosts?: string[];
  version?: string;
}

/** One request, its bytes exactly as given, on a connection closed after the answer. */
function send(target: string, { method = 'GET', headers = {}, body, hosts = [host], version = '1.1' }: Sent = {}, timeoutMs?: number) {
  const lines = [
    `${method} ${target} HTTP/${version}`,
    ...hosts.map((value) => `Host: ${value}`),
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ...(body === undefined ? [] : [`Content-Length: ${Buffer.byteLength(body)}`]),
    'Connection: close',
  ];
  return sendBytes(app.url, `${lines.join('\r\n')}\r\n\r\n${body ?? ''}`, timeoutMs);
}

const header = (response: RawResponse, name: string) => response.headers.find(([key]) => key.toLowerCase() === name)?.[1];

/** The contract's envelope, with a request id beside it. */
function envelope(response: RawResponse): { code: string; paths: string[] } {
  expect(header(response, 'x-request-id')).toMatch(/^[\w-]{8,}$/);
  expect(header(response, 'content-type')).toBe('application/json; charset=utf-8');
  const { error } = JSON.parse(response.body) as { error: { code: string; message: string; details?: { path: string }[] } };
  expect(error.message.length).toBeGreaterThan(0);
  return { code: error.code, paths: (error.details ?? []).map((detail) => detail.path) };
}

const graphql = JSON.stringify({ query: '{ __typename }' });
const mcp = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
const json = { 'Content-Type': 'application/json' };

describe('an absolute-form target', () => {
  const cases = (): [string, string, Sent, (body: string) => void][] => [
    ['GET', '/api/entities?limit=2', { headers: auth.headers }, (body) => expect(JSON.parse(body).page.limit).toBe(2)],
    ['POST', '/graphql', { headers: { ...auth.headers, ...json }, body: graphql }, (body) => expect(JSON.parse(body)).toEqual({ data: { __typename: 'Query' } })],
    ['POST', '/mcp', { headers: { ...auth.headers, ...json, Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18' }, body: mcp }, (body) => expect(body).toContain('"tools"')],
    [
      'POST',
      '/oauth/token',
      {
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'User-Agent': 'request-forms-test/1.0' },
        body: `grant_type=client_credentials&client_id=${auth.clientId}&client_secret=${auth.clientSecret}`,
      },
      (body) => expect(JSON.parse(body).access_token).toEqual(expect.any(String)),
    ],
    ['GET', '/healthz', {}, (body) => expect(body.length).toBeGreaterThan(0)],
  ];

  it.each(['/api/entities', '/graphql', '/mcp', '/oauth/token', '/healthz'])('is served on %s as its path is', async (path) => {
    const [method, target, sent, check] = cases().find(([, candidate]) => candidate.startsWith(path))!;
    const origin = await send(target, { method, ...sent });
    const absolute = await send(`http://${host}${target}`, { method, ...sent });
    expect(origin.status, origin.body).toBe(200);
    expect(absolute.status, absolute.body).toBe(200);
    check(absolute.body);
  });

  it('names its host in any case, and a bare authority is the root', async () => {
    expect((await send(`HTTP://${host.toUpperCase()}/healthz`)).status).toBe(200);
    const root = await send(`http://${host}`, { headers: { Accept: 'application/json' } });
    expect(root.status).toBe(200);
    expect(JSON.parse(root.body).links).toBeDefined();
  });
});

describe('the Host header', () => {
  it.each(['/api/entities', '/healthz'])('sent twice to %s is 400', async (path) => {
    const response = await send(path, { headers: auth.headers, hosts: [host, 'elsewhere.example'] });
    expect(response.status).toBe(400);
    expect(envelope(response)).toEqual({ code: 'VALIDATION_ERROR', paths: ['header.host'] });
  });

  it('missing from an HTTP/1.1 request is 400; HTTP/1.0 needs none', async () => {
    const response = await send('/api/entities', { headers: auth.headers, hosts: [] });
    expect(response.status).toBe(400);
    expect(envelope(response)).toEqual({ code: 'VALIDATION_ERROR', paths: ['header.host'] });
    expect((await send('/healthz', { hosts: [], version: '1.0' })).status).toBe(200);
  });
});

describe('the asterisk-form', () => {
  it('OPTIONS * is answered 204 with the methods the service answers', async () => {
    const response = await send('*', { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.body).toBe('');
    expect(header(response, 'x-request-id')).toBeDefined();
    expect(header(response, 'allow')!.split(', ')).toEqual(expect.arrayContaining(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']));
  });

  it.each(['GET', 'POST'])('%s * is 400', async (method) => {
    const response = await send('*', { method });
    expect(response.status).toBe(400);
    expect(envelope(response)).toEqual({ code: 'VALIDATION_ERROR', paths: ['target'] });
  });

  it('a target that is neither a path nor a URL is 400', async () => {
    const response = await send('api/entities', { headers: auth.headers });
    expect(response.status).toBe(400);
    expect(envelope(response).code).toBe('VALIDATION_ERROR');
  });
});

describe('a Content-Length over the body limit', () => {
  it.each(['/api/ecosystems', '/graphql', '/mcp', '/oauth/token'])('to %s is 413 from the header, before any of the body', async (path) => {
    const head = [`POST ${path} HTTP/1.1`, `Host: ${host}`, ...Object.entries({ ...auth.headers, ...json }).map(([name, value]) => `${name}: ${value}`), 'Content-Length: 2000000'];
    // The body never comes: the answer must not wait for it.
    const response = await sendBytes(app.url, `${head.join('\r\n')}\r\n\r\n{"a":`, 3_000);
    expect(response.timedOut).toBe(false);
    expect(response.status).toBe(413);
    expect(header(response, 'connection')).toBe('close');
    const body = JSON.parse(response.body) as { error?: { code: string }; errors?: { extensions: { code: string } }[] };
    // /graphql words its refusals as GraphQL errors (docs/graphql-errors.md).
    expect(body.error?.code ?? body.errors?.[0]?.extensions.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('at the limit is read as usual', async () => {
    const body = JSON.stringify({ query: `{ __typename } #${'x'.repeat(1024 * 1024 - 40)}` });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(1024 * 1024);
    const response = await send('/graphql', { method: 'POST', headers: { ...auth.headers, ...json }, body });
    expect(response.status, response.body).toBe(200);
  });
});

describe('a head over node:http\'s limit', () => {
  it('is 431 in the envelope', async () => {
    const response = await send(`/api/entities?filter=${'name:x,'.repeat(3_000)}`, { headers: auth.headers });
    expect(response.status).toBe(431);
    expect(envelope(response)).toEqual({ code: 'HEADERS_TOO_LARGE', paths: [] });
  });
});
