/**
 * The baseline of bench/aggregates.ts: the hand-written statement of each question, run through pg
 * behind node:http (a named statement, its one text value the body). Nothing else: no
 * authentication, validation, rate limit or usage counting. Started by bench/aggregates.ts.
 */
import { createServer } from 'node:http';
import pg from 'pg';
import { QUESTIONS } from './aggregate-questions.ts';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const byPath = new Map(QUESTIONS.map((question, index) => [question.path, { name: `aggregate_${index}`, text: question.sql }]));

const server = createServer((request, response) => {
  const statement = byPath.get(request.url ?? '');
  if (!statement) {
    response.writeHead(404).end();
    return;
  }
  pool.query({ ...statement, rowMode: 'array' }).then(
    (result) => {
      const body = String(result.rows[0]?.[0]);
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      response.end(body);
    },
    () => response.writeHead(500).end(),
  );
});

server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
