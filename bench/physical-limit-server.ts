/**
 * The physical limit the bench measures our server against: what serving these records costs when a
 * server does nothing but the unavoidable. node:http, a pg pool of the size ours uses, ONE named
 * (prepared) statement per request whose single text value is the whole response body, built by
 * PostgreSQL, written to the socket once (headers and body in one write). No parsing or
 * re-stringifying of rows, no validation, authentication, rate limit, usage counting or framework.
 * Started by bench/run.ts as its own process.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import pg from 'pg';
import { LIMIT_SQL } from './scenarios.ts';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: Number(process.env.POOL_SIZE ?? 10) });

type Name = keyof typeof LIMIT_SQL;

/**
 * A client that asks for gzip gets a body of 1 KiB or more gzipped in one synchronous call at zlib's
 * default level: the least a server that compresses can do.
 */
function run(name: Name, values: readonly unknown[], request: IncomingMessage, response: ServerResponse): void {
  pool.query({ name, text: LIMIT_SQL[name].text, values: [...values], rowMode: 'array' }).then(
    (result) => {
      const body = result.rows[0]?.[0] as string | undefined;
      if (body === undefined) {
        response.writeHead(404).end();
        return;
      }
      if (Buffer.byteLength(body) >= 1024 && /\bgzip\b/.test(request.headers['accept-encoding'] ?? '')) {
        const gzipped = gzipSync(body);
        response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-encoding': 'gzip', 'content-length': gzipped.length });
        response.end(gzipped);
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      response.end(body);
    },
    () => response.writeHead(500).end(),
  );
}

const server = createServer((request, response) => {
  const url = request.url ?? '/';
  if (url === '/list' || url === '/nested' || url === '/flat') run(url.slice(1) as Name, LIMIT_SQL[url.slice(1) as Name].values, request, response);
  else if (url.startsWith('/entities/')) run('byId', [...LIMIT_SQL.byId.values, Number(url.slice('/entities/'.length))], request, response);
  else response.writeHead(404).end();
});

server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
