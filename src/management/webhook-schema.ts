/**
 * Webhooks over GraphQL (REST rows map onto these fields): the organisation's endpoints, their
 * delivery log, a test event and a manual retry. The rules live in src/management/webhooks.ts; the
 * outbox and the deliverer in src/changes/.
 */
import { ANY_CALLER } from '../auth/permissions.ts';
import { requirePrincipal } from '../auth/principal.ts';
import { notFound } from '../errors.ts';
import { definedOnly } from './records.ts';
import {
  createWebhook,
  deleteWebhook,
  parseWebhookInput,
  parseNoFields,
  parseWebhookPatch,
  retryDelivery,
  sendTestEvent,
  updateWebhook,
  WEBHOOK_CREATE,
  WEBHOOK_LIST_MAX_LIMIT,
  WEBHOOK_UPDATE,
  type WebhookRules,
} from './webhooks.ts';
import { builder } from '../schema/builder.ts';
import { ECOSYSTEMS } from './ecosystem-schema.ts';
import { listType } from '../schema/list.ts';
import { resolvePagedList } from '../schema/list-query.ts';
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
const rulesOf = (context: GraphQLContext): WebhookRules => ({ ...context.webhooks, readPermission: readPermissionByFilter(), ecosystemRead });

const DISABLED_REASON = 'Why deliveries stopped: the endpoint answered 410, failed for 3 days, or a client disabled it';

export const Webhook = builder.prismaObject('Webhook', {
  extensions: WEBHOOKS.owns(),
  description: 'An endpoint of the organisation that receives signed events; its secret is never shown again after creation',
  select: { id: true },
  fields: (t) => ({
    id: t.exposeInt('id'),
    url: t.exposeString('url'),
    events: t.exposeStringList('events', { description: 'The event types it receives' }),
    ecosystem_ids: t.exposeIntList('ecosystem_ids', { description: 'Ecosystem events only from these ecosystems; empty: from all of the organisation' }),
    description: t.exposeString('description'),
    enabled: t.exposeBoolean('enabled', { description: 'False: nothing is delivered until a PATCH sets it true again' }),
    disabled_reason: t.exposeString('disabled_reason', { nullable: true, description: DISABLED_REASON }),
    failing_since: t.expose('failing_since', { type: 'DateTime', nullable: true, description: 'When the current run of failed attempts began' }),
    created_by: t.exposeString('created_by'),
    created_at: t.expose('created_at', { type: 'DateTime' }),
    updated_at: t.expose('updated_at', { type: 'DateTime' }),
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

export const WebhookDelivery = builder.prismaObject('WebhookDelivery', {
  extensions: WEBHOOKS.owns(),
  description: 'One event for one webhook: pending until a 2xx answer (succeeded) or the end of its retries (failed)',
  select: { id: true },
  fields: (t) => ({
    id: t.exposeInt('id'),
    webhook_id: t.exposeInt('webhook_id'),
    event_id: t.exposeString('event_id', { description: 'The `webhook-id` header of every attempt' }),
    event_type: t.string({ select: { event: { select: { type: true } } }, resolve: (delivery) => delivery.event.type }),
    status: t.exposeString('status', { description: 'pending, succeeded or failed' }),
    attempts: t.exposeInt('attempts'),
    next_attempt_at: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the next attempt is due; null unless pending',
      select: { status: true, next_attempt_at: true },
      resolve: (delivery) => (delivery.status === 'pending' ? delivery.next_attempt_at : null),
    }),
    created_at: t.expose('created_at', { type: 'DateTime' }),
  }),
});

export const WebhookAttempt = builder.prismaObject('WebhookAttempt', {
  extensions: WEBHOOKS.owns(),
  description: 'One attempt to deliver an event: its answer or error, and the retry it scheduled',
  select: { id: true },
  fields: (t) => ({
    id: t.exposeInt('id'),
    delivery_id: t.exposeInt('delivery_id', { description: 'For POST /api/webhooks/{webhook}/deliveries/{id}/retry' }),
    event_id: t.string({ select: { delivery: { select: { event_id: true } } }, resolve: (attempt) => attempt.delivery.event_id }),
    event_type: t.string({ select: { delivery: { select: { event: { select: { type: true } } } } }, resolve: (attempt) => attempt.delivery.event.type }),
    attempted_at: t.expose('attempted_at', { type: 'DateTime' }),
    response_status: t.exposeInt('response_status', { nullable: true, description: 'The HTTP status answered; null when there was no answer' }),
    error: t.exposeString('error', { nullable: true, description: 'Why the attempt failed (timeout, refused connection, address not allowed, status); null on success' }),
    duration_ms: t.exposeInt('duration_ms'),
    next_attempt_at: t.expose('next_attempt_at', { type: 'DateTime', nullable: true, description: 'The retry this failure scheduled; null after a success or the last attempt' }),
    delivery_status: t.string({
      description: "The delivery's status now: pending, succeeded or failed",
      select: { delivery: { select: { status: true } } },
      resolve: (attempt) => attempt.delivery.status,
    }),
  }),
});

const WebhookList = listType('Webhook', Webhook);
const WebhookAttemptList = listType('WebhookAttempt', WebhookAttempt);

const webhookArgs = (required: boolean) =>
  builder.args((t) => ({
    url: t.string({ required, description: 'An http or https URL of a public host' }),
    events: t.stringList({ required, description: 'Event types, e.g. `entity.created`, `ecosystem.entity_entered`' }),
    ecosystem_ids: t.intList({ description: "Ecosystem events only from these of the organisation's ecosystems" }),
    description: t.string(),
  }));

builder.queryFields((t) => ({
  webhooks: t.field({
    type: WebhookList,
    extensions: WEBHOOKS.reads,
    description: "The organisation's webhooks, oldest first",
    args: { limit: t.arg.int(), offset: t.arg.int() },
    resolve: (_root, args, context, info) =>
      resolvePagedList(
        {
          typeName: 'Webhook',
          maxLimit: WEBHOOK_LIST_MAX_LIMIT,
          where: () => ({ is_active: true }),
          findMany: (query) => context.prisma.webhook.findMany({ ...query, orderBy: { id: 'asc' } }),
          count: (query) => context.prisma.webhook.count(query),
        },
        args,
        context,
        info,
      ),
  }),
  webhook: t.prismaField({
    type: Webhook,
    nullable: true,
    extensions: WEBHOOKS.reads,
    args: { id: t.arg.int({ required: true }) },
    resolve: (query, _root, args, context) => context.prisma.webhook.findFirst({ ...query, where: { id: args.id, is_active: true } }),
  }),
  webhookDeliveries: t.field({
    type: WebhookAttemptList,
    extensions: WEBHOOKS.reads,
    description: "The webhook's delivery log: every attempt, newest first",
    args: { webhook: t.arg.int({ required: true }), limit: t.arg.int(), offset: t.arg.int() },
    resolve: (_root, args, context, info) =>
      resolvePagedList(
        {
          typeName: 'WebhookAttempt',
          maxLimit: WEBHOOK_LIST_MAX_LIMIT,
          where: async () => {
            const webhook = await context.prisma.webhook.findFirst({ where: { id: args.webhook, is_active: true }, select: { id: true } });
            if (!webhook) throw notFound('Webhook');
            return { delivery: { webhook_id: args.webhook } };
          },
          findMany: (query) => context.prisma.webhookAttempt.findMany({ ...query, orderBy: { id: 'desc' } }),
          count: (query) => context.prisma.webhookAttempt.count(query),
        },
        args,
        context,
        info,
      ),
  }),
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
  testWebhook: t.prismaField({
    type: WebhookDelivery,
    extensions: WEBHOOKS.writes,
    description: 'Sends a `webhook.test` event to this webhook only',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (query, _root, args, context) => {
      const id = await sendTestEvent(context.prisma, args.id, context.clock());
      return context.prisma.webhookDelivery.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
  retryWebhookDelivery: t.prismaField({
    type: WebhookDelivery,
    extensions: WEBHOOKS.writes,
    description: 'Attempts a delivery again now (and on the retry schedule while it fails), with the same event id',
    args: { webhook: t.arg.int({ required: true }), id: t.arg.int({ required: true }) },
    resolve: async (query, _root, args, context) => {
      const id = await retryDelivery(context.prisma, args.webhook, args.id);
      return context.prisma.webhookDelivery.findUniqueOrThrow({ ...query, where: { id } });
    },
  }),
}));
