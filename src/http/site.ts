/**
 * What is not the API, served by express: the docs page and its assets, GraphiQL's assets, the
 * discovery documents, health and metrics, and `/`. These are pages, files and fixed documents, where
 * express's router, `res.send` and `sendFile` earn their cost; the API's routes never pass through
 * here (src/http/front.ts). Pages and assets leave compressed when the client accepts it (the
 * `compression` middleware streams files).
 */
import compression from 'compression';
import express, { type ErrorRequestHandler, type Express } from 'express';
import type { Auth } from '../auth/index.ts';
import { protectedResourceMetadataPath, protectedResourceResponse } from '../auth/well-known.ts';
import type { Config } from '../config.ts';
import type { SqlClient } from '../db/client.ts';
import type { ReplicaSet } from '../db/replicas.ts';
import { AppError, internalError } from '../errors.ts';
import type { GraphiQLSite } from '../graphql/graphiql-page.ts';
import { GRAPHIQL_ASSETS_PATH } from '../graphql/graphiql-page.ts';
import type { Logger } from '../logger.ts';
import { MCP_PATH } from '../mcp/endpoint.ts';
import type { OpenApiDocument } from '../openapi/index.ts';
import { createDocsHandlers, serveAssets } from './docs.ts';
import { exchangeOf } from './exchange.ts';
import { frontDoor } from './front-door.ts';
import { healthz, readyz } from './health.ts';
import type { Metrics } from './metrics.ts';
import { jsonAnswer, refuse, respond } from './respond.ts';

export interface SiteOptions {
  config: Config;
  auth: Pick<Auth, 'jwks' | 'discovery'>;
  sql: SqlClient;
  replicas: ReplicaSet | undefined;
  metrics: Metrics;
  openApi: OpenApiDocument;
  graphiql: GraphiQLSite | undefined;
  logger: Logger;
}

export function createSite({ config, auth, sql, replicas, metrics, openApi, graphiql, logger }: SiteOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(compression());
  app.get('/metrics', metrics.handler);
  app.get('/healthz', healthz);
  app.get('/readyz', readyz(sql, replicas));
  // Known paths, so another method is 405 with Allow (docs/read-api.md, Transport), not 404.
  app.all(['/metrics', '/healthz', '/readyz'], (req) => {
    refuse(req, new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.path}`, { headers: { Allow: 'GET, HEAD' } }));
  });

  // The API's description, generated from the route table and the schema; public like the schema.
  const docs = createDocsHandlers(openApi);
  app.all('/openapi.json', docs.document);
  app.use('/docs', docs.site);
  if (graphiql) app.use(GRAPHIQL_ASSETS_PATH, serveAssets(graphiql.assets));

  app.all('/.well-known/jwks.json', async (req) => respond(exchangeOf(req), jsonAnswer(...(await auth.jwks(req.method)))));
  app.all('/.well-known/openid-configuration', (req) => respond(exchangeOf(req), jsonAnswer(...auth.discovery('openid', req.method))));
  app.all('/.well-known/oauth-authorization-server', (req) => respond(exchangeOf(req), jsonAnswer(...auth.discovery('oauth', req.method))));
  app.all(protectedResourceMetadataPath(MCP_PATH), (req) => respond(exchangeOf(req), jsonAnswer(...protectedResourceResponse(config, MCP_PATH, req.method))));
  app.all('/', frontDoor(config.PUBLIC_URL, config.GRAPHIQL));

  app.use((req) => {
    refuse(req, new AppError('NOT_FOUND', `No endpoint at ${req.path}`));
  });
  const onError: ErrorRequestHandler = (error: unknown, req, res, _next) => {
    const requestId = exchangeOf(req).requestId;
    if (res.headersSent) {
      // Too late for an error response: record it and let the connection finish what it sent.
      logger.error({ err: error, requestId, path: req.path }, 'error after the response was sent');
      return;
    }
    logger.error({ err: error, requestId, path: req.path }, 'unhandled error');
    refuse(req, error instanceof AppError ? error : internalError());
  };
  app.use(onError);
  return app;
}
