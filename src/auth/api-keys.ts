/**
 * API keys: create (the secret is returned once, only its hash is stored), list, revoke. The rules,
 * the same for REST, GraphQL and the command line:
 * - a key gets only permissions its creator holds (more: 403 naming them; unknown: 400);
 * - a caller sees and revokes its own keys (the ones it created, and itself if it is one of our API
 *   keys: an external issuer's token never is, whatever its `sub` or `azp`); with admin:api-keys,
 *   every key of its organisation; another organisation's key is 404; someone else's key in the same
 *   organisation without admin:api-keys is 403 (the caller's organisation is not a secret to it).
 */
import { z } from 'zod';
import type { PrismaClient } from '../db/client.ts';
import { AppError, notFound, validationError, type ErrorDetail } from '../errors.ts';
import { isPermission, PERMISSIONS } from './permissions.ts';
import type { Principal } from './principal.ts';
import { generateClientId, generateClientSecret, hashSecret } from './secrets.ts';
import { keyRevokedHere } from './key-status.ts';

export interface ApiKeyRecord {
  id: number;
  name: string;
  client_id: string;
  permissions: string[];
  last_used_at: Date | null;
  created_at: Date;
  created_by: string;
}

export interface CreatedApiKey extends ApiKeyRecord {
  client_secret: string;
}

export interface ApiKeyInput {
  name: string;
  permissions: string[];
}

export const API_KEY_NAME_MAX = 200;
export const API_KEY_LIST_MAX_LIMIT = 2000;

const RECORD_SELECT = {
  id: true,
  name: true,
  client_id: true,
  permissions: true,
  last_used_at: true,
  created_at: true,
  created_by: true,
} as const;

/**
 * What a create request may be, as one schema (the OpenAPI document's too); parseApiKeyInput words
 * each problem for the caller and checks its answer against this.
 */
export const API_KEY_BODY = z.strictObject({
  name: z
    .string()
    .min(1)
    .max(API_KEY_NAME_MAX)
    .refine((name) => name.trim().length > 0 && !name.includes('\u0000'))
    .meta({ pattern: '\\S' }),
  permissions: z.array(z.enum(PERMISSIONS)).min(1),
}).meta({ examples: [{ name: 'nightly export', permissions: ['read:entities', 'read:investors'] }] });

/** Checks a create request; `prefix` names where the values came from (`body` for REST). */
export function parseApiKeyInput(input: unknown, prefix: string): ApiKeyInput {
  const at = (field: string) => (prefix ? `${prefix}.${field}` : field);
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw validationError([{ path: prefix || 'input', message: 'must be a JSON object with name and permissions' }]);
  }
  const { name, permissions, ...unknownFields } = input as Record<string, unknown>;
  // A misspelt field must not be silently dropped, as in every other body.
  const details: ErrorDetail[] = Object.keys(unknownFields).map((field) => ({ path: at(field), message: 'unknown field' }));
  if (typeof name !== 'string' || name.trim().length === 0 || name.length > API_KEY_NAME_MAX || name.includes('\u0000')) {
    details.push({ path: at('name'), message: `must be a string of 1 to ${API_KEY_NAME_MAX} characters` });
  }
  if (!Array.isArray(permissions) || permissions.length === 0 || !permissions.every((item) => typeof item === 'string')) {
    details.push({ path: at('permissions'), message: 'must be a non-empty array of permission names' });
  } else {
    const unknown = permissions.filter((permission) => !isPermission(permission));
    if (unknown.length) {
      details.push({ path: at('permissions'), message: `unknown permission(s): ${unknown.join(', ')}; known: ${PERMISSIONS.join(', ')}` });
    }
  }
  if (details.length) throw validationError(details);
  // The wording above and the schema must agree; if they ever drift, the schema's refusal stands.
  if (!API_KEY_BODY.safeParse(input).success) throw validationError([{ path: prefix || 'input', message: 'is not a valid API key request' }]);
  return { name: name as string, permissions: [...new Set(permissions as string[])] };
}

/** 403 naming every permission the caller would grant without holding it. */
export function assertGrantable(principal: Principal, permissions: readonly string[]): void {
  const extra = permissions.filter((permission) => !principal.permissions.has(permission));
  if (extra.length) {
    throw new AppError('FORBIDDEN', `A key can only get permissions its creator holds; missing: ${extra.join(', ')}`);
  }
}

export interface NewKey extends ApiKeyInput {
  orgId: string;
  createdBy: string;
  /** Given for the configured administrator key; generated otherwise. */
  clientId?: string;
  clientSecret?: string;
}

export async function createApiKey(prisma: PrismaClient, key: NewKey): Promise<CreatedApiKey> {
  const clientSecret = key.clientSecret ?? generateClientSecret();
  const record = await prisma.apiKey.create({
    data: {
      name: key.name,
      client_id: key.clientId ?? generateClientId(),
      secret_hash: await hashSecret(clientSecret),
      permissions: key.permissions,
      created_by: key.createdBy,
      org: { connectOrCreate: { where: { id: key.orgId }, create: { id: key.orgId, name: key.orgId } } },
    },
    select: RECORD_SELECT,
  });
  return { ...record, client_secret: clientSecret };
}

const isAdmin = (principal: Principal): boolean => principal.permissions.has('admin:api-keys');

/**
 * A key is the caller's own when the caller created it (`created_by` holds the creator's id, which
 * carries its issuer: principal.ts), or is it (only our own API key tokens name a key: `apiKey`).
 */
function ownKeys(principal: Principal) {
  return [{ created_by: principal.subject }, ...(principal.apiKey === undefined ? [] : [{ client_id: principal.apiKey }])];
}

const isOwn = (principal: Principal, key: { created_by: string; client_id: string }): boolean =>
  key.created_by === principal.subject || (principal.apiKey !== undefined && key.client_id === principal.apiKey);

/** Keys the caller sees, within the organisation its Prisma client is narrowed to (src/auth/tenancy.ts). */
function visibleTo(principal: Principal) {
  const own = ownKeys(principal);
  return { revoked_at: null, ...(isAdmin(principal) ? {} : { OR: own }) };
}

export function listApiKeys(prisma: PrismaClient, principal: Principal, window: { limit: number; offset: number }) {
  const where = visibleTo(principal);
  return {
    rows: prisma.apiKey.findMany({ where, select: RECORD_SELECT, orderBy: { id: 'asc' }, take: window.limit, skip: window.offset }),
    count: () => prisma.apiKey.count({ where }),
  };
}

export async function revokeApiKey(prisma: PrismaClient, principal: Principal, id: number): Promise<void> {
  const key = await prisma.apiKey.findFirst({
    where: { id, revoked_at: null },
    select: { created_by: true, client_id: true },
  });
  if (!key) throw notFound('API key');
  if (!isOwn(principal, key) && !isAdmin(principal)) {
    throw new AppError('FORBIDDEN', "Revoking another caller's key needs the admin:api-keys permission");
  }
  // Conditional: of two concurrent revocations, one wins and the other sees 404 like a later one would.
  const { count } = await prisma.apiKey.updateMany({ where: { id, revoked_at: null }, data: { revoked_at: new Date() } });
  if (count === 0) throw notFound('API key');
  // Key states are held in memory (key-status.ts): answer once this instance has let go of the key.
  await keyRevokedHere(key.client_id);
}
