/** What each transport (/graphql, REST, MCP through REST) hands the GraphQL side about its HTTP request. */
import type { AggregateExportReceiver } from '../aggregate/export.ts';
import type { Authentication } from '../auth/authenticate.ts';
import type { Principal } from '../auth/principal.ts';
import type { CancelSignal } from '../db/client.ts';
import type { HeaderBag } from '../header-bag.ts';
import type { MaybePromise } from '../maybe-promise.ts';
import type { GraphQLContext } from '../schema/context.ts';

export interface TransportContext {
  requestId: string;
  /** Reads a request header (case-insensitive). */
  header(name: string): string | undefined;
  /**
   * Headers the response will carry, added while the request is served (`Deprecation`, `RateLimit-*`).
   * Both transports copy them onto the HTTP response.
   */
  responseHeaders: HeaderBag;
  /** Told who the caller is once the token is verified (usage counting). */
  onIdentified?(principal: Principal): void;
  /** Aborted when the client leaves before the answer (src/http/exchange.ts). */
  signal?: CancelSignal;
  /** A CSV export of an aggregate (src/aggregate/export.ts); REST's requests only. */
  exportAggregate?: AggregateExportReceiver;
  /** Set when the operation run was a query: the answer holds reads only (its compressed form may be kept). */
  readOnly?: boolean;
  /** Set for a pure introspection query, served without a token (public-introspection.ts). */
  publicIntrospection?: boolean;
  /** The request's authentication, once made: whoever else handles the request reuses it (made and charged once). */
  authentication?: Promise<Authentication>;
}

export type ContextFactory = (transport: TransportContext) => MaybePromise<GraphQLContext>;
