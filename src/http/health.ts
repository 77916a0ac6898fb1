import type { RequestHandler } from 'express';
import type { SqlClient } from '../db/client.ts';

/** `/healthz`: the process answers. */
export const healthz: RequestHandler = (_req, res) => {
  res.json({ status: 'ok' });
};

/** `/readyz`: the process can reach its database. */
export function readyz(sql: SqlClient): RequestHandler {
  return async (_req, res) => {
    try {
      await sql.query('SELECT 1');
      res.json({ status: 'ready' });
    } catch {
      res.status(503).set('Retry-After', '5').json({
        error: { code: 'SERVICE_UNAVAILABLE', message: 'The database is unreachable' },
      });
    }
  };
}
