/**
 * A /graphql request refused before GraphQL reads it (a body that is not JSON, too large, or holding
 * a NUL character; an error of the server around it) is answered as a GraphQL response, never in the
 * REST envelope: `{"errors": [{"message", "extensions": {"code", "details"?}}]}`, in the media type
 * the client accepts (`application/graphql-response+json` or `application/json`), with the code's
 * status, as GraphQL over HTTP asks of a request it cannot parse.
 */
import type { Request, Response } from 'express';
import type { AppError } from '../errors.ts';

const MEDIA_TYPES = ['application/json', 'application/graphql-response+json'];

/** True for /graphql and below it, wherever the app is asked (the error handler sees the full URL). */
export const isGraphQLRequest = (req: Request): boolean => /^\/graphql(?:[/?#]|$)/.test(req.originalUrl);

export function sendGraphQLError(req: Request, res: Response, error: AppError): void {
  const mediaType = req.accepts(MEDIA_TYPES) || MEDIA_TYPES[0]!;
  const extensions = { code: error.code, ...(error.details ? { details: error.details } : {}) };
  res
    .status(error.status)
    .set(error.headers)
    .type(`${mediaType}; charset=utf-8`)
    .send(JSON.stringify({ errors: [{ message: error.message, extensions }] }));
}
