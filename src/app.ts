/**
 * The composition root: wires configuration, database, GraphQL and REST into one express app.
 * Everything a request touches is created here and handed down; nothing reaches for globals.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import compression from 'compression';
import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler, type Response } from 'express';
import { createAuth } from './auth/index.ts';
import { protectedResourceMetadataPath, protectedResourceResponse } from './auth/well-known.ts';
import { authorizeOperation, rulesReadVariables } from './auth/authorize.ts';
import { createTenantClients } from './auth/tenancy.ts';
import { startDeliverer } from './changes/deliverer.ts';
import { DEFAULT_RETRY_DELAYS_MS } from './changes/retry-schedule.ts';
import { secretBox } from './changes/secret-box.ts';
import { systemResolver, type ResolveHost, type UrlPolicy } from './changes/webhook-url.ts';
import type { Config } from './config.ts';
import type { Database, PrismaClient } from './db/client.ts';
import type { Replica } from './db/replicas.ts';
import type { Principal } from './auth/principal.ts';
import { getDatamodel } from './db/generated/pothos-types.ts';
import { databaseUnavailable, isCancelledOnRequest, isDatabaseUnavailable } from './db/unavailable.ts';
import { AppError, findNul, internalError, NUL_MESSAGE } from './errors.ts';
import { createOperationRunner } from './graphql/run-operation.ts';
import { useAuthenticateFirst, usePermissions } from './graphql/use-auth.ts';
import { createCompiledReads } from './graphql/use-compiled-reads.ts';
import { createReadRouting } from './graphql/read-routing.ts';
import { directGraphQL } from './graphql/direct-graphql.ts';
import { readModels } from './compile/model.ts';
import { GRAPHIQL_ASSETS_PATH, graphiqlSite } from './graphql/graphiql-page.ts';
import { createGraphQLServer, type TransportContext } from './graphql/yoga.ts';
import { accessLog } from './http/access-log.ts';
import { directRest } from './http/direct-rest.ts';
import { graphqlPost, raiseBodyFailure } from './http/graphql-post.ts';
import { corsPolicy } from './http/cors.ts';
import { createDocsHandlers, serveAssets } from './http/docs.ts';
import { frontDoor } from './http/front-door.ts';
import { weakEtag } from './http/etag.ts';
import { HeaderBag } from './http/header-bag.ts';
import { isGraphQLRequest, sendGraphQLError } from './http/graphql-error.ts';
import { bodyReadError, jsonBody } from './http/json-body.ts';
import { clientGone } from './http/client-gone.ts';
import { createMetrics } from './http/metrics.ts';
import { createMcpEndpoint, MCP_PATH } from './mcp/endpoint.ts';
import { healthz, readyz } from './http/health.ts';
import { requestId } from './http/request-id.ts';
import type { Logger } from './logger.ts';
import { buildOpenApiDocument } from './openapi/index.ts';
import { readPackage } from './openapi/build.ts';
import { BODY_LIMIT, restRouter, sendError, sendResponse, toRestRequest } from './rest/express.ts';
import { createRestHandler } from './rest/handler.ts';
import { loadOperations } from './rest/operations.ts';
import { routes } from './rest/routes.ts';
import type { GraphQLContext } from './schema/context.ts';
import { getSchema } from './api-schema.ts';
import { declaredTenantRules } from './schema/resource.ts';
import { webhookEventFollower } from './changes/change-events.ts';
import { enqueueMembershipEvents, membershipFollower } from './changes/membership.ts';
import { startChangeWorker } from './changes/worker.ts';
import { countRequests } from './http/count-requests.ts';
import { createUsageCounter, type UsageCounter } from './usage/counter.ts';
import { scheduleUsagePartitions, type PartitionMaintenance } from './usage/partitions.ts';

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
 * The express app plus what it holds open (Redis for shared rate limits, counted usage, the webhook
 * deliverer). `close()` writes the usage still in memory and hands back webhook deliveries in flight,
 * so call it before the database closes.
 */
export type App = Express & { usage: UsageCounter; usagePartitions: PartitionMaintenance; close(): Promise<void> };

const systemClock = (): Date => new Date();

export function createApp({ config, db, logger, clock = systemClock, resolveHost = systemResolver }: AppDependencies): App {
  const schema = getSchema();
  const auth = createAuth({ config, sql: db.sql, logger });

  const webhooks = {
    urls: { allowPrivate: config.WEBHOOK_ALLOW_PRIVATE_URLS, resolve: resolveHost } satisfies UrlPolicy,
    secrets: secretBox(config.WEBHOOK_SECRET_KEY ? Buffer.from(config.WEBHOOK_SECRET_KEY, 'base64') : undefined),
  };
  const tenantClient = createTenantClients(db.prisma, getDatamodel().datamodel, declaredTenantRules());

  // Both transports build their context here, so both authenticate the same way (src/auth), and every
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
    webhooks,
  });
  const createContext = (transport: TransportContext): Promise<GraphQLContext> => {
    // A pure introspection query carries no identity (the auth plugin let it through unauthenticated).
    if (transport.publicIntrospection) return Promise.resolve(contextOf(transport, null));
    // Kept on the transport: a request handed from a direct path to yoga is authenticated (and charged) once.
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
  const graphiql = config.GRAPHIQL ? graphiqlSite() : undefined;
  const compiledReads = config.COMPILED_READS ? createCompiledReads(logger, metrics.registry, schema, readModels()) : undefined;
  const graphql = createGraphQLServer({ schema, logger, graphiql, createContext, maxFanOut: config.GRAPHQL_MAX_FAN_OUT, plugins: [
    useAuthenticateFirst(auth.authenticate),
    usePermissions(),
    ...(readRouting ? [readRouting.plugin] : []),
    // Last: it answers only what every plugin before it let through.
    ...(compiledReads ? [compiledReads.plugin] : []),
  ] });
  // Documents the pipeline has served compiled are served again without it (src/graphql/direct-graphql.ts).
  const graphqlDirect = compiledReads
    ? directGraphQL({ schema, compiledReads, createContext, maxFanOut: config.GRAPHQL_MAX_FAN_OUT, routeReads: readRouting?.route })
    : undefined;
  const operations = loadOperations(schema);
  const handleRest = createRestHandler({
    routes,
    operations,
    run: createOperationRunner(graphql, createContext),
    compiledReads,
    routeReads: readRouting?.route,
    authorize: (document, context, variables) => authorizeOperation(document, context.principal, { schema, variables }),
    rulesReadVariables: (document) => rulesReadVariables(document, schema),
    onUnexpectedError: (error, request) =>
      logger.error({ err: error, requestId: request.requestId }, 'unexpected error in a REST request'),
  });

  const app = express();
  app.disable('x-powered-by');
  app.set('query parser', 'simple');
  app.set('etag', weakEtag);
  const usage = createUsageCounter({
    sql: db.sql,
    logger,
    flushIntervalMs: config.USAGE_FLUSH_INTERVAL_MS,
    registry: metrics.registry,
    // Every request is counted at its end: the system clock without a Date per request.
    now: clock === systemClock ? Date.now : () => clock().getTime(),
  });
  const usagePartitions = scheduleUsagePartitions({ sql: db.sql, logger, retentionDays: config.USAGE_RETENTION_DAYS, now: clock });
  // Webhook deliveries go out from every instance; the database decides which one makes each attempt.
  const deliverer = startDeliverer({
    sql: db.sql,
    logger,
    registry: metrics.registry,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    leaseMs: config.WEBHOOK_LEASE_MS,
    pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
    concurrency: config.WEBHOOK_CONCURRENCY,
    retryDelaysMs: config.WEBHOOK_RETRY_DELAYS_MS ?? DEFAULT_RETRY_DELAYS_MS,
    retentionMs: config.WEBHOOK_LOG_RETENTION_DAYS * 86_400_000,
    ...webhooks,
  });
  // JSON, pages and assets leave gzip- or brotli-compressed when the client accepts it (1 KiB and up).
  // A client that accepts no encoding skips the middleware, whose wrapping of every response costs
  // about 3% of a small read's CPU.
  const compress = compression();
  const compressWhenAccepted: RequestHandler = (req, res, next) => (req.headers['accept-encoding'] ? compress(req, res, next) : next());
  // Every request passes these after its request id, in this order, on express's path and the direct ones alike.
  const middlewares = [metrics.observe, ...(config.USAGE_COUNTING ? [countRequests(usage)] : []), accessLog(logger), compressWhenAccepted];
  app.use(requestId);
  for (const middleware of middlewares) app.use(middleware);
  const corsHandler = corsPolicy(config.CORS_ORIGINS);
  if (corsHandler) app.use(corsHandler);
  app.get('/metrics', metrics.handler);

  app.get('/healthz', healthz);
  app.get('/readyz', readyz(db.sql, replicas));
  // Known paths, so another method is 405 with Allow (docs/read-api.md, Transport), not 404.
  app.all(['/metrics', '/healthz', '/readyz'], (req, res) => {
    sendError(res, new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.path}`, { headers: { Allow: 'GET, HEAD' } }));
  });

  // The API's description, generated from the route table and the schema; public like the schema.
  const docs = createDocsHandlers(buildOpenApiDocument({ schema, operations, routes, config }));
  app.all('/openapi.json', docs.document);
  app.use('/docs', docs.site);
  if (graphiql) app.use(GRAPHIQL_ASSETS_PATH, serveAssets(graphiql.assets));

  // The token endpoint reads its body itself (form or JSON) and answers in RFC 6749's format.
  app.all('/oauth/token', express.raw({ type: () => true, limit: BODY_LIMIT }), async (req, res) => {
    const body = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
    const address = req.ip ?? req.socket.remoteAddress ?? '';
    sendResponse(res, await auth.tokenEndpoint({
      method: req.method, contentType: req.get('content-type'), body, authorization: req.get('authorization'), address,
    }));
  });
  app.all('/.well-known/jwks.json', async (req, res) => sendResponse(res, await auth.jwks(req.method)));
  app.all('/.well-known/openid-configuration', (req, res) => sendResponse(res, auth.discovery('openid', req.method)));
  app.all('/.well-known/oauth-authorization-server', (req, res) => sendResponse(res, auth.discovery('oauth', req.method)));

  // JSON bodies are read here, within the body limits however they are sent (chunked, compressed),
  // as /api reads them (src/http/json-body.ts); yoga takes the parsed body as it is.
  // A POST that src/http/graphql-post.ts read but could not parse has its failure raised first.
  app.use('/graphql', raiseBodyFailure, refuseNonJsonBodies('A GraphQL', refuseAsGraphQL), ...jsonBody(), refuseNulCharacters(refuseAsGraphQL), (req, res, next) => {
    // Usage names GraphQL by method and path, like a REST route template (docs/usage.md).
    if (req.path === '/') res.locals.endpoint = `${req.method} /graphql`;
    const transport = graphqlTransport(req, res);
    const known = req.method === 'POST' && req.path === '/' ? graphqlDirect?.known({ accept: req.headers.accept, body: req.body }) : undefined;
    (known ? graphqlDirect!.serve(known, res, transport) : Promise.resolve(false))
      .then(async (served) => {
        if (!served) await graphql.handle(req, res, transport);
      })
      .catch(next);
  });

  // MCP for AI assistants (docs/mcp.md): its tools read through the REST handler, with /api's checks.
  const mcp = createMcpEndpoint({ config, handle: handleRest, version: readPackage().version });
  app.all(protectedResourceMetadataPath(MCP_PATH), (req, res) => sendResponse(res, protectedResourceResponse(config, MCP_PATH, req.method)));
  app.all(MCP_PATH, refuseNonJsonBodies('An MCP', refuseInEnvelope), ...jsonBody(), refuseNulCharacters(refuseInEnvelope), (req, res, next) => {
    const exchange = { req, res, body: req.body as unknown, request: toRestRequest(req, res), onToolFailure: (status: number) => {
      res.locals.toolStatus = status;
    } };
    mcp(exchange).catch((error: unknown) => {
      if (error instanceof AppError && !res.headersSent) sendError(res, error);
      else next(error);
    });
  });

  app.use('/api', restRouter(handleRest));
  app.all('/', frontDoor(config.PUBLIC_URL, config.GRAPHIQL));

  app.use((req, res) => {
    sendError(res, new AppError('NOT_FOUND', `No endpoint at ${req.path}`));
  });

  const onError: ErrorRequestHandler = (error: unknown, req, res, _next) => {
    if (res.headersSent) {
      // Too late for an error response: record it and let the connection finish what it sent.
      logger.error({ err: error, requestId: res.locals.requestId, path: req.path }, 'error after the response was sent');
      return;
    }
    // What the body reader could not read (size, charset, Content-Encoding, bytes that do not
    // decompress) or the body limits refused is the client's 4xx, on /api, /graphql and /oauth/token.
    const bodyError = error instanceof AppError ? error : bodyReadError(error, req);
    let appError: AppError;
    if (bodyError) {
      appError = bodyError;
    } else if (isDatabaseUnavailable(error)) {
      if (isCancelledOnRequest(error)) logger.info({ path: req.path }, 'statement cancelled on request: its client left before the answer, or an operator cancelled it');
      else logger.warn({ err: error, path: req.path }, 'database unavailable');
      appError = databaseUnavailable();
    } else {
      logger.error({ err: error, requestId: res.locals.requestId, path: req.path }, 'unhandled error');
      appError = internalError();
    }
    // A GraphQL client reads GraphQL errors only (docs/graphql-errors.md).
    if (isGraphQLRequest(req)) sendGraphQLError(req, res, appError);
    else sendError(res, appError);
  };
  app.use(onError);

  // GETs of /api that need nothing of express's own skip it (src/http/direct-rest.ts).
  const direct = directRest({ handle: handleRest, middlewares, onServed: metrics.countDirect, cors: corsHandler !== undefined, etag: weakEtag });
  type Handle = (req: IncomingMessage, res: ServerResponse, next?: unknown) => void;
  const expressApp = app as unknown as { handle: Handle };
  const handleWithExpress = expressApp.handle.bind(app);
  // POSTs of /graphql whose documents were served compiled skip express too (src/http/graphql-post.ts).
  const post = graphqlDirect
    ? graphqlPost({
        direct: graphqlDirect,
        middlewares,
        cors: corsHandler !== undefined,
        transport: graphqlTransport,
        handle: (req, res, transport) => graphql.handle(req, res, transport),
        next: (req, res) => handleWithExpress(req, res),
        onServed: metrics.countDirectGraphQL,
        logger,
      })
    : () => false;
  expressApp.handle = (req, res, next) => {
    if (!direct(req, res) && !post(req, res)) handleWithExpress(req, res, next);
  };

  const changeWorker = config.BACKGROUND_WORKERS
    ? startChangeWorker({
        sql: db.sql,
        followers: [membershipFollower({ logger, onChange: enqueueMembershipEvents }), webhookEventFollower(schema)],
        logger,
        pollMs: config.CHANGES_POLL_MS,
        retentionDays: config.CHANGES_RETENTION_DAYS,
      })
    : undefined;

  return Object.assign(app, {
    usage,
    usagePartitions,
    close: async () => {
      usagePartitions.close();
      await usagePartitions.started;
      await Promise.all([usage.close(), auth.close(), deliverer.close(), changeWorker?.stop()]);
    },
  });
}

/** What a /graphql request tells the pipeline about its HTTP exchange (src/graphql/yoga.ts). */
function graphqlTransport(req: Request, res: Response): TransportContext {
  return {
    requestId: res.locals.requestId as string,
    header: (name) => req.get(name),
    responseHeaders: new HeaderBag(),
    onIdentified: (principal) => {
      res.locals.principal = principal;
    },
    signal: clientGone(res),
    authentication: undefined,
  };
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

/** How a transport words a refusal: GraphQL errors on /graphql (docs/graphql-errors.md), the envelope elsewhere. */
type Refuse = (req: Request, res: Response, error: AppError) => void;
const refuseAsGraphQL: Refuse = sendGraphQLError;
const refuseInEnvelope: Refuse = (_req, res, error) => sendError(res, error);

/** A POST to /graphql or /mcp carries JSON; anything else is refused. */
function refuseNonJsonBodies(what: string, refuse: Refuse): RequestHandler {
  return (req, res, next) => {
    if (req.method === 'POST' && !req.is('application/json')) {
      refuse(req, res, new AppError('VALIDATION_ERROR', `${what} request body must be JSON (Content-Type: application/json)`, {
        details: [{ path: 'header.content-type', message: 'must be application/json' }],
      }));
      return;
    }
    next();
  };
}

/** No field of this API holds a NUL character, and PostgreSQL text cannot: refused before any work. */
function refuseNulCharacters(refuse: Refuse): RequestHandler {
  return (req, res, next) => {
    const at = findNul(req.body, 'body');
    if (at) {
      refuse(req, res, new AppError('VALIDATION_ERROR', `The request ${NUL_MESSAGE}`, { details: [{ path: at, message: NUL_MESSAGE }] }));
      return;
    }
    next();
  };
}
