/**
 * Ecosystems: a named, stored entity filter of one organisation (docs/management.md). The rules, the
 * same over REST and GraphQL:
 * - slugs `^[a-z0-9-]+$`, unique among the organisation's active ecosystems (409), free across them;
 * - the stored filter must compile against the entity fields, with the list filter's error codes;
 * - delete sets `is_active` false: the ecosystem is then 404 and out of the list, its slug free again;
 * - `{id}` in a path is the id when it is all digits and such an ecosystem exists, else the slug.
 */
import { z } from 'zod';
import type { PrismaClient } from '../db/client.ts';
import type { Prisma } from '../db/generated/prisma/client.ts';
import { AppError, findAppError, notFound } from '../errors.ts';
import { compileFilter } from '../filter/index.ts';
import type { Principal } from '../auth/principal.ts';
import { parseInput, text } from './input.ts';
import { definedOnly, uniquely } from './records.ts';

export const ECOSYSTEM_LIST_MAX_LIMIT = 2000;
export const ECOSYSTEM_SLUG = /^[a-z0-9-]+$/;

const PARTNER_LOGO = z.strictObject({ name: text(0, 200), url: text(0, 2000), image_url: text(0, 2000) });

const FIELDS = {
  slug: text(1, 100).regex(ECOSYSTEM_SLUG, 'must be lowercase letters, digits and hyphens'),
  name: text(1, 200),
  filter: text(1, 4096),
  description: text(0, 10_000),
  region: text(0, 200),
  image_url: text(0, 2000),
  partner_logos: z.array(PARTNER_LOGO, { error: 'must be an array of {name, url, image_url}' }).max(100),
  tabs_config: z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }),
  sort_order: z.int({ error: 'must be an integer' }).min(-2_147_483_648).max(2_147_483_647),
};

const CREATE = z.strictObject({
  ...FIELDS,
  description: FIELDS.description.optional(),
  region: FIELDS.region.optional(),
  image_url: FIELDS.image_url.optional(),
  partner_logos: FIELDS.partner_logos.optional(),
  tabs_config: FIELDS.tabs_config.optional(),
  sort_order: FIELDS.sort_order.optional(),
});

const UPDATE = CREATE.partial();

export type EcosystemInput = z.output<typeof CREATE>;
export type EcosystemPatch = z.output<typeof UPDATE>;

/** A create body; the filter is compiled too, so a bad one fails with the filter error codes. */
export function parseEcosystemInput(value: unknown, prefix: string): EcosystemInput {
  const input = parseInput(CREATE, value, prefix);
  checkFilter(input.filter, prefix);
  return input;
}

/** A patch body: any subset of the create fields. */
export function parseEcosystemPatch(value: unknown, prefix: string): EcosystemPatch {
  const patch = parseInput(UPDATE, value, prefix);
  if (patch.filter !== undefined) checkFilter(patch.filter, prefix);
  return patch;
}

function checkFilter(filter: string, prefix: string): void {
  try {
    compileFilter('entities', filter);
  } catch (error) {
    const appError = findAppError(error);
    if (!appError) throw error;
    // The filter error, placed where the filter came from (`body.filter`).
    const path = [prefix, 'filter'].filter(Boolean).join('.');
    throw new AppError(appError.code, appError.message, { details: [{ path, message: appError.message }] });
  }
}

/** Input → columns: JSON fields as Prisma's JSON input type (zod already checked their shape). */
function toColumns<T extends EcosystemPatch>(input: T) {
  const { partner_logos, tabs_config, ...scalars } = definedOnly(input);
  return {
    ...scalars,
    ...(partner_logos !== undefined ? { partner_logos: partner_logos as Prisma.InputJsonValue } : {}),
    ...(tabs_config !== undefined ? { tabs_config: tabs_config as Prisma.InputJsonValue } : {}),
  };
}

const SLUG_TAKEN = 'An active ecosystem of your organisation already has this slug';

/** The caller's active ecosystem by id or slug, or null. */
export async function findEcosystemId(prisma: PrismaClient, principal: Principal, key: string): Promise<number | null> {
  const scope = { org_id: principal.orgId, is_active: true };
  if (/^\d{1,10}$/.test(key) && Number(key) <= 2_147_483_647) {
    const byId = await prisma.ecosystem.findFirst({ where: { ...scope, id: Number(key) }, select: { id: true } });
    if (byId) return byId.id;
  }
  const bySlug = await prisma.ecosystem.findFirst({ where: { ...scope, slug: key }, select: { id: true } });
  return bySlug?.id ?? null;
}

/** As findEcosystemId, but a missing one is 404. */
export async function requireEcosystemId(prisma: PrismaClient, principal: Principal, key: string): Promise<number> {
  const id = await findEcosystemId(prisma, principal, key);
  if (id === null) throw notFound('Ecosystem');
  return id;
}

export function createEcosystem(prisma: PrismaClient, principal: Principal, input: EcosystemInput) {
  return uniquely(
    () => prisma.ecosystem.create({ data: { ...toColumns(input), slug: input.slug, name: input.name, filter: input.filter, org_id: principal.orgId }, select: { id: true } }),
    SLUG_TAKEN,
  );
}

export async function updateEcosystem(prisma: PrismaClient, principal: Principal, key: string, patch: EcosystemPatch) {
  const id = await requireEcosystemId(prisma, principal, key);
  return uniquely(() => prisma.ecosystem.update({ where: { id }, data: toColumns(patch), select: { id: true } }), SLUG_TAKEN);
}

export async function deleteEcosystem(prisma: PrismaClient, principal: Principal, key: string): Promise<void> {
  const id = await requireEcosystemId(prisma, principal, key);
  await prisma.ecosystem.update({ where: { id }, data: { is_active: false } });
}
