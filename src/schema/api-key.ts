/**
 * API keys over GraphQL: `apiKeys` (the caller's, or the organisation's with admin:api-keys),
 * `createApiKey` (returns `client_secret` once) and `revokeApiKey`. The rules live in
 * src/auth/api-keys.ts; the permission each field needs is in src/auth/permissions.ts.
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
} from '../auth/api-keys.ts';
import { requirePrincipal } from '../auth/principal.ts';
import { builder } from './builder.ts';
import { listType, parseWindow } from './list.ts';

export const ApiKey = builder.objectRef<ApiKeyRecord>('ApiKey').implement({
  description: 'A machine-to-machine credential; its secret is never shown again after creation',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    client_id: t.exposeString('client_id'),
    permissions: t.exposeStringList('permissions'),
    last_used_at: t.expose('last_used_at', { type: 'DateTime', nullable: true }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    created_by: t.exposeString('created_by'),
  }),
});

const CreatedApiKeyRef = builder.objectRef<CreatedApiKey>('CreatedApiKey').implement({
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
    description: 'Revokes a key at once: its tokens stop working with the next request',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, context) => {
      await revokeApiKey(context.prisma, requirePrincipal(context.principal), args.id);
      return true;
    },
  }),
}));
