/**
 * `GET /openapi.json` and `GET /docs` (plus its assets under /docs/assets/), without authentication:
 * the description of the API is public, the data it describes is not.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { AppError } from '../errors.ts';
import { docsSite, type DocsAsset, type OpenApiDocument } from '../openapi/index.ts';
import { refuse } from './respond.ts';

const READ_METHODS = new Set(['GET', 'HEAD']);

// Asset URLs carry their version (docs-page.ts), so a cached copy can never be stale.
const ASSET_MAX_AGE_MS = 365 * 24 * 3600 * 1000;

export interface DocsHandlers {
  /** For `app.all('/openapi.json', ...)`. */
  document: RequestHandler;
  /** For `app.use('/docs', ...)`: the page and its assets. */
  site: RequestHandler;
}

/** 405 with Allow for anything but GET and HEAD (docs/read-api.md, Transport); true when it answered. */
function refusedMethod(req: Request, res: Response): boolean {
  if (READ_METHODS.has(req.method)) return false;
  refuse(req, new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${req.baseUrl}${req.path}`, {
    headers: { Allow: 'GET, HEAD' },
  }));
  return true;
}

function sendAsset(res: Response, asset: DocsAsset, next: NextFunction): void {
  res.type(asset.contentType);
  if ('content' in asset) {
    res.set('Cache-Control', `public, max-age=${ASSET_MAX_AGE_MS / 1000}, immutable`).send(asset.content);
    return;
  }
  res.sendFile(asset.file, { maxAge: ASSET_MAX_AGE_MS, immutable: true }, (error) => {
    // An aborted download is not a server error; anything else before the headers went out is.
    if (error && !res.headersSent) next(error);
  });
}

/**
 * Versioned static assets by file name (`app.use(prefix, serveAssets(...))`): GET and HEAD only,
 * cached for a year as immutable, since a new version has a new URL.
 */
export function serveAssets(assets: ReadonlyMap<string, DocsAsset>): RequestHandler {
  return (req, res, next) => {
    const name = /^\/([\w.-]+)$/.exec(req.path)?.[1];
    const asset = name === undefined ? undefined : assets.get(name);
    if (!asset) {
      refuse(req, new AppError('NOT_FOUND', `No endpoint at ${req.baseUrl}${req.path}`));
      return;
    }
    if (refusedMethod(req, res)) return;
    sendAsset(res, asset, next);
  };
}

export function createDocsHandlers(openApi: OpenApiDocument): DocsHandlers {
  // Built once: the document only changes with a new deployment.
  const json = JSON.stringify(openApi);
  const site = docsSite();
  return {
    document: (req, res) => {
      if (refusedMethod(req, res)) return;
      res.set('Cache-Control', 'no-cache').type('application/json').send(json);
    },
    site: (req, res, next) => {
      const name = /^\/assets\/([\w.-]+)$/.exec(req.path)?.[1];
      const asset = name === undefined ? undefined : site.assets.get(name);
      if (req.path !== '/' && !asset) {
        refuse(req, new AppError('NOT_FOUND', `No endpoint at ${req.baseUrl}${req.path}`));
        return;
      }
      if (refusedMethod(req, res)) return;
      if (asset) sendAsset(res, asset, next);
      else res.set('Cache-Control', 'no-cache').type('html').send(site.html);
    },
  };
}
