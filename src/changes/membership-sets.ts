/**
 * An ecosystem's members as rows of ecosystem_members: brought to what its filter matches now in one
 * statement (among some entities, or all), the difference returned as who entered and who left; and
 * which entities a batch of changes may have moved in or out (an entity's own change, or a change of a
 * round, valuation, investor or founder an entity filter looks through).
 */
import type { SqlTransaction } from '../db/client.ts';
import { readModels, type Models } from '../compile/model.ts';
import { Statement } from '../compile/statement.ts';
import { whereSql } from '../compile/where.ts';
import { compileFilter, type Resource } from '../filter/index.ts';
import { RESOURCE_MODEL } from '../schema/list-query.ts';
import { precomputeAllOf } from '../sql/all-of.ts';
import type { StoredChange } from './feed.ts';
import { holdFeedHead } from './feed-head.ts';

export interface MembershipChange {
  kind: 'entity_entered' | 'entity_left';
  ecosystemId: number;
  entityId: number;
}

let models: Models | undefined;
const modelsOnce = (): Models => (models ??= readModels());

/**
 * A new ecosystem's starting members, taken in its creating transaction at the feed's head, held until
 * it commits: every change committed after it is a change of membership the follower reports, none
 * before. The creation itself reports nothing (docs/changes.md, "Ecosystem membership").
 */
export async function takeStartingPoint(tx: SqlTransaction, ecosystemId: number, filter: string): Promise<void> {
  await holdFeedHead(tx);
  await recompute(tx, ecosystemId, filter, undefined);
  await noteComputed(tx, ecosystemId, filter);
}

/** The filter an ecosystem's members were computed with (an edit shows as a difference to it). */
export async function noteComputed(tx: SqlTransaction, ecosystemId: number, filter: string): Promise<void> {
  await tx.query(
    `INSERT INTO ecosystem_memberships (ecosystem_id, filter, computed_at) VALUES ($1, $2, now())
     ON CONFLICT (ecosystem_id) DO UPDATE SET filter = EXCLUDED.filter, computed_at = EXCLUDED.computed_at`,
    [ecosystemId, filter],
  );
}

/**
 * Entities whose membership the changes may have moved, each with the newest position among the
 * changes that touched it: theirs, or of a record an entity filter looks through.
 */
export async function touchedEntities(tx: SqlTransaction, changes: readonly StoredChange[]): Promise<Map<number, string>> {
  const rows = await tx.query<{ id: number; position: string }>(
    `WITH c AS (SELECT * FROM unnest($1::text[], $2::int[], $3::bigint[]) AS c(resource, id, position))
     SELECT id, max(position)::text AS position FROM (
       SELECT c.id, c.position FROM c WHERE c.resource = 'entity'
       UNION ALL SELECT r.entity_id, c.position FROM c JOIN funding_rounds r ON r.id = c.id WHERE c.resource = 'transaction'
       UNION ALL SELECT v.entity_id, c.position FROM c JOIN valuations v ON v.id = c.id WHERE c.resource = 'valuation'
       UNION ALL SELECT r.entity_id, c.position FROM c JOIN round_investors ri ON ri.investor_id = c.id
                   JOIN funding_rounds r ON r.id = ri.round_id WHERE c.resource = 'investor'
       UNION ALL SELECT fc.entity_id, c.position FROM c JOIN founder_companies fc ON fc.founder_id = c.id WHERE c.resource = 'founder'
     ) t GROUP BY id`,
    [changes.map((change) => change.resource), changes.map((change) => change.object_id), changes.map((change) => change.position)],
  );
  return new Map(rows.map((row) => [row.id, row.position]));
}

/**
 * The ecosystem's members brought to what its filter matches now, among `only` (or all entities), in
 * one statement; returns who entered and who left.
 */
export async function recompute(
  tx: SqlTransaction,
  ecosystemId: number,
  filter: string,
  only: readonly number[] | undefined,
): Promise<MembershipChange[]> {
  const compiled = compileFilter('entities', filter);
  const sets = compiled.manyValuedAllOf.length
    ? await precomputeAllOf('entities', compiled.manyValuedAllOf, (resource, where) => findIds(tx, resource, where))
    : undefined;
  const where = { AND: [sets ? compiled.whereWith(sets) : compiled.where, { deleted_at: null }].filter(Boolean) };
  const statement = new Statement(modelsOnce());
  const condition = whereSql(statement, modelsOnce().get('Entity')!, 'e', where);
  const ecosystem = statement.param(ecosystemId);
  const within = only ? statement.param(only) : undefined;
  const rows = await tx.query<{ kind: MembershipChange['kind']; entity_id: number }>(
    `WITH matched AS (
       SELECT e.id FROM entities e WHERE ${condition}${within ? ` AND e.id = ANY (${within}::int[])` : ''}
     ), entered AS (
       INSERT INTO ecosystem_members (ecosystem_id, entity_id) SELECT ${ecosystem}, id FROM matched
       ON CONFLICT DO NOTHING RETURNING entity_id
     ), gone AS (
       DELETE FROM ecosystem_members m
        WHERE m.ecosystem_id = ${ecosystem}${within ? ` AND m.entity_id = ANY (${within}::int[])` : ''}
          AND NOT EXISTS (SELECT 1 FROM matched WHERE matched.id = m.entity_id)
       RETURNING entity_id
     )
     SELECT 'entity_entered' AS kind, entity_id FROM entered
     UNION ALL SELECT 'entity_left', entity_id FROM gone
     ORDER BY entity_id, kind`,
    statement.params,
  );
  return rows.map((row) => ({ kind: row.kind, ecosystemId, entityId: row.entity_id }));
}

/** Ids of a resource's records matching a where input, in the caller's transaction. */
async function findIds(tx: SqlTransaction, resource: Resource, where: object): Promise<number[]> {
  const model = modelsOnce().get(RESOURCE_MODEL[resource])!;
  const statement = new Statement(modelsOnce());
  const condition = whereSql(statement, model, 'r', where);
  const rows = await tx.query<{ id: number }>(`SELECT r.id FROM "${model.table}" r WHERE ${condition}`, statement.params);
  return rows.map((row) => row.id);
}
