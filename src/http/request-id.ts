import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';

/** Incoming ids are echoed only when they look like ids, so a header cannot inject into logs. */
const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

// Only node:http's own request and response API (and res.locals), so the direct REST path runs it too.
export const requestId: RequestHandler = (req, res, next) => {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && VALID_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  next();
};
