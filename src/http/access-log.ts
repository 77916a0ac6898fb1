import type { RequestHandler, Response } from 'express';
import type { Logger } from '../logger.ts';

/** What the logs and metrics call a request whose client left before the response was complete (nginx's code). */
export const CLIENT_CLOSED_REQUEST = 499;

/** The status a request ended with: its own, or 499 when the client went away first. */
export const finalStatus = (res: Response): number => (res.writableFinished ? res.statusCode : CLIENT_CLOSED_REQUEST);

/**
 * One line per request, abandoned ones too (the work was done or begun). Only method, path, status and
 * timing: never headers, query strings or bodies.
 */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    res.on('close', () => {
      const status = finalStatus(res);
      logger.info(
        {
          requestId: res.locals.requestId,
          method: req.method,
          path: req.baseUrl + req.path,
          status,
          ms: Number(process.hrtime.bigint() - started) / 1e6,
          ...(status === CLIENT_CLOSED_REQUEST ? { abandoned: true } : {}),
        },
        status === CLIENT_CLOSED_REQUEST ? 'request abandoned by the client' : 'request',
      );
    });
    next();
  };
}
