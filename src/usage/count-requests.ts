/**
 * Usage counting at the end of a request: charge it to the caller (a request the client abandoned counts
 * too, as an error with status 499: the work was done or begun). The transports leave what it reads on
 * the request: `endpoint` (the route template, or `<METHOD> /graphql`), `principal` (set as soon as the
 * token is verified, so refusals after that, like a revoked key or a rate limit, are counted as errors
 * of that client too), and for an MCP tool call that failed while its HTTP answer is 200, `toolStatus`.
 */
import type { Principal } from '../auth/principal.ts';
import type { UsageCounter } from './counter.ts';

export interface CountedRequest {
  readonly principal: Principal | undefined;
  readonly endpoint: string | undefined;
  readonly toolStatus: number | undefined;
  finalStatus(): number;
}

export function countRequests(counter: UsageCounter): (request: CountedRequest) => void {
  return (request) => {
    if (!request.principal || !request.endpoint) return;
    const status = request.finalStatus();
    counter.record(request.principal, request.endpoint, status < 400 && request.toolStatus ? request.toolStatus : status);
  };
}
