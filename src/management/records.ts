/**
 * What management records have in common: they belong to an organisation (another one's record is
 * 404, never 403), a unique slug is 409 CONFLICT, and a write that finds nothing is 404.
 */
import { AppError, findAppError } from '../errors.ts';

/** Prisma's code for a unique constraint violation. */
const UNIQUE_VIOLATION = 'P2002';

function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === UNIQUE_VIOLATION;
}

/** Runs a write; a unique violation becomes CONFLICT with `message`. */
export async function uniquely<T>(write: () => Promise<T>, message: string): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!findAppError(error) && isUniqueViolation(error)) throw new AppError('CONFLICT', message);
    throw error;
  }
}

/**
 * Only the fields given: a patch's `{name: undefined}` must not reach Prisma, and a GraphQL client's
 * absent arguments are not values (an explicit null stays, for the input schema to refuse).
 */
export function definedOnly<T extends object>(patch: T): Partial<T> {
  return Object.fromEntries(Object.entries(patch).filter(([, value]) => value !== undefined)) as Partial<T>;
}
