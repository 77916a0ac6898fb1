import type { Logger } from '../logger.ts';
import { CLIENT_CLOSED_REQUEST, type Exchange } from './exchange.ts';

const MESSAGES: Record<number, string> = {
  [CLIENT_CLOSED_REQUEST]: 'request abandoned by the client',
  500: 'response cut short by the server',
};

/**
 * One line per request, abandoned ones too (the work was done or begun). Only method, path, status and
 * timing: never headers, query strings or bodies. Undefined at LOG_LEVEL warn and above: no line, nothing to run.
 */
export function accessLog(logger: Logger): ((exchange: Exchange) => void) | undefined {
  if (!logger.isLevelEnabled('info')) return undefined;
  return (exchange) => {
    const status = exchange.finalStatus();
    const unfinished = !exchange.res.writableFinished;
    logger.info(
      {
        requestId: exchange.requestId,
        method: exchange.method,
        path: exchange.path,
        status,
        ms: performance.now() - exchange.started,
        ...(unfinished && status === CLIENT_CLOSED_REQUEST ? { abandoned: true } : {}),
        ...(unfinished && exchange.cutShort ? { cut: true } : {}),
      },
      (unfinished && MESSAGES[status]) || 'request',
    );
  };
}
