/**
 * Ecosystems: a named, stored entity filter of one organisation (docs/management.md). The rules, the
 * same over REST and GraphQL:
 * - slugs `^[a-z0-9-]+$` and not all digits, unique among the organisation's active ecosystems (409),
 *   free across them;
 * - the stored filter must compile against the entity fields, with the list filter's error codes, and
 *   must not be blank (it would select every entity);
 * - URLs (`image_url`, a partner logo's `url` and `image_url`) are http or https, or empty;
 * - `tabs_config` is any JSON object within FREE_FORM_LIMITS, stored exactly as sent; what could not
 *   be (a `__proto__` key, a number JSON cannot carry) is refused at its path;
 * - a new ecosystem's members are taken in its creating transaction, so every change of them committed
 *   after it is reported (docs/changes.md, "Ecosystem membership");
 * - delete sets `is_active` false: the ecosystem is then 404 and out of the list, its slug free again;
 * - `{id}` in a path is an id when it is all digits (never a slug, so a retried DELETE of a deleted
 *   ecosystem cannot reach another one whose slug is those digits), else a slug.
 */
import { z } from 'zod';
import { takeStartingPoint } from '../changes/membership-sets.ts';
import type { PrismaClient } from '../db/client.ts';
import { exactJson } from '../db/exact-json.ts';
import type { Prisma } from '../db/generated/prisma/client.ts';
import { prismaSql } from '../db/prisma-sql.ts';
import { AppError, findAppError, notFound, validationError } from '../errors.ts';
import { compileFilter } from '../filter/index.ts';
import type { Principal } from '../auth/principal.ts';
import type { JsonLimits } from '../values/json-shape.ts';
import { httpUrl, jsonObject, parseInput, text } from './input.ts';
import { definedOnly, uniquely } from './records.ts';

export const ECOSYSTEM_LIST_MAX_LIMIT = 2000;
/** What a path's `{id}` may be: an id (all digits) or a slug. */
export const ECOSYSTEM_SLUG = /^[a-z0-9-]+$/;
/** An all-digit path value is an id, never a slug. */
const ALL_DIGITS = /^\d+$/;
const MAX_ID = 2_147_483_647;

/** `tabs_config`: display settings, not data; bounded so that no part of the service recurses deep. */
export const FREE_FORM_LIMITS: Readonly<JsonLimits> = Object.freeze({ maxDepth: 16, maxValues: 1000, maxLength: 65_536 });

const PARTNER_LOGO = z.strictObject(
  { name: text(0, 200), url: httpUrl(2000), image_url: httpUrl(2000) },
  { error: 'must be an object {name, url, image_url}' },
);

const FIELDS = {
  slug: text(1, 100)
    .regex(ECOSYSTEM_SLUG, 'must be lowercase letters, digits and hyphens')
    .refine((slug) => !ALL_DIGITS.test(slug), 'must not be all digits (an all-digit {id} is an id)')
    .meta({ not: { pattern: ALL_DIGITS.source } }),
  name: text(1, 200),
  // Blank is refused by checkFilter; the pattern says so in the OpenAPI document.
  filter: text(1, 4096).meta({ pattern: '\\S' }),
  description: text(0, 10_000),
  region: text(0, 200),
  image_url: httpUrl(2000),
  partner_logos: z.array(PARTNER_LOGO, { error: 'must be an array of {name, url, image_url}' }).max(100, 'at most 100 partner logos'),
  tabs_config: jsonObject(FREE_FORM_LIMITS),
  sort_order: z.int({ error: 'must be an integer' }).min(-2_147_483_648).max(2_147_483_647),
};

/** The create body (its JSON Schema is the OpenAPI document's too). */
export const ECOSYSTEM_CREATE = z.strictObject({
  ...FIELDS,
  description: FIELDS.description.optional(),
  region: FIELDS.region.optional(),
  image_url: FIELDS.image_url.optional(),
  partner_logos: FIELDS.partner_logos.optional(),
  tabs_config: FIELDS.tabs_config.optional(),
  sort_order: FIELDS.sort_order.optional(),
}).meta({
  examples: [{ slug: 'berlin-fintech', name: 'Berlin fintech', filter: 'and(hq_city:Berlin, tags[in_any]:12)', region: 'Berlin', tabs_config: { default_tab: 'companies' } }],
});

export const ECOSYSTEM_UPDATE = ECOSYSTEM_CREATE.partial().meta({ examples: [{ name: 'Berlin financial technology', sort_order: 2 }] });

export type EcosystemInput = z.output<typeof ECOSYSTEM_CREATE>;
export type EcosystemPatch = z.output<typeof ECOSYSTEM_UPDATE>;

/** A create body; the filter is compiled too, so a bad one fails with the filter error codes. */
export function parseEcosystemInput(value: unknown, prefix: string): EcosystemInput {
  const input = parseInput(ECOSYSTEM_CREATE, value, prefix);
  checkFilter(input.filter, prefix);
  return input;
}

/** A patch body: any subset of the create fields. */
export function parseEcosystemPatch(value: unknown, prefix: string): EcosystemPatch {
  const patch = parseInput(ECOSYSTEM_UPDATE, value, prefix);
  if (patch.filter !== undefined) checkFilter(patch.filter, prefix);
  return patch;
}

function checkFilter(filter: string, prefix: string): void {
  // The filter error, placed where the filter came from (`body.filter`).
  const path = [prefix, 'filter'].filter(Boolean).join('.');
  let compiled: ReturnType<typeof compileFilter<'entities'>>;
  try {
    compiled = compileFilter('entities', filter);
  } catch (error) {
    const appError = findAppError(error);
    if (!appError) throw error;
    throw new AppError(appError.code, appError.message, { details: [{ path, message: appError.message }] });
  }
  // Blank text compiles to no condition at all: a view of everything, which no one curates on purpose.
  if (compiled.where === undefined) throw validationError([{ path, message: 'must not be blank (it would select every entity)' }]);
}

/** Input → columns: JSON fields stored exactly as sent (zod already checked their shape). */
function toColumns<T extends EcosystemPatch>(input: T) {
  const { partner_logos, tabs_config, ...scalars } = definedOnly(input);
  return {
    ...scalars,
    ...(partner_logos !== undefined ? { partner_logos: exactJson(partner_logos as Prisma.InputJsonValue) } : {}),
    ...(tabs_config !== undefined ? { tabs_config: exactJson(tabs_config as Prisma.InputJsonValue) } : {}),
  };
}

const SLUG_TAKEN = 'An active ecosystem of your organisation already has this slug';

/**
 * The caller's active ecosystem by id (all digits) or slug (anything else), or null; `prisma` is the
 * caller's, narrowed to its organisation (src/auth/tenancy.ts). An all-digit key
 * never falls through to a slug: the id of a deleted ecosystem stays that ecosystem's, missing.
 */
export async function findEcosystemId(prisma: PrismaClient, key: string): Promise<number | null> {
  const scope = { is_active: true };
  if (ALL_DIGITS.test(key)) {
    const id = Number(key);
    if (id > MAX_ID) return null;
    const byId = await prisma.ecosystem.findFirst({ where: { ...scope, id }, select: { id: true } });
    return byId?.id ?? null;
  }
  const bySlug = await prisma.ecosystem.findFirst({ where: { ...scope, slug: key }, select: { id: true } });
  return bySlug?.id ?? null;
}

/** As findEcosystemId, but a missing one is 404. */
export async function requireEcosystemId(prisma: PrismaClient, key: string): Promise<number> {
  const id = await findEcosystemId(prisma, key);
  if (id === null) throw notFound('Ecosystem');
  return id;
}

export function createEcosystem(prisma: PrismaClient, principal: Principal, input: EcosystemInput) {
  return uniquely(
    () =>
      prisma.$transaction(async (transaction) => {
        const tx = transaction as PrismaClient;
        const created = await tx.ecosystem.create({
          data: { ...toColumns(input), slug: input.slug, name: input.name, filter: input.filter, org_id: principal.orgId },
          select: { id: true },
        });
        // After the row (a slug taken meanwhile is waited for before the feed's head is held).
        await takeStartingPoint(prismaSql(tx), created.id, input.filter);
        return created;
      }),
    SLUG_TAKEN,
  );
}

export async function updateEcosystem(prisma: PrismaClient, key: string, patch: EcosystemPatch) {
  const id = await requireEcosystemId(prisma, key);
  return uniquely(() => prisma.ecosystem.update({ where: { id }, data: toColumns(patch), select: { id: true } }), SLUG_TAKEN);
}

/** Deactivates; only an active one is, so of two deletes at once (or a retry) the second is 404. */
export async function deleteEcosystem(prisma: PrismaClient, key: string): Promise<void> {
  const id = await requireEcosystemId(prisma, key);
  const { count } = await prisma.ecosystem.updateMany({
    where: { id, is_active: true },
    data: { is_active: false },
  });
  if (count === 0) throw notFound('Ecosystem');
}
