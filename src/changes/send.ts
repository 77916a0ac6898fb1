/**
 * One signed POST (Standard Webhooks): `webhook-id`, `webhook-timestamp` (now, unix seconds, so a
 * receiver's replay window accepts a retry too) and `webhook-signature` from the `standardwebhooks`
 * package, over a connection to the address checked before (src/changes/webhook-url.ts): node:http's
 * `lookup` hook hands it over, so no second DNS answer can redirect it. TLS still verifies the
 * certificate against the URL's host name. Redirects are not followed (a 3xx is a failure).
 */
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { PinnedAddress } from './webhook-url.ts';

export interface SignedPost {
  url: URL;
  address: PinnedAddress;
  secret: string;
  eventId: string;
  body: string;
  timeoutMs: number;
  signal: AbortSignal;
}

/** Signs `body` as the delivery of `eventId` at `at`. */
export function signatureHeaders(secret: string, eventId: string, body: string, at: Date): Record<string, string> {
  return {
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(secret).sign(eventId, at, body),
  };
}

/** The answer's status; rejects on a connection error, a timeout or an abort (the message says which). */
export function postSigned(post: SignedPost): Promise<number> {
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) {
      (callback as unknown as (error: null, addresses: { address: string; family: number }[]) => void)(null, [post.address]);
    } else {
      callback(null, post.address.address, post.address.family);
    }
  };
  const options: RequestOptions = {
    method: 'POST',
    agent: false,
    lookup: pinned,
    headers: {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(post.body),
      'user-agent': 'venture-data-api-webhooks/1',
      ...signatureHeaders(post.secret, post.eventId, post.body, new Date()),
    },
    signal: post.signal,
  };
  const send = post.url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const request = send(post.url, options, (response) => {
      clearTimeout(timer);
      // The status is the answer; the body is drained unread, and a body that never ends is cut.
      response.resume();
      response.on('error', () => undefined);
      setTimeout(() => response.destroy(), post.timeoutMs).unref();
      resolve(response.statusCode ?? 0);
    });
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${post.timeoutMs} ms`)), post.timeoutMs);
    request.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    request.end(post.body);
  });
}
