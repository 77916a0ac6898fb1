/**
 * `/oauth/token` on the pipeline: its body read as it comes (a form or JSON, within the body limit), then
 * the token endpoint (src/auth/token-endpoint.ts), which answers in RFC 6749's format; the one writer
 * sends it.
 */
import bodyParser from 'body-parser';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Auth } from '../auth/index.ts';
import type { Exchange } from './exchange.ts';
import type { Route } from './front.ts';
import { BODY_LIMIT, bodyReadError } from './json-body.ts';
import { refuseDeclaredLength } from './read-body.ts';
import { jsonAnswer, respond } from './respond.ts';

type Reader = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

export function tokenRoute(auth: Pick<Auth, 'tokenEndpoint'>): Route {
  const readRaw = bodyParser.raw({ type: () => true, limit: BODY_LIMIT }) as Reader;
  const readBody = (exchange: Exchange): Promise<string> =>
    new Promise((resolve, reject) => {
      const declared = refuseDeclaredLength(exchange);
      if (declared) return void reject(declared);
      readRaw(exchange.req, exchange.res, (error) => {
        if (error) {
          reject(bodyReadError(error, exchange) ?? error);
          return;
        }
        const body = (exchange.req as { body?: unknown }).body;
        resolve(Buffer.isBuffer(body) ? body.toString('utf8') : '');
      });
    });
  const serve = async (exchange: Exchange): Promise<void> => {
    const body = await readBody(exchange);
    const [answer, init] = await auth.tokenEndpoint({
      method: exchange.method,
      contentType: exchange.header('content-type'),
      body,
      authorization: exchange.header('authorization'),
      address: exchange.req.socket.remoteAddress ?? '',
    });
    respond(exchange, jsonAnswer(answer, init));
  };
  return { serve };
}
