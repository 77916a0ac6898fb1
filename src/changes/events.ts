/**
 * The webhook event types, declared once: the change types of each reference resource, the ecosystem
 * membership events, and the test event. Which permission a subscription to a change type needs is
 * the read permission of its resource (src/schema/resource.ts `readPermissionByFilter`).
 */
import type { Resource as FilterResource } from '../filter/index.ts';
import { CHANGE_RESOURCES, type ChangeKind, type ChangeResource } from './resources.ts';

/** The object a change type names → the filter resource (and so the read permission) it belongs to. */
export const CHANGE_OBJECTS: Readonly<Record<ChangeResource, FilterResource>> = CHANGE_RESOURCES;

export type ChangeObject = ChangeResource;
const CHANGE_ACTIONS = ['created', 'updated', 'deleted'] as const satisfies readonly ChangeKind[];

export type ChangeEventType = `${ChangeObject}.${(typeof CHANGE_ACTIONS)[number]}`;
export const ECOSYSTEM_EVENT_TYPES = ['ecosystem.entity_entered', 'ecosystem.entity_left'] as const;
export type EcosystemEventType = (typeof ECOSYSTEM_EVENT_TYPES)[number];
export const TEST_EVENT_TYPE = 'webhook.test';

export type WebhookEventType = ChangeEventType | EcosystemEventType | typeof TEST_EVENT_TYPE;

export const CHANGE_EVENT_TYPES: readonly ChangeEventType[] = Object.keys(CHANGE_OBJECTS).flatMap((object) =>
  CHANGE_ACTIONS.map((action) => `${object as ChangeObject}.${action}` as const),
);

/** What a webhook may subscribe to (the test event goes to one endpoint on request, never by subscription). */
export const SUBSCRIBABLE_EVENT_TYPES: readonly (ChangeEventType | EcosystemEventType)[] = [...CHANGE_EVENT_TYPES, ...ECOSYSTEM_EVENT_TYPES];

export const isEcosystemEventType = (type: string): type is EcosystemEventType =>
  (ECOSYSTEM_EVENT_TYPES as readonly string[]).includes(type);

/** The filter resource whose read permission a subscription to `type` needs (undefined: none). */
export function changeResource(type: string): FilterResource | undefined {
  const object = type.slice(0, type.indexOf('.')) as ChangeObject;
  return (CHANGE_EVENT_TYPES as readonly string[]).includes(type) ? CHANGE_OBJECTS[object] : undefined;
}
