/**
 * The webhook event types, declared once: the change types of each reference resource, the ecosystem
 * membership events, and the test event. Which permission a subscription to a change type needs is
 * the read permission of its resource (src/schema/resource.ts `readPermissionByFilter`).
 */
import type { Resource as FilterResource } from '../filter/index.ts';
import { CHANGE_KINDS, CHANGE_RESOURCE_NAMES, CHANGE_RESOURCES, isChangeResource, type ChangeKind, type ChangeResource } from './resources.ts';

export type ChangeEventType = `${ChangeResource}.${ChangeKind}`;
export const ECOSYSTEM_EVENT_TYPES = ['ecosystem.entity_entered', 'ecosystem.entity_left'] as const;
export type EcosystemEventType = (typeof ECOSYSTEM_EVENT_TYPES)[number];
export const TEST_EVENT_TYPE = 'webhook.test';
/** An export of the webhook's organisation finished (src/exports/finished.ts). */
export const EXPORT_EVENT_TYPES = ['export.succeeded', 'export.failed'] as const;
export type ExportEventType = (typeof EXPORT_EVENT_TYPES)[number];

export type WebhookEventType = ChangeEventType | EcosystemEventType | ExportEventType | typeof TEST_EVENT_TYPE;

export const CHANGE_EVENT_TYPES: readonly ChangeEventType[] = CHANGE_RESOURCE_NAMES.flatMap((resource) =>
  CHANGE_KINDS.map((kind) => `${resource}.${kind}` as const),
);

/** What a webhook may subscribe to (the test event goes to one endpoint on request, never by subscription). */
export const SUBSCRIBABLE_EVENT_TYPES: readonly (ChangeEventType | EcosystemEventType | ExportEventType)[] = [
  ...CHANGE_EVENT_TYPES,
  ...ECOSYSTEM_EVENT_TYPES,
  ...EXPORT_EVENT_TYPES,
];

export const isEcosystemEventType = (type: string): type is EcosystemEventType =>
  (ECOSYSTEM_EVENT_TYPES as readonly string[]).includes(type);

/** The filter resource whose read permission a subscription to `type` needs (undefined: none). */
export function changeResource(type: string): FilterResource | undefined {
  const resource = type.slice(0, type.indexOf('.'));
  return (CHANGE_EVENT_TYPES as readonly string[]).includes(type) && isChangeResource(resource) ? CHANGE_RESOURCES[resource] : undefined;
}
