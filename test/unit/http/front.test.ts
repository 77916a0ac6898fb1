// The pipeline's front on node's own request objects: which route serves a path, the steps before it,
// the steps at the end, and how a route's failure is answered.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src/errors.ts';
import { corsStep } from '../../../src/http/cors.ts';
import type { Exchange } from '../../../src/http/exchange.ts';
import { createFront, type Route } from '../../../src/http/front.ts';
import { respond } from '../../../src/http/respond.ts';
import { createLogger } from '../../../src/logger.ts';
import { testExchange } from '../../helpers/exchange.ts';

const lines: Record<string, unknown>[] = [];
const logger = createLogger({
  level: 'info',
  destination: new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  }),
});

const answering = (name: string): Route => ({
  serve: async (exchange) => respond(exchange, { status: 200, body: JSON.stringify({ route: name }) }),
});

function front(overrides: Partial<Parameters<typeof createFront>[0]> = {}) {
  const ended: string[] = [];
  const handler = createFront({
    before: [],
    atEnd: [(exchange) => ended.push(`${exchange.method} ${exchange.path} ${exchange.finalStatus()}`)],
    routes: { api: answering('rest'), exact: { '/graphql': answering('graphql'), '/mcp': answering('mcp') } },
    site: (_req, res, exchange) => {
      exchange.handOver();
      res.end('site');
    },
    logger,
    ...overrides,
  });
  const send = async (method: string, url: string, headers: Record<string, string> = {}) => {
    const { req, res, written } = testExchange(method, url, headers);
    handler(req, res);
    const response = await written();
    res.emit('close');
    return response;
  };
  return { send, ended };
}

describe('routes', () => {
  it.each([
    ['/api/entities?limit=1', 'rest'],
    ['/api', 'rest'],
    ['/graphql', 'graphql'],
    ['/graphql/', 'graphql'],
    ['/mcp', 'mcp'],
  ])('%s is served by %s', async (url, route) => {
    const { send } = front();
    expect(JSON.parse((await send('GET', url)).body.toString())).toEqual({ route });
  });

  it.each(['/docs', '/apis', '/graphqlx', '/metrics'])('%s is the site\'s, with the request id', async (url) => {
    const response = await front().send('GET', url, { 'x-request-id': 'abc' });
    expect(response.body.toString()).toBe('site');
    expect(response.headers['x-request-id']).toBe('abc');
  });
});

describe('steps', () => {
  it('runs the end steps once per request, with its final status', async () => {
    const { send, ended } = front();
    await send('GET', '/api/entities');
    expect(ended).toEqual(['GET /api/entities 200']);
  });

  it('answers a CORS preflight before any route, and gives a browser\'s request its headers', async () => {
    const { send } = front({ before: [corsStep(['https://app.example'])] });
    const preflight = await send('OPTIONS', '/api/entities', { origin: 'https://app.example', 'access-control-request-method': 'GET' });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example');
    const read = await send('GET', '/api/entities', { origin: 'https://app.example' });
    expect(JSON.parse(read.body.toString())).toEqual({ route: 'rest' });
    expect(read.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(read.headers['access-control-expose-headers']).toContain('RateLimit-Remaining');
  });

  it("gathers a browser's CORS headers for the writer, so the response has none set before its head", async () => {
    let setBeforeTheWriter: string[] | undefined;
    const peeking: Route = {
      serve: async (exchange) => {
        setBeforeTheWriter = exchange.res.getHeaderNames();
        respond(exchange, { status: 200, body: 'x'.repeat(2048) });
      },
    };
    const { send } = front({ before: [corsStep(['https://app.example'])], routes: { api: peeking, exact: {} } });
    const read = await send('GET', '/api/entities', { origin: 'https://app.example', 'accept-encoding': 'gzip' });
    // Nothing on the response: its head goes out in one writeHead, without node's merge of set headers.
    expect(setBeforeTheWriter).toEqual([]);
    expect(read.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(read.headers.vary).toBe('Origin, Accept-Encoding');
    expect(read.order.filter((name) => name.startsWith('access-control-') || name === 'vary')).toEqual(['access-control-allow-origin', 'vary', 'access-control-expose-headers']);
    const page = await send('GET', '/docs', { origin: 'https://app.example' });
    expect(page.headers['access-control-allow-origin']).toBe('https://app.example');
  });
});

describe("a route's failure", () => {
  const failing = (error: unknown): Route => ({ serve: () => Promise.reject(error) });

  it("is answered with its AppError, in the route's words when it has them", async () => {
    const refusal = (_exchange: Exchange, error: AppError) => ({ status: error.status, body: JSON.stringify({ errors: [{ message: error.message }] }) });
    const { send } = front({ routes: { api: failing(new AppError('FORBIDDEN', 'no')), exact: { '/graphql': { ...failing(new AppError('FORBIDDEN', 'no')), refusal } } } });
    const rest = await send('GET', '/api/entities');
    expect(rest.status).toBe(403);
    expect(JSON.parse(rest.body.toString())).toEqual({ error: { code: 'FORBIDDEN', message: 'no' } });
    expect(JSON.parse((await send('POST', '/graphql')).body.toString())).toEqual({ errors: [{ message: 'no' }] });
  });

  it('is 503 when the database cannot answer, and a masked, logged 500 otherwise', async () => {
    const unavailable = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    expect((await front({ routes: { api: failing(unavailable), exact: {} } }).send('GET', '/api/x')).status).toBe(503);
    lines.length = 0;
    const internal = await front({ routes: { api: failing(new Error('secret detail')), exact: {} } }).send('GET', '/api/x', { 'x-request-id': 'r-9' });
    expect(internal.status).toBe(500);
    expect(internal.body.toString()).not.toContain('secret');
    expect(lines.find((line) => line.msg === 'unhandled error')).toMatchObject({ requestId: 'r-9' });
  });
});
