/**
 * Finds, for an `in_all`/`nin_all` condition with many values, the ids of the records that have every
 * value, a few values at a time: each step is one statement with a handful of EXISTS (cheap to plan)
 * limited to the ids the previous step found, so the candidates only shrink and the work stops as soon
 * as none are left. With 500 tags of which no record has more than a few, that is one or two statements
 * of a few milliseconds, where one EXISTS per value in a single statement took PostgreSQL seconds to plan
 * (and the embedded database minutes, then a crash).
 */
import type { AllOfSets, ResolvedCondition, Resource } from '../filter/index.ts';
import { ALL_OF_EXISTS_LIMIT } from '../filter/index.ts';
import type { IdListField } from '../filter/fields/types.ts';

/** Reads the ids of `resource` matching a where input. */
export type FindIds = (resource: Resource, where: object) => Promise<number[]>;

/**
 * Above this many candidates a step stops narrowing and the condition is left as written (correct, just
 * slower to plan): an id list this long would cost more to send than the EXISTS cost to plan.
 */
const MAX_CANDIDATES = 10_000;

async function allOf(listResource: Resource, condition: ResolvedCondition, findIds: FindIds): Promise<number[] | undefined> {
  // Only id-list fields take in_all/nin_all; behind `investor__` the ids are the related resource's.
  const field = condition.field as IdListField;
  const resource = condition.relation?.resource ?? listResource;
  const values = [...new Set(condition.values as readonly number[])];
  let candidates: number[] | undefined;
  for (let start = 0; start < values.length; start += ALL_OF_EXISTS_LIMIT) {
    const step = values.slice(start, start + ALL_OF_EXISTS_LIMIT).map((id) => field.match('some', id));
    const where = { AND: candidates ? [{ id: { in: candidates } }, ...step] : step };
    candidates = await findIds(resource, where);
    if (candidates.length === 0) return [];
    if (candidates.length > MAX_CANDIDATES) return undefined;
  }
  return candidates;
}

/** The id sets of a compiled filter's many-valued `in_all`/`nin_all` conditions (see CompiledFilter). */
export async function precomputeAllOf(
  resource: Resource,
  conditions: readonly ResolvedCondition[],
  findIds: FindIds,
): Promise<AllOfSets> {
  const sets = new Map<ResolvedCondition, readonly number[]>();
  for (const condition of conditions) {
    const ids = await allOf(resource, condition, findIds);
    if (ids) sets.set(condition, ids);
  }
  return sets;
}
