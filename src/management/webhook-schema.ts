/**
 * Webhooks over GraphQL (REST rows map onto these fields): the organisation's endpoints, their
 * delivery log, a test event and a manual retry. The rules live in src/management/webhooks.ts; the
 * outbox and the deliverer in src/changes/.
 */
import { ANY_CALLER } from '../auth/permissions.ts';
import { requirePrincipal } from '../auth/principal.ts';
import { definedOnly } from './records.ts';
import {
  createWebhook,
  deleteWebhook,
  parseWebhookInput,
  parseNoFields,
  parseWebhookPatch,
  updateWebhook,
  WEBHOOK_CREATE,
  WEBHOOK_LIST_MAX_LIMIT,
  WEBHOOK_UPDATE,
  type WebhookRules,
} from './webhooks.ts';
import { builder } from '../schema/builder.ts';
import { example } from '../schema/field-facts.ts';
import { ECOSYSTEMS } from './ecosystem-schema.ts';
import { declareResource, readPermissionByFilter } from '../schema/resource.ts';
import type { GraphQLContext } from '../schema/context.ts';

export const WEBHOOKS = declareResource({
  name: 'webhooks',
  description: 'Signed webhooks (Standard Webhooks): endpoints that receive change and ecosystem events, their delivery log, tests and retries.',
  read: 'read:webhooks',
  write: 'write:webhooks',
  tenant: {
    Webhook: { column: 'org_id' },
    WebhookDelivery: { through: 'webhook' },
    WebhookAttempt: { through: 'delivery' },
  },
  lists: [
    { typeName: 'Webhook', maxLimit: WEBHOOK_LIST_MAX_LIMIT },
    { typeName: 'WebhookAttempt', maxLimit: WEBHOOK_LIST_MAX_LIMIT },
  ],
  rest: [
    { method: 'GET', path: '/api/webhooks', operation: 'ListWebhooks', kind: 'page' },
    {
      method: 'POST',
      path: '/api/webhooks',
      operation: 'CreateWebhook',
      kind: 'created',
      noun: 'Webhook',
      body: (body) => parseWebhookInput(body, 'body'),
      bodySchema: WEBHOOK_CREATE,
    },
    { method: 'GET', path: '/api/webhooks/{id}', operation: 'GetWebhook', kind: 'record', noun: 'Webhook' },
    {
      method: 'PATCH',
      path: '/api/webhooks/{id}',
      operation: 'UpdateWebhook',
      kind: 'record',
      noun: 'Webhook',
      body: (body) => parseWebhookPatch(body, 'body'),
      bodySchema: WEBHOOK_UPDATE,
    },
    { method: 'DELETE', path: '/api/webhooks/{id}', operation: 'DeleteWebhook', kind: 'deleted' },
    { method: 'POST', path: '/api/webhooks/{id}/test', operation: 'TestWebhook', kind: 'created', noun: 'Delivery', body: (body) => parseNoFields(body, 'body') },
    { method: 'GET', path: '/api/webhooks/{webhook}/deliveries', operation: 'ListWebhookDeliveries', kind: 'page' },
    {
      method: 'POST',
      path: '/api/webhooks/{webhook}/deliveries/{id}/retry',
      operation: 'RetryWebhookDelivery',
      kind: 'record',
      noun: 'Delivery',
      body: (body) => parseNoFields(body, 'body'),
    },
  ],
});

/** The rules' inputs: the app's URL policy and secret storage, and the read permissions every resource declared. */
const ecosystemRead = ECOSYSTEMS.read === ANY_CALLER ? undefined : ECOSYSTEMS.read;
export const rulesOf = (context: GraphQLContext): WebhookRules => ({ ...context.webhooks, readPermission: readPermissionByFilter(), ecosystemRead });

const DISABLED_REASON = 'Why deliveries stopped: the endpoint answered 410, failed for 3 days, or a client disabled it';

export const Webhook = builder.prismaObject('Webhook', {
  extensions: WEBHOOKS.owns(),
  description: 'An endpoint of the organisation that receives signed events; its secret is never shown again after creation',
  select: { id: true },
  fields: (t) => ({
    id: t.exposeInt('id', example(4)),
    url: t.exposeString('url', example('https://hooks.example.com/venture-data')),
    events: t.exposeStringList('events', { description: 'The event types it receives', ...example(["entity.created", "entity.updated", "ecosystem.entity_entered"]) }),
    ecosystem_ids: t.exposeIntList('ecosystem_ids', { description: 'Ecosystem events only from these ecosystems; empty: from all of the organisation', ...example([14]) }),
    description: t.exposeString('description', example('CRM sync')),
    enabled: t.exposeBoolean('enabled', { description: 'False: nothing is delivered until a PATCH sets it true again', ...example(true) }),
    disabled_reason: t.exposeString('disabled_reason', { nullable: true, description: DISABLED_REASON, ...example(null) }),
    failing_since: t.expose('failing_since', { type: 'DateTime', nullable: true, description: 'When the current run of failed attempts began', ...example(null) }),
    created_by: t.exposeString('created_by', example('k3Lq9xZ2pV7mB4nR')),
    created_at: t.expose('created_at', { type: 'DateTime', ...example('2026-03-01T09:00:00.000Z') }),
    updated_at: t.expose('updated_at', { type: 'DateTime', ...example('2026-03-01T09:00:00.000Z') }),
  }),
});

interface CreatedWebhookRecord {
  id: number;
  url: string;
  events: string[];
  ecosystem_ids: number[];
  description: string;
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: Date | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
  secret: string;
}

const CreatedWebhook = builder.objectRef<CreatedWebhookRecord>('CreatedWebhook').implement({
  extensions: WEBHOOKS.owns(),
  description: 'A new webhook with its signing secret: store the secret now, it cannot be read again',
  fields: (t) => ({
    id: t.exposeInt('id'),
    url: t.exposeString('url'),
    events: t.exposeStringList('events'),
    ecosystem_ids: t.exposeIntList('ecosystem_ids'),
    description: t.exposeString('description'),
    enabled: t.exposeBoolean('enabled'),
    disabled_reason: t.exposeString('disabled_reason', { nullable: true, description: DISABLED_REASON }),
    failing_since: t.expose('failing_since', { type: 'DateTime', nullable: true }),
    created_by: t.exposeString('created_by'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    updated_at: t.expose('updated_at', { type: 'DateTime' }),
    secret: t.exposeString('secret', { description: 'whsec_ + base64 of 32 random bytes: verifies the signatures; shown once' }),
  }),
});

const webhookArgs = (required: boolean) =>
  builder.args((t) => ({
    url: t.string({ required, description: 'An http or https URL of a public host' }),
    events: t.stringList({ required, description: 'Event types, e.g. `entity.created`, `ecosystem.entity_entered`' }),
    ecosystem_ids: t.intList({ description: "Ecosystem events only from these of the organisation's ecosystems" }),
    description: t.string(),
  }));

builder.mutationFields((t) => ({
  createWebhook: t.field({
    type: CreatedWebhook,
    extensions: WEBHOOKS.writes,
    description: 'Creates a webhook; the response holds its signing secret, shown this once',
    args: webhookArgs(true),
    resolve: async (_root, args, context) => {
      const input = parseWebhookInput(definedOnly(args), '');
      const { id, secret } = await createWebhook(context.prisma, requirePrincipal(context.principal), input, rulesOf(context), '');
      const record = await context.prisma.webhook.findUniqueOrThrow({ where: { id } });
      return { ...record, secret };
    },
  }),
  updateWebhook: t.prismaField({
    type: Webhook,
    extensions: WEBHOOKS.writes,
    description: 'Changes the fields given; `enabled: true` re-enables a disabled webhook',
    args: { id: t.arg.int({ required: true }), ...webhookArgs(false), enabled: t.arg.boolean() },
    resolve: async (query, _root, { id, ...args }, context) => {
      const patch = parseWebhookPatch(definedOnly(args), '');
      await updateWebhook(context.prisma, requirePrincipal(context.principal), id, patch, rulesOf(context), '');
      return context.prisma.webhook.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  deleteWebhook: t.boolean({
    extensions: WEBHOOKS.writes,
    description: 'Deletes the webhook: it is then not found and receives nothing more',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, context) => {
      await deleteWebhook(context.prisma, args.id);
      return true;
    },
  }),
}));
