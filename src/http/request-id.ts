import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';

/** Incoming ids are echoed only when they look like ids, so a header cannot inject into logs. */
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's id: the client's X-Request-Id when it looks like one, else a new UUID. */
export function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

// Only node:http's own request and response API (and res.locals), so the direct paths run it too.
export const requestId: RequestHandler = (req, res, next) => {
  const id = requestIdOf(req);
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
};
