import type { RequestHandler } from 'express';
import type { SqlClient } from '../db/client.ts';
import type { ReplicaSet } from '../db/replicas.ts';

/** `/healthz`: the process answers. */
export const healthz: RequestHandler = (_req, res) => {
  res.json({ status: 'ok' });
};

/**
 * `/readyz`: the process can reach its database. Replicas are shown (state, lag as of their last
 * check) but do not decide it: with the primary up, reads a replica cannot serve go to the primary.
 */
export function readyz(sql: SqlClient, replicas?: ReplicaSet): RequestHandler {
  return async (_req, res) => {
    try {
      await sql.query('SELECT 1');
      res.json({
        status: 'ready',
        ...(replicas ? { replicas: replicas.status().map(({ name, host, state, lagMs }) => ({ name, host, state, lag_ms: lagMs })) } : {}),
      });
    } catch {
      res.status(503).set('Retry-After', '5').json({
        error: { code: 'SERVICE_UNAVAILABLE', message: 'The database is unreachable' },
      });
    }
  };
}
