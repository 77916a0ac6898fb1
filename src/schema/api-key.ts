/**
 * API keys over GraphQL: `apiKeys` (the caller's, or the organisation's with admin:api-keys),
 * `createApiKey` (returns `client_secret` once) and `revokeApiKey`. The rules live in
 * src/auth/api-keys.ts: any caller lists and revokes its own keys, `admin:api-keys` reaches every key
 * of the organisation, and creating one needs `create:api-keys`.
 */
import {
  API_KEY_LIST_MAX_LIMIT,
  assertGrantable,
  createApiKey,
  listApiKeys,
  parseApiKeyInput,
  revokeApiKey,
  type ApiKeyRecord,
  type CreatedApiKey,
  API_KEY_BODY,
} from '../auth/api-keys.ts';
import { ANY_CALLER } from '../auth/permissions.ts';
import { requirePrincipal } from '../auth/principal.ts';
import { builder } from './builder.ts';
import { example } from './field-facts.ts';
import { listType, parseWindow } from './list.ts';
import { accessRule, declareResource } from './resource.ts';

export const API_KEYS = declareResource({
  name: 'api-keys',
  description: 'Machine-to-machine credentials: create (the secret is shown once), list and revoke API keys.',
  // Who reaches which key is decided by the rules in src/auth/api-keys.ts, not by one permission.
  read: ANY_CALLER,
  write: 'create:api-keys',
  tenant: { ApiKey: { column: 'org_id' } },
  lists: [{ typeName: 'ApiKey', maxLimit: API_KEY_LIST_MAX_LIMIT }],
  rest: [
    { method: 'GET', path: '/api/api-keys', operation: 'ListApiKeys', kind: 'page' },
    {
      method: 'POST',
      path: '/api/api-keys',
      operation: 'CreateApiKey',
      kind: 'created',
      noun: 'API key',
      body: (body) => ({ ...parseApiKeyInput(body, 'body') }),
      bodySchema: API_KEY_BODY,
    },
    { method: 'DELETE', path: '/api/api-keys/{id}', operation: 'RevokeApiKey', kind: 'deleted' },
  ],
});

export const ApiKey = builder.objectRef<ApiKeyRecord>('ApiKey').implement({
  extensions: API_KEYS.owns(),
  description: 'A machine-to-machine credential; its secret is never shown again after creation',
  fields: (t) => ({
    id: t.exposeInt('id', example(5)),
    name: t.exposeString('name', example('nightly export')),
    client_id: t.exposeString('client_id', example('k3Lq9xZ2pV7mB4nR')),
    permissions: t.exposeStringList('permissions', example(["read:entities", "read:investors"])),
    last_used_at: t.expose('last_used_at', { type: 'DateTime', nullable: true, ...example('2026-03-02T03:00:12.000Z') }),
    created_at: t.expose('created_at', { type: 'DateTime', ...example('2026-01-10T12:00:00.000Z') }),
    created_by: t.exposeString('created_by', example('k3Lq9xZ2pV7mB4nR')),
  }),
});

const CreatedApiKeyRef = builder.objectRef<CreatedApiKey>('CreatedApiKey').implement({
  extensions: API_KEYS.owns(),
  description: 'A new API key with its secret: store the secret now, it cannot be read again',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    client_id: t.exposeString('client_id'),
    client_secret: t.exposeString('client_secret'),
    permissions: t.exposeStringList('permissions'),
    last_used_at: t.expose('last_used_at', { type: 'DateTime', nullable: true }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    created_by: t.exposeString('created_by'),
  }),
});

const ApiKeyList = listType('ApiKey', ApiKey);

builder.queryFields((t) => ({
  apiKeys: t.field({
    type: ApiKeyList,
    extensions: API_KEYS.reads,
    description: "The caller's active keys; every active key of the organisation with admin:api-keys",
    args: { limit: t.arg.int(), offset: t.arg.int() },
    resolve: async (_root, args, context) => {
      const principal = requirePrincipal(context.principal);
      const window = parseWindow(args, API_KEY_LIST_MAX_LIMIT);
      const { rows, count } = listApiKeys(context.prisma, principal, window);
      return { data: await rows, page: { ...window, next_cursor: null, count } };
    },
  }),
}));

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKeyRef,
    // Checked before anything executes (assertGrantable below stays for callers outside GraphQL).
    extensions: accessRule({ permission: 'create:api-keys', grants: 'permissions' }),
    args: {
      name: t.arg.string({ required: true }),
      permissions: t.arg.stringList({ required: true }),
    },
    resolve: async (_root, args, context) => {
      const principal = requirePrincipal(context.principal);
      const input = parseApiKeyInput(args, '');
      assertGrantable(principal, input.permissions);
      return createApiKey(context.prisma, { ...input, orgId: principal.orgId, createdBy: principal.subject });
    },
  }),
  revokeApiKey: t.boolean({
    // Any caller revokes its own keys; revoking another's needs admin:api-keys (src/auth/api-keys.ts).
    extensions: API_KEYS.reads,
    description: 'Revokes a key at once: its tokens stop working with the next request',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, context) => {
      await revokeApiKey(context.prisma, requirePrincipal(context.principal), args.id);
      return true;
    },
  }),
}));
