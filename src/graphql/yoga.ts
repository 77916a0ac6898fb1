/**
 * The GraphQL server: graphql-yoga over the Pothos schema, GraphiQL on browser GETs. yoga reads the
 * GraphQL parameters, parses and validates documents (with graphql-armor's limits) and writes results
 * by GraphQL over HTTP's rules; operations run through the one operation runner
 * (src/graphql/use-operation-runner.ts), as REST's and MCP's do.
 */
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { GraphQLSchema } from 'graphql';
import type { AggregateExportReceiver } from '../aggregate/export.ts';
import type { Authentication } from '../auth/authenticate.ts';
import type { Principal } from '../auth/principal.ts';
import type { GraphQLContext } from '../schema/context.ts';
import type { Logger } from '../logger.ts';
import type { GraphiQLSite } from './graphiql-page.ts';
import { createErrorMasker, useValidationErrorCode } from './mask-error.ts';
import { useArmor } from './use-armor.ts';
import type { HeaderBag } from '../header-bag.ts';
import type { CancelSignal } from '../db/client.ts';
import type { MaybePromise } from '../maybe-promise.ts';

/** What each transport hands the pipeline about the HTTP request. */
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
  /** Set by the auth plugin for a pure introspection query, served without a token (public-introspection.ts). */
  publicIntrospection?: boolean;
  /**
   * The request's authentication, once made (by the context factory or the auth plugin): whoever else
   * handles the request reuses it, so it is neither repeated nor charged to the rate limit twice.
   */
  authentication?: Promise<Authentication>;
}

export type ContextFactory = (transport: TransportContext) => MaybePromise<GraphQLContext>;

export type GraphQLServer = YogaServerInstance<TransportContext, GraphQLContext>;

export interface GraphQLServerOptions {
  schema: GraphQLSchema;
  logger: Logger;
  /** The GraphiQL page for browser GETs; undefined turns it off. */
  graphiql: GraphiQLSite | undefined;
  createContext: ContextFactory;
  plugins?: Plugin<GraphQLContext & TransportContext>[];
}

const GRAPHIQL_HEADERS = JSON.stringify(
  { Authorization: 'Bearer <access token>', 'X-Client-Id': '<client id>' },
  null,
  2,
);

const GRAPHIQL_QUERY = `# Welcome to the Venture Data API.
#
# The Docs panel (book icon, top left) and autocompletion work without a token.
# To run queries, paste your access token into the Headers tab below this
# editor: replace <access token> and <client id> (the client id the token was
# issued to). Get a token with POST /oauth/token (see /docs, "auth").
# Then press the run button (or Ctrl-Enter):
{
  entities(filter: "name[contains]:airbnb", limit: 2) {
    data { id name hq_country tags { name } founders { name } }
    page { limit offset next_cursor }
  }
}
`;

export function createGraphQLServer(options: GraphQLServerOptions): GraphQLServer {
  const maskError = createErrorMasker(options.logger);
  return createYoga<TransportContext, GraphQLContext>({
    schema: options.schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    logging: false,
    // CORS is the app's one policy (CORS_ORIGINS, src/http/cors.ts), for /graphql as for /api; yoga's
    // own default would answer every origin, credentials allowed.
    cors: false,
    plugins: [maskError.plugin, useValidationErrorCode(), ...useArmor(), ...(options.plugins ?? [])],
    maskedErrors: {
      maskError: (error) => maskError(error),
    },
    graphiql: options.graphiql
      ? { title: 'Venture Data API', defaultQuery: GRAPHIQL_QUERY, headers: GRAPHIQL_HEADERS, shouldPersistHeaders: true }
      : false,
    // GraphiQL's assets come from the package via our own origin, not from a CDN (graphiql-page.ts).
    renderGraphiQL: (graphiql) => options.graphiql!.render(graphiql ?? {}),
    context: (initial) => options.createContext(initial),
  });
}
