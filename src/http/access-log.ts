import type { RequestHandler, Response } from 'express';
import type { Logger } from '../logger.ts';
import { onRequestEnd } from './request-end.ts';

/** What the logs and metrics call a request whose client left before the response was complete (nginx's code). */
export const CLIENT_CLOSED_REQUEST = 499;

/** What they call a response the server cut short after its headers went out (a stream that failed). */
const RESPONSE_CUT_SHORT = 500;

/**
 * Ends a response whose headers are gone by destroying its connection, so the client sees an incomplete
 * transfer rather than a whole one, and the logs and metrics see the server's failure, not the client's.
 */
export function cutShort(res: Response): void {
  res.locals.cutShort = true;
  res.destroy();
}

/** The status a request ended with: its own, 500 when the server cut it short, 499 when the client went away first. */
export const finalStatus = (res: Response): number =>
  res.writableFinished ? res.statusCode : res.locals.cutShort === true ? RESPONSE_CUT_SHORT : CLIENT_CLOSED_REQUEST;

const MESSAGES: Record<number, string> = {
  [CLIENT_CLOSED_REQUEST]: 'request abandoned by the client',
  [RESPONSE_CUT_SHORT]: 'response cut short by the server',
};

/**
 * One line per request, abandoned ones too (the work was done or begun). Only method, path, status and
 * timing: never headers, query strings or bodies.
 */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    // At LOG_LEVEL warn and above there is no line to write, so nothing to time.
    if (!logger.isLevelEnabled('info')) return next();
    const started = performance.now();
    onRequestEnd(res, () => {
      const status = finalStatus(res);
      const unfinished = !res.writableFinished;
      logger.info(
        {
          requestId: res.locals.requestId,
          method: req.method,
          path: req.baseUrl + req.path,
          status,
          ms: performance.now() - started,
          ...(unfinished && status === CLIENT_CLOSED_REQUEST ? { abandoned: true } : {}),
          ...(unfinished && status === RESPONSE_CUT_SHORT ? { cut: true } : {}),
        },
        (unfinished && MESSAGES[status]) || 'request',
      );
    });
    next();
  };
}
