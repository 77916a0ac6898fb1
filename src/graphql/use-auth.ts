/**
 * Authentication in yoga's pipeline, as soon as the GraphQL parameters are known, before the query is
 * parsed, so an unauthenticated caller learns nothing from parse or validation errors (the context
 * factory then reuses the same result). The access rules are the operation runner's
 * (src/graphql/operation-runner.ts). RateLimit-* headers travel in the transport's `responseHeaders`
 * bag, which the pipeline's writer puts on the answer.
 */
import type { Plugin } from 'graphql-yoga';
import type { Authentication, AuthenticationRequest } from '../auth/authenticate.ts';
import { isPureIntrospectionQuery } from './public-introspection.ts';
import type { GraphQLContext } from '../schema/context.ts';
import type { TransportContext } from './yoga.ts';

type Authenticate = (request: AuthenticationRequest) => Promise<Authentication>;

export type AuthPlugin = Plugin<GraphQLContext & TransportContext>;

export function useAuthenticateFirst(authenticate: Authenticate): AuthPlugin {
  return {
    async onParams({ context, params }) {
      // The schema is public: GraphiQL loads it before a token has been pasted.
      if (isPureIntrospectionQuery(params.query)) {
        (context as TransportContext).publicIntrospection = true;
        return;
      }
      // Kept on the context, which yoga hands on to the context factory: it reuses this result, as
      // this reuses one a direct path made before handing the request to yoga.
      const transport = context as TransportContext;
      await (transport.authentication ??= authenticate(transport));
    },
  };
}
