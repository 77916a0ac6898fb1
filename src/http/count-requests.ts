/**
 * The express side of usage counting: when a request ends, charge it to the caller (a request the
 * client abandoned counts too, as an error with status 499: the work was done or begun).
 * The transports leave two facts in `res.locals`: `endpoint` (the route template, or
 * `<METHOD> /graphql`) and `principal` (set as soon as the token is verified, so refusals after
 * that, like a revoked key or a rate limit, are counted as errors of that client too); an MCP tool
 * call that failed, answered 200 over HTTP, leaves its failure's status in `toolStatus`.
 */
import type { RequestHandler } from 'express';
import type { Principal } from '../auth/principal.ts';
import { finalStatus } from './access-log.ts';
import { onRequestEnd } from './request-end.ts';
import type { UsageCounter } from '../usage/counter.ts';

export function countRequests(counter: UsageCounter): RequestHandler {
  return (_req, res, next) => {
    onRequestEnd(res, () => {
      const principal = res.locals.principal as Principal | undefined;
      const endpoint = res.locals.endpoint as string | undefined;
      const status = finalStatus(res);
      const toolStatus = res.locals.toolStatus as number | undefined;
      if (principal && endpoint) counter.record(principal, endpoint, status < 400 && toolStatus ? toolStatus : status);
    });
    next();
  };
}
