/**
 * Reading webhooks over GraphQL, and their delivery log: each event's delivery and every attempt, a
 * test event and a manual retry. Creating and changing them is in webhook-schema.ts; the deliverer in
 * src/changes/.
 */
import { notFound } from '../errors.ts';
import { builder } from '../schema/builder.ts';
import { example } from '../schema/field-facts.ts';
import { listType } from '../schema/list.ts';
import { resolvePagedList } from '../schema/list-query.ts';
import { Webhook, WEBHOOKS } from './webhook-schema.ts';
import { retryDelivery, sendTestEvent, WEBHOOK_LIST_MAX_LIMIT } from './webhooks.ts';

export const WebhookDelivery = builder.prismaObject('WebhookDelivery', {
  extensions: WEBHOOKS.owns(),
  description: 'One event for one webhook: pending until a 2xx answer (succeeded) or the end of its retries (failed)',
  select: { id: true },
  fields: (t) => ({
    id: t.exposeInt('id', example(901)),
    webhook_id: t.exposeInt('webhook_id', example(4)),
    event_id: t.exposeString('event_id', { description: 'The `webhook-id` header of every attempt', ...example('evt_test_1b4e28ba-2fa1-41d2-883f-0016d3cca427') }),
    event_type: t.string({ select: { event: { select: { type: true } } }, resolve: (delivery) => delivery.event.type, ...example('webhook.test') }),
    status: t.exposeString('status', { description: 'pending, succeeded or failed', ...example('pending') }),
    attempts: t.exposeInt('attempts', example(0)),
    next_attempt_at: t.field({
      ...example('2026-03-02T10:15:00.000Z'),
      type: 'DateTime',
      nullable: true,
      description: 'When the next attempt is due; null unless pending',
      select: { status: true, next_attempt_at: true },
      resolve: (delivery) => (delivery.status === 'pending' ? delivery.next_attempt_at : null),
    }),
    created_at: t.expose('created_at', { type: 'DateTime', ...example('2026-03-02T10:15:00.000Z') }),
  }),
});

export const WebhookAttempt = builder.prismaObject('WebhookAttempt', {
  extensions: WEBHOOKS.owns(),
  description: 'One attempt to deliver an event: its answer or error, and the retry it scheduled',
  select: { id: true },
  fields: (t) => ({
    id: t.exposeInt('id', example(3120)),
    delivery_id: t.exposeInt('delivery_id', { description: 'For POST /api/webhooks/{webhook}/deliveries/{id}/retry', ...example(901) }),
    event_id: t.string({ select: { delivery: { select: { event_id: true } } }, resolve: (attempt) => attempt.delivery.event_id, ...example('evt_test_1b4e28ba-2fa1-41d2-883f-0016d3cca427') }),
    event_type: t.string({ select: { delivery: { select: { event: { select: { type: true } } } } }, resolve: (attempt) => attempt.delivery.event.type, ...example('webhook.test') }),
    attempted_at: t.expose('attempted_at', { type: 'DateTime', ...example('2026-03-02T10:15:00.120Z') }),
    response_status: t.exposeInt('response_status', { nullable: true, description: 'The HTTP status answered; null when there was no answer', ...example(503) }),
    error: t.exposeString('error', { nullable: true, description: 'Why the attempt failed (timeout, refused connection, address not allowed, status); null on success', ...example('the endpoint answered 503') }),
    duration_ms: t.exposeInt('duration_ms', example(84)),
    next_attempt_at: t.expose('next_attempt_at', { type: 'DateTime', nullable: true, description: 'The retry this failure scheduled; null after a success or the last attempt', ...example('2026-03-02T10:15:05.204Z') }),
    delivery_status: t.string({
      ...example('pending'),
      description: "The delivery's status now: pending, succeeded or failed",
      select: { delivery: { select: { status: true } } },
      resolve: (attempt) => attempt.delivery.status,
    }),
  }),
});

const WebhookList = listType('Webhook', Webhook);
const WebhookAttemptList = listType('WebhookAttempt', WebhookAttempt);

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
