/**
 * The HTTP server every instance listens with (the tests' apps and the benches too): node:http, with
 * the answers node would write itself given the contract's envelope and an X-Request-Id:
 * - a request node cannot parse is answered here (node wrote a bare status line): a head over node's
 *   header limit (16 KiB unless `--max-http-header-size` says otherwise; a long URL among them) 431
 *   `HEADERS_TOO_LARGE`, a request not received in time 408 `REQUEST_TIMEOUT`, anything else
 *   malformed 400 `VALIDATION_ERROR`;
 * - a missing Host is left to the front, which refuses it as it refuses two (src/http/request-form.ts).
 */
import { randomUUID } from 'node:crypto';
import { createServer, maxHeaderSize, STATUS_CODES, type RequestListener, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError, toErrorEnvelope } from '../errors.ts';
import { JSON_TYPE } from './respond.ts';

export function createHttpServer(listener?: RequestListener): Server {
  const server = createServer({ requireHostHeader: false }, listener);
  server.on('clientError', answerUnreadable);
  return server;
}

/** node:http's own bookkeeping on a socket: the response in flight on it, if any. */
type ServingSocket = Duplex & { _httpMessage?: { _headerSent?: boolean } | null };

function answerUnreadable(error: NodeJS.ErrnoException, socket: ServingSocket): void {
  // As node itself: nothing is written to a client that is gone, nor into a response already under
  // way on a kept-alive connection (it would corrupt it); between responses, the refusal goes out.
  if (error.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?._headerSent) {
    socket.destroy();
    return;
  }
  const refusal = refusalOf(error.code);
  const body = JSON.stringify(toErrorEnvelope(refusal));
  socket.end(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status]}\r\nX-Request-Id: ${randomUUID()}\r\nContent-Type: ${JSON_TYPE}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

function refusalOf(code: string | undefined): AppError {
  if (code === 'HPE_HEADER_OVERFLOW') return new AppError('HEADERS_TOO_LARGE', `The request line and headers exceed ${maxHeaderSize} bytes`);
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') return new AppError('PAYLOAD_TOO_LARGE', 'A chunk extension of the body is too large');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return new AppError('REQUEST_TIMEOUT', 'The request was not received in time');
  return new AppError('VALIDATION_ERROR', `The request is not valid HTTP/1.1 (${code ?? 'unreadable'})`);
}
