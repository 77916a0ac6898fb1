/**
 * The auth hooks in the yoga/envelop pipeline:
 * - authenticate as soon as the GraphQL parameters are known, before the query is parsed, so an
 *   unauthenticated caller learns nothing from parse or validation errors (the context factory then
 *   reuses the same result);
 * - check the access rules the schema declares over the whole operation before any of it executes
 *   (REST operations run through the same `execute`, so they are checked here too).
 * RateLimit-* headers travel in the transport's `responseHeaders` bag, which yoga.ts copies.
 */
import type { Plugin } from 'graphql-yoga';
import type { Authentication, AuthenticationRequest } from '../auth/authenticate.ts';
import { authorizeOperation } from '../auth/authorize.ts';
import { findAppError, toGraphQLError } from '../errors.ts';
import { isPureIntrospection, isPureIntrospectionQuery } from './public-introspection.ts';
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

export function usePermissions(): AuthPlugin {
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const context = args.contextValue as Partial<GraphQLContext & TransportContext>;
      if (context.publicIntrospection && isPureIntrospection(args.document)) return;
      try {
        authorizeOperation(args.document, context.principal ?? null, {
          variables: args.variableValues ?? {},
          operationName: args.operationName,
          schema: args.schema,
        });
      } catch (error) {
        const appError = findAppError(error);
        if (!appError) throw error;
        setResultAndStopExecution({ errors: [toGraphQLError(appError)] });
      }
    },
  };
}
