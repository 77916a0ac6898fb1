/**
 * HTTP/1.1's request forms (RFC 9112 §3.2), settled before any step reads the target or the Host:
 * node:http hands the request-target over as it came and keeps the first of several Host headers.
 * - origin-form (`/path?query`), what clients send: one character compared, nothing else done;
 * - absolute-form (`http://host/path?query`), which a server must accept (§3.2.2): rewritten to its
 *   origin-form in place, its authority becoming the Host (the RFC has the server use it and ignore
 *   the header), so every step, express and the MCP transport read one form;
 * - asterisk-form (`*`): a request about the server as a whole, for OPTIONS only (§3.2.4), answered
 *   204 with the methods the service answers in `Allow`;
 * - anything else (an authority-form outside CONNECT, a bare word): 400.
 * Host (§3.2): an HTTP/1.1 request must carry exactly one; none or several is 400.
 */
import type { IncomingMessage } from 'node:http';
import { validationError, type AppError } from '../errors.ts';
import { routes } from '../rest/routes.ts';
import type { Answer } from './respond.ts';

const SLASH = 47;
const ABSOLUTE = /^https?:\/\/([^/?#]*)([^#]*)$/i;

let serverOptions: Answer | undefined;

/** `OPTIONS *`: the methods some path of the service answers (the REST route table's, and HEAD and OPTIONS). */
const optionsAnswer = (): Answer =>
  (serverOptions ??= {
    status: 204,
    headers: { Allow: [...new Set(['GET', 'HEAD', 'POST', ...routes.map((route) => route.method), 'OPTIONS'])].join(', ') },
  });

/**
 * The answer the request's form calls for before anything else (a refusal, or `OPTIONS *`'s), or
 * undefined to serve it; an absolute-form target is made origin-form on the way.
 */
export function settleRequestForm(req: IncomingMessage): AppError | Answer | undefined {
  const hosts = countHosts(req.rawHeaders);
  if (hosts > 1) return validationError([{ path: 'header.host', message: 'must be sent once (it was sent more than once)' }]);
  if (hosts === 0 && req.httpVersion === '1.1') return validationError([{ path: 'header.host', message: 'is required in HTTP/1.1' }]);
  const target = req.url ?? '';
  if (target.charCodeAt(0) === SLASH) return undefined;
  if (target === '*') return req.method === 'OPTIONS' ? optionsAnswer() : badTarget('the target * is for OPTIONS only');
  const absolute = ABSOLUTE.exec(target);
  if (!absolute) return badTarget('must be a path (/api/...) or an absolute http(s) URL');
  const [, authority, rest] = absolute as unknown as [string, string, string];
  req.url = rest.charCodeAt(0) === SLASH ? rest : `/${rest}`;
  req.headers.host = authority;
  return undefined;
}

const badTarget = (message: string): AppError => validationError([{ path: 'target', message }]);

/** Host headers as they came (node keeps only the first in `headers`): a short loop over the raw names. */
function countHosts(raw: readonly string[]): number {
  let count = 0;
  for (let at = 0; at < raw.length; at += 2) {
    const name = raw[at]!;
    if (name.length === 4 && (name === 'Host' || name === 'host' || name.toLowerCase() === 'host')) count += 1;
  }
  return count;
}
