// Small helpers for the management tests: JSON requests with a caller's credentials.
import type { TestCredentials } from '../../helpers/auth.ts';

export interface JsonResponse {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  headers: Headers;
}

/** A request with a JSON body (when given); the answer parsed (undefined for 204). */
export async function call(credentials: TestCredentials, method: string, path: string, body?: unknown): Promise<JsonResponse> {
  const response = await credentials.fetch(path, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** The `path`s of a VALIDATION_ERROR's details. */
export const detailPaths = (body: { error?: { details?: { path: string }[] } }): string[] =>
  (body.error?.details ?? []).map((detail) => detail.path).sort();
