/**
 * The composition root: wires configuration, database, GraphQL, REST and MCP into one request pipeline
 * (src/http/front.ts) and returns its request listener. Everything a request touches is created here
 * and handed down; nothing reaches for globals.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createAuth } from './auth/index.ts';
import { authorizeOperation, rulesReadVariables } from './auth/authorize.ts';
import type { Principal } from './auth/principal.ts';
import { createTenantClients } from './auth/tenancy.ts';
import { startBackgroundWork } from './background.ts';
import { secretBox } from './changes/secret-box.ts';
import { systemResolver, type ResolveHost, type UrlPolicy } from './changes/webhook-url.ts';
import { readModels } from './compile/model.ts';
import type { Config } from './config.ts';
import type { Database, PrismaClient } from './db/client.ts';
import type { Replica } from './db/replicas.ts';
import { getDatamodel } from './db/generated/pothos-types.ts';
import { graphiqlSite } from './graphql/graphiql-page.ts';
import { createErrorMasker } from './graphql/mask-error.ts';
import { createOperationRunner } from './graphql/operation-runner.ts';
import { createReadRouting } from './graphql/read-routing.ts';
import { createCompiledReads } from './graphql/use-compiled-reads.ts';
import { createGraphQLRequestHandler } from './graphql/graphql-request.ts';
import type { TransportContext } from './graphql/transport.ts';
import { accessLog } from './http/access-log.ts';
import { corsStep } from './http/cors.ts';
import { createFront } from './http/front.ts';
import { Serving } from './http/serving.ts';
import { graphqlRoute } from './http/graphql-route.ts';
import { createCompressedAnswers } from './http/compressed-answers.ts';
import { mcpRoute } from './http/mcp-route.ts';
import { createMetrics } from './http/metrics.ts';
import { restRoute } from './http/rest-route.ts';
import { createSite } from './http/site.ts';
import { tokenRoute } from './http/token-route.ts';
import type { Logger } from './logger.ts';
import { createMcpEndpoint, MCP_PATH } from './mcp/endpoint.ts';
import { buildOpenApiDocument, queryIntegerBounds } from './openapi/index.ts';
import { readPackage } from './openapi/build.ts';
import { createRestHandler, type RestHandler } from './rest/handler.ts';
import { listReader } from './exports/list-reader.ts';
import { loadOperations } from './rest/operations.ts';
import { routes } from './rest/routes.ts';
import type { GraphQLContext } from './schema/context.ts';
import { getSchema } from './api-schema.ts';
import { declaredTenantRules } from './schema/resource.ts';
import { countRequests } from './usage/count-requests.ts';
import type { UsageCounter } from './usage/counter.ts';
import type { PartitionMaintenance } from './usage/partitions.ts';
import { MATCH_MAX_RECORDS } from './match/input.ts';

export interface AppDependencies {
  config: Config;
  db: Pick<Database, 'prisma' | 'sql' | 'replicas'>;
  logger: Logger;
  /** The current time for rules that depend on it (invitation expiry); the system clock by default. */
  clock?: () => Date;
  /** How webhook host names are resolved (the system's resolver by default; tests inject one). */
  resolveHost?: ResolveHost;
}

/**
 * The request listener plus what it holds open (Redis for shared rate limits, counted usage, the
 * webhook deliverer). `close()` writes the usage still in memory and hands back webhook deliveries in
 * flight, so call it before the database closes.
 */
export type App = ((req: IncomingMessage, res: ServerResponse) => void) & {
  usage: UsageCounter;
  usagePartitions: PartitionMaintenance;
  close(): Promise<void>;
};

const systemClock = (): Date => new Date();

export function createApp({ config, db, logger, clock = systemClock, resolveHost = systemResolver }: AppDependencies): App {
  const schema = getSchema();
  const auth = createAuth({ config, sql: db.sql, logger });
  const webhooks = {
    urls: { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_URLS, resolve: resolveHost } satisfies UrlPolicy,
    secrets: secretBox(config.WEBHOOK_SECRET_KEY ? Buffer.from(config.WEBHOOK_SECRET_KEY, 'base64') : undefined),
  };
  const tenantClient = createTenantClients(db.prisma, getDatamodel().datamodel, declaredTenantRules());
  // Exports read the REST list as their creator (bound below, once the handler exists) and wake the worker.
  let handleRestLater: RestHandler | undefined;
  let wakeExports = (): void => undefined;
  const exportServices = {
    sql: db.sql,
    readList: listReader(() => handleRestLater!),
    wake: () => wakeExports(),
  };

  // Every transport builds its context here, so all authenticate the same way (src/auth), and every
  // query of an authenticated request is narrowed to its organisation (src/auth/tenancy.ts).
  const contextOf = (transport: TransportContext, principal: Principal | null): GraphQLContext => ({
    prisma: principal ? tenantClient(principal.orgId) : db.prisma,
    sql: db.sql,
    principal,
    requestId: transport.requestId,
    logger,
    responseHeaders: transport.responseHeaders,
    clock,
    exactTotalLimit: config.EXACT_TOTAL_LIMIT,
    signal: transport.signal,
    exportAggregate: transport.exportAggregate,
    webhooks,
    exports: exportServices,
  });
  const createContext = (transport: TransportContext): Promise<GraphQLContext> => {
    // A pure introspection query carries no identity (the auth plugin let it through unauthenticated).
    if (transport.publicIntrospection) return Promise.resolve(contextOf(transport, null));
    // Kept on the transport: whoever handles the request next reuses it (authenticated and charged once).
    return (transport.authentication ??= auth.authenticate(transport)).then(({ principal }) => contextOf(transport, principal));
  };

  const metrics = createMetrics();
  // With replicas, data reads go to them (src/graphql/read-routing.ts); without, everything reads the primary.
  const replicas = db.replicas;
  const readRouting = replicas && createReadRouting({
    replicas,
    schema,
    registry: metrics.registry,
    primary: (principal) => ({ prisma: principal ? tenantClient(principal.orgId) : db.prisma, sql: db.sql }),
    replicaPrisma: replicaTenantClients((prisma) => createTenantClients(prisma, getDatamodel().datamodel, declaredTenantRules())),
  });
  const compiledReads = config.COMPILED_READS ? createCompiledReads(logger, metrics.registry, schema, readModels()) : undefined;
  const maskError = createErrorMasker(logger);
  const runOperation = createOperationRunner({ schema, compiledReads, readRouting, maxFanOut: config.GRAPHQL_MAX_FAN_OUT, maxBatchRecords: MATCH_MAX_RECORDS, maskError });
  const graphiql = config.GRAPHIQL ? graphiqlSite() : undefined;
  const handleGraphQL = createGraphQLRequestHandler({ schema, createContext, runOperation, maskError, registry: metrics.registry });
  const operations = loadOperations(schema);
  const openApi = buildOpenApiDocument({ schema, operations, routes, config });
  const queryBounds = queryIntegerBounds(openApi);
  const handleRest = createRestHandler({
    routes,
    operations,
    authenticate: createContext,
    runOperation,
    compiledReads,
    authorize: (document, context) => authorizeOperation(document, context.principal, { schema }),
    rulesReadVariables: (document) => rulesReadVariables(document, schema),
    // The ranges the document states: a refusal names the route's own (`limit`: 1 to 50), as a client reads it there.
    queryBounds: (endpoint) => queryBounds.get(endpoint),
    onUnexpectedError: (error, request) => logger.error({ err: error, requestId: request.requestId }, 'unexpected error in a REST request'),
  });
  handleRestLater = handleRest;
  // Requests in flight: an export's reads wait for none, so clients come first.
  const serving = new Serving();
  const background = startBackgroundWork({
    config, sql: db.sql, logger, registry: metrics.registry, schema, clock, webhooks, readList: exportServices.readList, foreground: serving,
    // Every request is counted at its end: the system clock without a Date per request.
    now: clock === systemClock ? Date.now : () => clock().getTime(),
  });
  wakeExports = background.wakeExports;
  const mcp = createMcpEndpoint({ config, handle: handleRest, version: readPackage().version });
  const site = createSite({
    config, auth, sql: db.sql, replicas, metrics, graphiql, logger,
    openApi,
  });

  const front = createFront({
    before: [corsStep(config.CORS_ORIGINS)],
    atEnd: [metrics.observe, config.USAGE_COUNTING ? countRequests(background.usage) : undefined, accessLog(logger)],
    routes: {
      api: restRoute(handleRest, { sql: db.sql }),
      exact: { '/graphql': graphqlRoute(handleGraphQL, graphiql), [MCP_PATH]: mcpRoute(mcp), '/oauth/token': tokenRoute(auth) },
    },
    compressedAnswers: createCompressedAnswers(config.COMPRESSION_CACHE_MB, metrics.registry),
    serving,
    site: (req, res, exchange) => {
      exchange.handOver();
      site(req, res);
    },
    logger,
  });

  return Object.assign(front, {
    usage: background.usage,
    usagePartitions: background.usagePartitions,
    close: async () => {
      await Promise.all([background.close(), auth.close()]);
    },
  });
}

/** Each replica's Prisma clients, one per organisation (and one unscoped), made on first use. */
function replicaTenantClients(
  tenantClients: (prisma: PrismaClient) => (orgId: string) => PrismaClient,
): (replica: Replica, principal: Principal | null) => PrismaClient {
  const byReplica = new Map<Replica, (orgId: string) => PrismaClient>();
  return (replica, principal) => {
    if (!principal) return replica.prisma;
    let clients = byReplica.get(replica);
    if (!clients) byReplica.set(replica, (clients = tenantClients(replica.prisma)));
    return clients(principal.orgId);
  };
}
