/**
 * A request and its response without a server: node's own IncomingMessage and ServerResponse on a socket
 * that keeps what is written, so the pipeline's steps and writer are tested as they run in production.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { Exchange } from '../../src/http/exchange.ts';

export interface WrittenResponse {
  status: number;
  /** Header names in lower case; a repeated one joined with ', '. */
  headers: Record<string, string>;
  /** The names in the order they were written. */
  order: string[];
  body: Buffer;
}

export interface TestExchange {
  req: IncomingMessage;
  res: ServerResponse;
  exchange: Exchange;
  /** What went onto the socket, once the response finished. */
  written(): Promise<WrittenResponse>;
}

export function testExchange(method: string, url: string, headers: Record<string, string> = {}): TestExchange {
  const chunks: Buffer[] = [];
  const socket = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      done();
    },
  }) as unknown as Socket;
  const req = new IncomingMessage(socket);
  req.method = method;
  req.url = url;
  req.headers = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const res = new ServerResponse(req);
  res.assignSocket(socket);
  const finished = new Promise<void>((resolve) => res.on('finish', () => resolve()));
  return {
    req,
    res,
    exchange: new Exchange(req, res),
    written: async () => {
      await finished;
      return parse(Buffer.concat(chunks), method);
    },
  };
}

function parse(raw: Buffer, method: string): WrittenResponse {
  const end = raw.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  const order: string[] = [];
  for (const line of lines) {
    const at = line.indexOf(':');
    const name = line.slice(0, at).toLowerCase();
    const value = line.slice(at + 1).trim();
    order.push(name);
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  const status = Number(statusLine!.split(' ')[1]);
  const rest = raw.subarray(end + 4);
  const body = method === 'HEAD' || status === 304 || status === 204 ? Buffer.alloc(0) : headers['transfer-encoding'] === 'chunked' ? unchunk(rest) : rest;
  return { status, headers, order, body };
}

function unchunk(raw: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    const size = Number.parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
    if (!size) return Buffer.concat(parts);
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
