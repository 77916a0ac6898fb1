/**
 * A request sent with exactly the headers given (fetch would add Accept-Encoding and others) and its
 * answer as node:http receives it: status, headers in order with their spelling, body. For tests that
 * compare two paths of the server to the byte.
 */
import { request as httpRequest } from 'node:http';

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
