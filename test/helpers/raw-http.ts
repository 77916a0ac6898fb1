/**
 * A request sent with exactly the headers given (fetch would add Accept-Encoding and others) and its
 * answer as node:http receives it: status, headers in order with their spelling, body. For tests that
 * compare two paths of the server to the byte.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: [string, string][];
  /** The body as UTF-8 text; a compressed one is compared by `bytes`. */
  body: string;
  bytes: Buffer;
}

export function rawRequest(url: string, options: { method?: string; headers: Record<string, string>; body?: string }): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const pairs: [string, string][] = [];
        for (let index = 0; index < response.rawHeaders.length; index += 2) pairs.push([response.rawHeaders[index]!, response.rawHeaders[index + 1]!]);
        const bytes = Buffer.concat(chunks);
        resolve({ status: response.statusCode!, headers: pairs, body: bytes.toString('utf8'), bytes });
      });
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

/** The response without the headers that differ between two requests by nature (`varying`, by name). */
export function comparable(response: RawResponse, varying: RegExp): RawResponse {
  return { ...response, headers: response.headers.filter(([name]) => !varying.test(name)) };
}

/**
 * Exact bytes on a connection of their own (a request node's client would not send: an absolute or `*`
 * target, two Host headers, a Content-Length and no body) and the answer as the server wrote it, read
 * until the server closes the connection (send `Connection: close` when it would keep it) or
 * `timeoutMs` passes (then `timedOut`).
 */
export function sendBytes(url: string, bytes: string, timeoutMs = 5_000): Promise<RawResponse & { timedOut: boolean }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    const timer = setTimeout(() => finish(true), timeoutMs);
    const finish = (timedOut: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseResponse(Buffer.concat(chunks)), timedOut });
    };
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => finish(false));
    socket.on('error', (error) => (chunks.length ? finish(false) : reject(error)));
  });
}

/** A whole HTTP/1.1 answer: status line, headers, body (a chunked one joined). */
function parseResponse(raw: Buffer): RawResponse {
  const headEnd = raw.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = raw.subarray(0, headEnd === -1 ? raw.length : headEnd).toString('latin1').split('\r\n');
  const headers = lines.map((line): [string, string] => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]);
  let bytes = headEnd === -1 ? Buffer.alloc(0) : raw.subarray(headEnd + 4);
  if (headers.some(([name, value]) => name.toLowerCase() === 'transfer-encoding' && value === 'chunked')) {
    const parts: Buffer[] = [];
    for (let at = 0; ; ) {
      const sizeEnd = bytes.indexOf('\r\n', at);
      const size = parseInt(bytes.subarray(at, sizeEnd).toString('latin1'), 16);
      if (!size) break;
      parts.push(bytes.subarray(sizeEnd + 2, sizeEnd + 2 + size));
      at = sizeEnd + 2 + size + 2;
    }
    bytes = Buffer.concat(parts);
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: bytes.toString('utf8'), bytes };
}
