/**
 * Ecosystem membership: the active entities each active ecosystem's filter matches, kept in
 * ecosystem_members and brought up to date by a follower of the changes feed. For each batch of changes
 * it recomputes only the entities the batch touched (an entity's own change, or a change of a round,
 * valuation, investor or founder that an entity filter can look through); an ecosystem whose filter was
 * edited is recomputed whole. The differences are what `ecosystem.entity_entered` / `entity_left`
 * report, handed to `onChange` in the same transaction. A new ecosystem's members are its starting point,
 * not news: they are taken silently, as are the members of an ecosystem that was deactivated. Far
 * behind (or with nothing to track), it jumps to the head and recomputes every ecosystem whole.
 */
import { randomUUID } from 'node:crypto';
import type { SqlTransaction } from '../db/client.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { readModels, type Models } from '../compile/model.ts';
import { NotCompiled, Statement } from '../compile/statement.ts';
import { whereSql } from '../compile/where.ts';
import { compileFilter, type Resource } from '../filter/index.ts';
import { RESOURCE_MODEL } from '../schema/list-query.ts';
import { precomputeAllOf } from '../sql/all-of.ts';
import { endOf, type FeedPlace } from './cursor.ts';
import type { StoredChange } from './feed.ts';
import { readNext, type Follower, type FollowerBatch } from './follower.ts';
import { enqueueEvents } from './outbox.ts';

export interface MembershipChange {
  kind: 'entity_entered' | 'entity_left';
  ecosystemId: number;
  entityId: number;
}

/**
 * The webhook events of membership changes, in the transaction that records them: each is reported
 * once, so a fresh id is its identity (a retry of the delivery keeps it).
 */
export async function enqueueMembershipEvents(tx: SqlTransaction, changes: readonly MembershipChange[], position?: string): Promise<void> {
  const now = new Date();
  await enqueueEvents(
    tx,
    changes.map((change) => ({
      id: `msg_${randomUUID()}`,
      type: `ecosystem.${change.kind}` as const,
      occurredAt: now,
      data: { ecosystem_id: change.ecosystemId, entity_id: change.entityId },
      ecosystemId: change.ecosystemId,
      position,
    })),
  );
}

/** Above this many touched entities a whole recomputation is cheaper than naming them. */
const WHOLE_ABOVE = 50_000;
/** Further behind than this many batches, the follower recomputes every ecosystem whole and jumps to the head. */
const BACKLOG_BATCHES = 10;

/**
 * In one snapshot: the head, whether any ecosystem is tracked, and how many changes (up to `limit`,
 * $4) follow the place ($1, $2, $3).
 */
const BACKLOG = `
  SELECT (SELECT position FROM change_clock)::text AS head,
         EXISTS (SELECT 1 FROM ecosystems WHERE is_active) AS tracked,
         (SELECT count(*)::int FROM (
            SELECT 1 FROM change_commits cc JOIN changes c ON c.xid = cc.xid
             WHERE cc.position >= $1::bigint AND (cc.position > $1::bigint OR (c.resource, c.object_id) > ($2::text COLLATE "C", $3::int))
             LIMIT $4) t) AS backlog`;

/**
 * The next batch, or, when no ecosystem is tracked or the follower is far behind (an import of a
 * hundred thousand records), none: the place jumps to the head and every ecosystem is recomputed whole,
 * one statement each instead of one per batch per ecosystem. Recomputing reads the present, so the
 * differences are the same; a backlog never delays the membership events of the present.
 */
async function readOrJump(tx: SqlTransaction, place: FeedPlace, batchSize: number): Promise<FollowerBatch> {
  const [row] = await tx.query<{ head: string; tracked: boolean; backlog: number }>(BACKLOG, [
    String(place.position),
    place.resource,
    place.objectId,
    batchSize * BACKLOG_BATCHES,
  ]);
  const head = endOf(BigInt(row!.head));
  if (row!.backlog > 0 && (!row!.tracked || row!.backlog >= batchSize * BACKLOG_BATCHES)) {
    return { changes: [], head: row!.head, next: head, everything: true };
  }
  return readNext(tx, place, batchSize);
}

export function membershipFollower(options: {
  logger: Logger;
  /** The membership changes found, with the feed position they are attributed to (for who hears them). */
  onChange(tx: SqlTransaction, changes: readonly MembershipChange[], position: string): Promise<void>;
}): Follower {
  const models = readModels();
  return {
    name: 'ecosystem-membership',
    read: readOrJump,
    handle: async (tx, changes, batch) => {
      // Deactivated ecosystems keep no members (taken again, silently, if one is activated).
      await tx.query('DELETE FROM ecosystem_memberships m USING ecosystems e WHERE e.id = m.ecosystem_id AND NOT e.is_active');
      await tx.query('DELETE FROM ecosystem_members m USING ecosystems e WHERE e.id = m.ecosystem_id AND NOT e.is_active');
      const ecosystems = await tx.query<{ id: number; filter: string; computed: string | null }>(
        `SELECT e.id, e.filter, m.filter AS computed FROM ecosystems e
           LEFT JOIN ecosystem_memberships m ON m.ecosystem_id = e.id
          WHERE e.is_active ORDER BY e.id`,
      );
      const touched = changes.length ? await touchedEntities(tx, changes) : [];
      const found: MembershipChange[] = [];
      for (const ecosystem of ecosystems) {
        const edited = ecosystem.computed !== ecosystem.filter;
        if (!edited && !batch.everything && touched.length === 0) continue;
        try {
          const only = edited || batch.everything || touched.length > WHOLE_ABOVE ? undefined : touched;
          const differences = await recompute(tx, models, ecosystem.id, ecosystem.filter, only);
          // A first computation sets the starting point; anything later is a change of membership.
          if (ecosystem.computed !== null) found.push(...differences);
          if (edited) await noteComputed(tx, ecosystem.id, ecosystem.filter);
        } catch (error) {
          // A stored filter this version no longer reads (a field removed) must not stop every other ecosystem.
          if (!(error instanceof AppError || error instanceof NotCompiled)) throw error;
          options.logger.error({ ecosystem: ecosystem.id, err: error }, 'ecosystem filter cannot be read; its membership is not tracked');
        }
      }
      // Attributed to the newest change they follow from (the head for a jump or an edited filter):
      // webhooks created after it do not hear them.
      if (found.length) await options.onChange(tx, found, changes.at(-1)?.position ?? batch.head);
    },
  };
}

/** The filter an ecosystem's members were computed with (an edit shows as a difference to it). */
async function noteComputed(tx: SqlTransaction, ecosystemId: number, filter: string): Promise<void> {
  await tx.query(
    `INSERT INTO ecosystem_memberships (ecosystem_id, filter, computed_at) VALUES ($1, $2, now())
     ON CONFLICT (ecosystem_id) DO UPDATE SET filter = EXCLUDED.filter, computed_at = EXCLUDED.computed_at`,
    [ecosystemId, filter],
  );
}

/** Entities whose membership a batch may have changed: theirs, or a record an entity filter looks through. */
async function touchedEntities(tx: SqlTransaction, changes: readonly StoredChange[]): Promise<number[]> {
  const of = (resource: string) => changes.filter((change) => change.resource === resource).map((change) => change.object_id);
  const rows = await tx.query<{ id: number }>(
    `SELECT DISTINCT id FROM (
       SELECT unnest($1::int[]) AS id
       UNION ALL SELECT entity_id FROM funding_rounds WHERE id = ANY ($2::int[])
       UNION ALL SELECT entity_id FROM valuations WHERE id = ANY ($3::int[])
       UNION ALL SELECT r.entity_id FROM round_investors ri JOIN funding_rounds r ON r.id = ri.round_id WHERE ri.investor_id = ANY ($4::int[])
       UNION ALL SELECT entity_id FROM founder_companies WHERE founder_id = ANY ($5::int[])
     ) t`,
    [of('entity'), of('transaction'), of('valuation'), of('investor'), of('founder')],
  );
  return rows.map((row) => row.id);
}

/**
 * The ecosystem's members brought to what its filter matches now, among `only` (or all entities), in
 * one statement; returns who entered and who left.
 */
async function recompute(
  tx: SqlTransaction,
  models: Models,
  ecosystemId: number,
  filter: string,
  only: readonly number[] | undefined,
): Promise<MembershipChange[]> {
  const compiled = compileFilter('entities', filter);
  const sets = compiled.manyValuedAllOf.length
    ? await precomputeAllOf('entities', compiled.manyValuedAllOf, (resource, where) => findIds(tx, models, resource, where))
    : undefined;
  const where = { AND: [sets ? compiled.whereWith(sets) : compiled.where, { deleted_at: null }].filter(Boolean) };
  const statement = new Statement(models);
  const condition = whereSql(statement, models.get('Entity')!, 'e', where);
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

/** Ids of a resource's records matching a where input, in the follower's transaction. */
async function findIds(tx: SqlTransaction, models: Models, resource: Resource, where: object): Promise<number[]> {
  const model = models.get(RESOURCE_MODEL[resource])!;
  const statement = new Statement(models);
  const condition = whereSql(statement, model, 'r', where);
  const rows = await tx.query<{ id: number }>(`SELECT r.id FROM "${model.table}" r WHERE ${condition}`, statement.params);
  return rows.map((row) => row.id);
}
