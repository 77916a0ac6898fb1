/**
 * Our app, in a process of its own, whose compiled reads are answered from memory after their first
 * real read: what the request path costs in our process with PostgreSQL's share and its variance
 * taken out (bench/request-overhead.ts). Everything else is the app as `npm start` builds it:
 * authentication, the rate limit, permissions, usage counting, metrics, the plan and the response.
 * `/bare` is node:http alone answering a record-sized body, the floor on this machine. A request with
 * `x-via: express` reaches the same app through express's own dispatch (an app whose one middleware is
 * ours): what express in front of the API would cost (docs/request-pipeline.md, "Express").
 * A diagnostic: the figures to quote are bench/run.ts's, which read the database on every request.
 */
import express from 'express';
import { loadConfig } from '../src/config.ts';
import { createHttpServer } from '../src/http/server.ts';
import { databaseOptions, openDatabase, type SqlClient } from '../src/db/client.ts';
import { createLogger } from '../src/logger.ts';
import { prepareDatabase } from '../src/startup.ts';

const config = loadConfig();
const logger = createLogger({ level: config.LOG_LEVEL, pretty: false });
const db = await openDatabase(databaseOptions(config));
await prepareDatabase({ config, db, logger });

// Keyed by the statement's text, then its parameters: a statement's text is one string the compiler
// wrote once, whose hash V8 keeps, where a key joining it to the parameters would be a new string of
// its length (a copy and a hash of a few kilobytes) on every request, a cost the real path has not.
const remembered = new Map<string, Map<string, Promise<unknown[]>>>();
const prepared = ((sql, params, signal) => {
  let bySql = remembered.get(sql);
  if (!bySql) remembered.set(sql, (bySql = new Map()));
  const key = JSON.stringify(params);
  let rows = bySql.get(key);
  if (!rows) bySql.set(key, (rows = db.sql.prepared(sql, params, signal)));
  return rows;
}) as SqlClient['prepared'];

const { createApp } = await import('../src/app.ts');
const app = createApp({ config, db: { ...db, sql: { ...db.sql, prepared } }, logger });

const viaExpress = express();
viaExpress.disable('x-powered-by');
viaExpress.use((req, res) => app(req, res));

const BARE = JSON.stringify({ data: { id: 1, name: 'x'.repeat(680) } });
const server = createHttpServer((req, res) => {
  if (req.headers['x-via'] === 'express') return void viaExpress(req, res);
  if (req.url !== '/bare') return void app(req, res);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(BARE));
  res.end(BARE);
});
server.listen(config.PORT, '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => process.exit(0));
