/**
 * The baseline a user might write instead of this service: node:http, a pg pool, hand-written SQL
 * returning JSON, no validation, no auth, no framework. Started by bench/run.ts as its own process.
 */
import { createServer } from 'node:http';
import pg from 'pg';
import { BASELINE_SQL } from './scenarios.ts';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

const server = createServer(async (request, response) => {
  const url = request.url ?? '/';
  let rows: unknown[];
  let single = false;
  if (url === '/list') rows = (await pool.query(BASELINE_SQL.list)).rows.slice(0, 25);
  else if (url === '/nested') rows = (await pool.query(BASELINE_SQL.nested)).rows.slice(0, 25);
  else if (url === '/flat') rows = (await pool.query(BASELINE_SQL.flat)).rows.slice(0, 25);
  else if (url.startsWith('/entities/')) {
    rows = (await pool.query(BASELINE_SQL.byId, [Number(url.slice('/entities/'.length))])).rows;
    single = true;
  } else {
    response.writeHead(404).end();
    return;
  }
  const body = single ? { data: rows[0] } : { data: rows, page: { limit: 25, offset: 0 } };
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
});

server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
