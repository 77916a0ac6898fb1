/**
 * Webhooks (docs/webhooks.md): an organisation's endpoints for events. The rules, the same over REST
 * and GraphQL:
 * - `url` is http or https and may not point at a special-purpose address (src/changes/webhook-url.ts);
 * - `events` are known types (a misspelt one gets close matches); a webhook's events need the
 *   permissions reading what they describe needs (`entity.*` → read:entities; ecosystem membership →
 *   read:ecosystems and read:entities), else 403 naming what is missing; checked at creation and at
 *   every update, whatever it changes, against the events the webhook has once updated (so a token
 *   cannot point a colleague's `founder.*` webhook at its own URL without read:founders);
 * - `ecosystem_ids` are active ecosystems of the caller's organisation, else 400 naming them (as a
 *   landscape's unknown entity ids are: a reference inside a body, not the path's record);
 * - the secret (`whsec_` + base64 of 32 random bytes) is in the creating response only;
 * - delete sets `is_active` false: the webhook is then 404, out of the list, and delivers nothing more;
 * - PATCH `{enabled: true}` re-enables a disabled webhook (its pending deliveries then go out).
 * Every check that guards a write runs in the transaction that writes.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Permission } from '../auth/permissions.ts';
import type { Principal } from '../auth/principal.ts';
import { enqueueTestEvent, notifyDeliverers } from '../changes/outbox.ts';
import { changeResource, isEcosystemEventType, SUBSCRIBABLE_EVENT_TYPES } from '../changes/events.ts';
import { holdFeedHead } from '../changes/feed-head.ts';
import type { SecretBox } from '../changes/secret-box.ts';
import { checkWebhookUrl, UrlRefused, type UrlPolicy } from '../changes/webhook-url.ts';
import type { PrismaClient } from '../db/client.ts';
import { Prisma } from '../db/generated/prisma/client.ts';
import { prismaSql } from '../db/prisma-sql.ts';
import { AppError, notFound, validationError } from '../errors.ts';
import { closeMatches } from '../filter/index.ts';
import { parseInput, requiredHttpUrl, text } from './input.ts';
import { definedOnly } from './records.ts';

export const WEBHOOK_LIST_MAX_LIMIT = 2000;
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
const MAX_ID = 2_147_483_647;

const eventType = z.string({ error: 'must be a string' }).superRefine((type, context) => {
  if ((SUBSCRIBABLE_EVENT_TYPES as readonly string[]).includes(type)) return;
  const matches = closeMatches([type], SUBSCRIBABLE_EVENT_TYPES);
  const help = matches.length ? `close matches: ${matches.join(', ')}` : `known: ${SUBSCRIBABLE_EVENT_TYPES.join(', ')}`;
  context.addIssue({ code: 'custom', message: `unknown event type '${type}'; ${help}` });
}).meta({ enum: [...SUBSCRIBABLE_EVENT_TYPES] });

const FIELDS = {
  url: requiredHttpUrl(2000),
  events: z
    .array(eventType, { error: 'must be an array of event types' })
    .min(1, 'must name at least one event type')
    .max(SUBSCRIBABLE_EVENT_TYPES.length * 2, `at most ${SUBSCRIBABLE_EVENT_TYPES.length * 2} event types`),
  ecosystem_ids: z
    .array(z.int({ error: 'must be an ecosystem id' }).min(1, 'must be an ecosystem id').max(MAX_ID, 'must be an ecosystem id'), {
      error: 'must be an array of ecosystem ids',
    })
    .max(100, 'at most 100 ecosystems'),
  description: text(0, 1000),
};

export const WEBHOOK_CREATE = z.strictObject({
  ...FIELDS,
  ecosystem_ids: FIELDS.ecosystem_ids.optional(),
  description: FIELDS.description.optional(),
}).meta({
  examples: [{ url: 'https://hooks.example.com/venture-data', events: ['entity.created', 'ecosystem.entity_entered'], ecosystem_ids: [14], description: 'CRM sync' }],
});

export const WEBHOOK_UPDATE = z.strictObject({
  ...FIELDS,
  enabled: z.boolean({ error: 'must be true or false' }),
}).partial().meta({ examples: [{ enabled: true }, { events: ['entity.updated'] }] });

/** A test or a retry takes no fields: a body, if sent, must be empty (a misspelt option must not pass silently). */
const NO_FIELDS = z.strictObject({});
export const parseNoFields = (value: unknown, prefix: string): Record<string, never> => {
  parseInput(NO_FIELDS, value ?? {}, prefix);
  return {};
};

export type WebhookInput = z.output<typeof WEBHOOK_CREATE>;
export type WebhookPatch = z.output<typeof WEBHOOK_UPDATE>;

export const parseWebhookInput = (value: unknown, prefix: string): WebhookInput => parseInput(WEBHOOK_CREATE, value, prefix);
export const parseWebhookPatch = (value: unknown, prefix: string): WebhookPatch => parseInput(WEBHOOK_UPDATE, value, prefix);

/** What the checks need from outside: where URLs may point, and the read permission of each resource. */
export interface WebhookRules {
  urls: UrlPolicy;
  /** How the secret is stored (encrypted when WEBHOOK_SECRET_KEY is set). */
  secrets: SecretBox;
  /** Filter resource → its read permission (src/schema/resource.ts `readPermissionByFilter`). */
  readPermission: Readonly<Record<string, Permission>>;
  /** What reading an ecosystem needs (its declared read permission; undefined: nothing more). */
  ecosystemRead: Permission | undefined;
}

const at = (prefix: string, field: string) => [prefix, field].filter(Boolean).join('.');

/** The URL's host, checked now (the deliverer checks again at each attempt). */
export async function checkUrl(url: string, policy: UrlPolicy, prefix: string): Promise<void> {
  try {
    await checkWebhookUrl(new URL(url), policy);
  } catch (error) {
    if (error instanceof UrlRefused) throw validationError([{ path: at(prefix, 'url'), message: error.message }]);
    throw error;
  }
}

/**
 * What hearing an event type needs: what reading the events' data needs. A change is a record's:
 * its resource's read permission. A membership event says which entity belongs to which ecosystem,
 * which `GET /api/ecosystems/{id}/entities` tells only with read:ecosystems and read:entities.
 */
function permissionsToHear(type: string, rules: Pick<WebhookRules, 'readPermission' | 'ecosystemRead'>): Permission[] {
  const resource = isEcosystemEventType(type) ? 'entities' : changeResource(type);
  const read = resource && rules.readPermission[resource];
  const ecosystem = isEcosystemEventType(type) && rules.ecosystemRead ? [rules.ecosystemRead] : [];
  return [...ecosystem, ...(read ? [read] : [])];
}

/** 403 naming the permissions the caller lacks to hear `events` (see permissionsToHear). */
function assertMayHear(principal: Principal, events: readonly string[], rules: WebhookRules): void {
  const needed = new Set(events.flatMap((type) => permissionsToHear(type, rules)));
  const missing = [...needed].filter((permission) => !principal.permissions.has(permission)).sort();
  if (missing.length) {
    throw new AppError('FORBIDDEN', `Subscribing to these events needs permission to read what they describe; missing: ${missing.join(', ')}`);
  }
}

/** 400 naming the ids that are no active ecosystem of the organisation; the rows stay locked until commit. */
async function assertOwnEcosystems(tx: PrismaClient, orgId: string, ids: readonly number[], prefix: string): Promise<void> {
  if (ids.length === 0) return;
  const found = await tx.$queryRaw<{ id: number }[]>`
    SELECT id FROM ecosystems WHERE org_id = ${orgId} AND is_active AND id IN (${Prisma.join([...ids])}) FOR SHARE`;
  const known = new Set(found.map((row) => row.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length) {
    throw validationError([{ path: at(prefix, 'ecosystem_ids'), message: `no active ecosystem of your organisation has id ${unknown.join(', ')}` }]);
  }
}

const unique = <T>(values: readonly T[]): T[] => [...new Set(values)];

export const generateWebhookSecret = (): string => `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

export async function createWebhook(
  prisma: PrismaClient,
  principal: Principal,
  input: WebhookInput,
  rules: WebhookRules,
  prefix: string,
): Promise<{ id: number; secret: string }> {
  await checkUrl(input.url, rules.urls, prefix);
  const secret = generateWebhookSecret();
  const events = unique(input.events);
  const ecosystemIds = unique(input.ecosystem_ids ?? []);
  const id = await prisma.$transaction(async (transaction) => {
    const tx = transaction as PrismaClient;
    assertMayHear(principal, events, rules);
    await assertOwnEcosystems(tx, principal.orgId, ecosystemIds, prefix);
    const created = await tx.webhook.create({
      data: {
        // No change commits between this head and the webhook's commit: it hears exactly the changes
        // (and membership edits) committed after it exists, and the events follower, which passes over
        // what no webhook in its snapshot hears, never passes over one it should hear
        // (src/changes/change-events.ts).
        from_position: await holdFeedHead(prismaSql(tx)),
        org_id: principal.orgId,
        url: input.url,
        events,
        ecosystem_ids: ecosystemIds,
        description: input.description ?? '',
        secret: rules.secrets.seal(secret),
        created_by: principal.subject,
      },
      select: { id: true },
    });
    return created.id;
  });
  return { id, secret };
}

/** The caller's webhook, locked until the transaction ends (`prisma` is narrowed to its organisation). */
async function lockWebhook(tx: PrismaClient, id: number): Promise<{ id: number; enabled: boolean; events: string[] }> {
  const webhook = await tx.webhook.findFirst({ where: { id, is_active: true }, select: { id: true } });
  if (!webhook) throw notFound('Webhook');
  const [locked] = await tx.$queryRaw<{ id: number; enabled: boolean; events: string[] }[]>`
    SELECT id, enabled, events FROM webhooks WHERE id = ${id} AND is_active FOR UPDATE`;
  if (!locked) throw notFound('Webhook');
  return locked;
}

export async function updateWebhook(
  prisma: PrismaClient,
  principal: Principal,
  id: number,
  patch: WebhookPatch,
  rules: WebhookRules,
  prefix: string,
): Promise<void> {
  if (patch.url !== undefined) await checkUrl(patch.url, rules.urls, prefix);
  const { enabled, events, ecosystem_ids, ...fields } = definedOnly(patch);
  await prisma.$transaction(async (transaction) => {
    const tx = transaction as PrismaClient;
    const locked = await lockWebhook(tx, id);
    // Whatever the update changes, the caller must be allowed to hear what the webhook will hear:
    // otherwise a new URL (or enabling it) would send a colleague's events where the caller reads them.
    assertMayHear(principal, events ?? locked.events, rules);
    if (ecosystem_ids) await assertOwnEcosystems(tx, principal.orgId, ecosystem_ids, prefix);
    // New events (or enabling) are heard from the commit on, as a new webhook's: see holdFeedHead.
    if (events || enabled) await holdFeedHead(prismaSql(tx));
    await tx.webhook.update({
      where: { id },
      data: {
        ...fields,
        ...(events ? { events: unique(events) } : {}),
        ...(ecosystem_ids ? { ecosystem_ids: unique(ecosystem_ids) } : {}),
        // Enabling starts afresh; disabling by hand says so.
        ...(enabled === true ? { enabled: true, disabled_reason: null, failing_since: null } : {}),
        ...(enabled === false ? { enabled: false, disabled_reason: 'disabled by a client' } : {}),
      },
    });
  });
}

/** Soft delete; of two deletes at once (or a retry) the second is 404. */
export async function deleteWebhook(prisma: PrismaClient, id: number): Promise<void> {
  const { count } = await prisma.webhook.updateMany({ where: { id, is_active: true }, data: { is_active: false } });
  if (count === 0) throw notFound('Webhook');
}

const disabled = () =>
  new AppError('CONFLICT', 'The webhook is disabled; enable it first (PATCH with {"enabled": true})');

/** Enqueues a `webhook.test` event for this webhook only; returns the delivery's id. */
export function sendTestEvent(prisma: PrismaClient, id: number, now: Date): Promise<number> {
  return prisma.$transaction(async (transaction) => {
    const tx = transaction as PrismaClient;
    if (!(await lockWebhook(tx, id)).enabled) throw disabled();
    return enqueueTestEvent(prismaSql(tx), id, now);
  });
}

/**
 * Starts a delivery over: attempted at once and, while it fails, on the schedule of a new one (the
 * same event, so the same `webhook-id`).
 */
export function retryDelivery(prisma: PrismaClient, webhookId: number, deliveryId: number): Promise<number> {
  return prisma.$transaction(async (transaction) => {
    const tx = transaction as PrismaClient;
    const sql = prismaSql(tx);
    // The delivery's row first, then the webhook's: the order in which the deliverer, recording an
    // attempt, locks them; the other order deadlocks with an attempt that ends meanwhile.
    await sql.query('SELECT 1 FROM webhook_deliveries WHERE id = $1 AND webhook_id = $2 FOR UPDATE', [deliveryId, webhookId]);
    if (!(await lockWebhook(tx, webhookId)).enabled) throw disabled();
    const delivery = await tx.webhookDelivery.findFirst({ where: { id: deliveryId, webhook_id: webhookId }, select: { id: true } });
    if (!delivery) throw notFound('Delivery');
    await sql.query(
      `UPDATE webhook_deliveries SET status = 'pending', failures = 0, next_attempt_at = now(), updated_at = now() WHERE id = $1`,
      [deliveryId],
    );
    await notifyDeliverers(sql);
    return deliveryId;
  });
}
