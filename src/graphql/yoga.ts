/**
 * The GraphQL server: graphql-yoga over the Pothos schema, GraphiQL on browser GETs. REST runs its
 * prepared operations through the same envelop pipeline (run-operation.ts), so masking, context and
 * every plugin apply to both transports alike.
 */
import { renderGraphiQL } from '@graphql-yoga/render-graphiql';
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { GraphQLSchema } from 'graphql';
import type { Principal } from '../auth/principal.ts';
import type { GraphQLContext } from '../schema/context.ts';
import type { Logger } from '../logger.ts';
import { createErrorMasker, useValidationErrorCode } from './mask-error.ts';
import { useArmor } from './use-armor.ts';

/** What each transport hands the pipeline about the HTTP request. */
export interface TransportContext {
  requestId: string;
  /** Reads a request header (case-insensitive). */
  header(name: string): string | undefined;
  /**
   * Headers the response will carry, added while the request is served (`Deprecation`, `RateLimit-*`).
   * Both transports copy them onto the HTTP response.
   */
  responseHeaders: Headers;
  /** Told who the caller is once the token is verified (usage counting). */
  onIdentified?(principal: Principal): void;
}

export type ContextFactory = (transport: TransportContext) => Promise<GraphQLContext> | GraphQLContext;

export type GraphQLServer = YogaServerInstance<TransportContext, GraphQLContext>;

export interface GraphQLServerOptions {
  schema: GraphQLSchema;
  logger: Logger;
  graphiql: boolean;
  createContext: ContextFactory;
  plugins?: Plugin<GraphQLContext & TransportContext>[];
}

const GRAPHIQL_HEADERS = JSON.stringify(
  { Authorization: 'Bearer <access token>', 'X-Client-Id': '<client id>' },
  null,
  2,
);

/** An empty icon: the renderer's default points at an external host. */
const GRAPHIQL_FAVICON = 'data:,';

const GRAPHIQL_QUERY = `# Set the Authorization and X-Client-Id headers below, then run:
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
    plugins: [useResponseHeaders(), useValidationErrorCode(), ...useArmor(), ...(options.plugins ?? [])],
    maskedErrors: {
      maskError: (error) => maskError(error),
    },
    graphiql: options.graphiql
      ? { title: 'Venture Data API', defaultQuery: GRAPHIQL_QUERY, headers: GRAPHIQL_HEADERS, shouldPersistHeaders: true }
      : false,
    // GraphiQL's assets come inlined from the package, not from a CDN: the page works on networks
    // that cannot reach the internet, as a self-hosted service must.
    renderGraphiQL: (graphiql) => renderGraphiQL({ ...graphiql, favicon: GRAPHIQL_FAVICON }),
    context: (initial) => options.createContext(initial),
  });
}

/** Copies the headers collected in the transport context onto /graphql responses. */
function useResponseHeaders(): Plugin<TransportContext> {
  return {
    onResponse: ({ response, serverContext }) => {
      (serverContext as Partial<TransportContext>).responseHeaders?.forEach((value, name) => {
        response.headers.set(name, value);
      });
    },
  };
}
