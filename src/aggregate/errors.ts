import { AppError } from '../errors.ts';
import { closeMatches } from '../filter/index.ts';

/**
 * A 400 about one aggregate argument. `path` is the GraphQL argument (`metrics`, `groupBy`); the REST
 * route names its query parameter instead (src/aggregate/aggregate-schema.ts).
 */
export function aggregateError(path: string, message: string): AppError {
  return new AppError('VALIDATION_ERROR', message, { details: [{ path, message }] });
}

/** `close matches: a, b`, or every candidate when none is close (they are few). */
export function suggest(written: string, candidates: readonly string[]): string {
  const matches = closeMatches([written], candidates);
  return matches.length ? `close matches: ${matches.join(', ')}` : `known: ${candidates.join(', ')}`;
}
