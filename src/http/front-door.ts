/**
 * `GET /`: where a newcomer lands first (the start-up log points here). Browsers asking for a page are
 * sent to the interactive docs; API clients get the service's links as JSON.
 */
import type { RequestHandler } from 'express';
import { AppError } from '../errors.ts';
import { refuse } from './respond.ts';

export function frontDoor(publicUrl: string, graphiql: boolean): RequestHandler {
  const links = {
    docs: `${publicUrl}/docs`,
    openapi: `${publicUrl}/openapi.json`,
    graphql: `${publicUrl}/graphql`,
    ...(graphiql ? { graphiql: `${publicUrl}/graphql` } : {}),
    token: `${publicUrl}/oauth/token`,
    discovery: `${publicUrl}/.well-known/oauth-authorization-server`,
  };
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      refuse(req, new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on /`, { headers: { Allow: 'GET, HEAD' } }));
      return;
    }
    res.vary('Accept');
    // JSON first: a client sending `*/*` (curl, fetch) gets the links; a browser prefers text/html.
    if (req.accepts(['json', 'html']) === 'html') {
      res.redirect(302, '/docs');
      return;
    }
    res.set('Cache-Control', 'no-cache').json({ name: 'Venture Data API', links });
  };
}
