/**
 * Landscapes: ordered lists of entities inside an ecosystem (docs/management.md). A landscape is
 * reached through its ecosystem, so it is the caller's when its ecosystem is an active one of the
 * caller's organisation; otherwise it is 404. `PUT .../entities` replaces the whole list in one
 * transaction that first locks the landscape row, so concurrent replacements serialise and each
 * leaves one whole list: never a mix of two, never a half-written one.
 */
import { z } from 'zod';
import type { PrismaClient } from '../db/client.ts';
import { notFound, validationError } from '../errors.ts';
import { parseInput, text } from './input.ts';

export const LANDSCAPE_LIST_MAX_LIMIT = 2000;
/** More entities than anyone curates by hand; the bound keeps one request's work bounded. */
export const LANDSCAPE_MAX_ENTITIES = 5000;

export const LANDSCAPE_CREATE = z.strictObject({
  name: text(1, 200),
  description: text(0, 10_000).optional(),
  sort_order: z.int({ error: 'must be an integer' }).min(-2_147_483_648).max(2_147_483_647).optional(),
}).meta({ examples: [{ name: 'Payments', description: 'Payment infrastructure', sort_order: 1 }] });

export const LANDSCAPE_ENTITY_IDS = z.strictObject({
  entity_ids: z
    .array(z.int({ error: 'must be an entity id' }).min(1, 'must be an entity id').max(2_147_483_647, 'must be an entity id'), {
      error: 'must be an array of entity ids',
    })
    .max(LANDSCAPE_MAX_ENTITIES, `at most ${LANDSCAPE_MAX_ENTITIES} entities`),
}).meta({ examples: [{ entity_ids: [1042, 77, 310] }] });

export type LandscapeInput = z.output<typeof LANDSCAPE_CREATE>;

export const parseLandscapeInput = (value: unknown, prefix: string): LandscapeInput => parseInput(LANDSCAPE_CREATE, value, prefix);

/** The ids in the order given, duplicates collapsed to their first place. */
export function parseEntityIds(value: unknown, prefix: string): number[] {
  return [...new Set(parseInput(LANDSCAPE_ENTITY_IDS, value, prefix).entity_ids)];
}

/** Where a landscape is visible: in an active ecosystem (the caller's client keeps to its organisation). */
export const VISIBLE_LANDSCAPE = { ecosystem: { is_active: true } };

export async function createLandscape(prisma: PrismaClient, ecosystemId: number, input: LandscapeInput): Promise<number> {
  const created = await prisma.landscape.create({ data: { ...input, ecosystem_id: ecosystemId }, select: { id: true } });
  return created.id;
}

/**
 * Replaces the landscape's entities with `entityIds`, in that order. Unknown (or soft-deleted) ids
 * are 400 naming them, and nothing changes.
 */
export async function replaceLandscapeEntities(prisma: PrismaClient, landscapeId: number, entityIds: number[], path: string): Promise<void> {
  await prisma.$transaction(async (tx) => {
    // A conditional update of the visible landscape: its row lock makes concurrent replacements of one
    // landscape wait for each other, and it finds nothing outside the caller's organisation.
    const { count } = await tx.landscape.updateMany({ where: { id: landscapeId, ...VISIBLE_LANDSCAPE }, data: { updated_at: new Date() } });
    if (count === 0) throw notFound('Landscape');
    const known = await tx.entity.findMany({ where: { id: { in: entityIds }, deleted_at: null }, select: { id: true } });
    if (known.length !== entityIds.length) {
      const found = new Set(known.map((entity) => entity.id));
      const unknown = entityIds.filter((id) => !found.has(id));
      const named = unknown.length > 20 ? `${unknown.slice(0, 20).join(', ')} and ${unknown.length - 20} more` : unknown.join(', ');
      throw validationError([{ path, message: `unknown entity id(s): ${named}` }]);
    }
    await tx.landscapeEntity.deleteMany({ where: { landscape_id: landscapeId } });
    await tx.landscapeEntity.createMany({
      data: entityIds.map((entityId, position) => ({ landscape_id: landscapeId, entity_id: entityId, position })),
    });
  });
}

/**
 * Deletes the landscape (its list goes with it) in one statement scoped to what the caller sees: of two
 * deletes at once, or a retry, the second is 404 and touches nothing.
 */
export async function deleteLandscape(prisma: PrismaClient, id: number): Promise<void> {
  const { count } = await prisma.landscape.deleteMany({ where: { id, ...VISIBLE_LANDSCAPE } });
  if (count === 0) throw notFound('Landscape');
}
