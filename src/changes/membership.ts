/**
 * Ecosystem membership: the active entities each active ecosystem's filter matches, kept in
 * ecosystem_members and brought up to date by a follower of the changes feed, which reports the
 * differences as `ecosystem.entity_entered` / `entity_left`, each attributed to the feed position it
 * follows from, so exactly the webhooks created before that position hear it (docs/changes.md,
 * "Ecosystem membership").
 *
 * A pass reads one snapshot (REPEATABLE READ): every change up to the snapshot's head, and the present
 * it recomputes from, which is the state at that head. The entities the changes touched are recomputed
 * (with the newest position that touched each); an ecosystem whose filter was edited, whole (its edit
 * is an `ecosystem` change of the feed, with a position of its own: migration
 * 20261128100000_ecosystem_changes). A difference is attributed to the newest of the changes it can
 * follow from: the entity's, and the ecosystem's edit. Far behind (or with nothing to track), the pass
 * jumps to the head, recomputes every ecosystem whole and attributes what it finds to the head.
 */
import { randomUUID } from 'node:crypto';
import type { SqlTransaction } from '../db/client.ts';
import { AppError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { NotCompiled } from '../compile/statement.ts';
import { afterPlaceSql, endOf, type FeedPlace } from './cursor.ts';
import type { StoredChange } from './feed.ts';
import { countTypes, readNext, type Follower, type FollowerBatch } from './follower.ts';
import { noteComputed, recompute, touchedEntities, type MembershipChange } from './membership-sets.ts';
import { enqueueEvents } from './outbox.ts';
import { CHANGE_RESOURCE_NAMES } from './resources.ts';

export type { MembershipChange } from './membership-sets.ts';

/** A change of membership with the feed position it follows from: the webhooks created before it hear it. */
export interface FoundChange extends MembershipChange {
  position: string;
}

/** The feed's changes of ecosystems (a filter edited, an ecosystem deactivated): the follower's own, never listed. */
const ECOSYSTEM = 'ecosystem';
const FOLLOWED = [...CHANGE_RESOURCE_NAMES, ECOSYSTEM];

/**
 * The webhook events of membership changes, in the transaction that records them: each is reported
 * once, so a fresh id is its identity (a retry of the delivery keeps it).
 */
export async function enqueueMembershipEvents(tx: SqlTransaction, changes: readonly FoundChange[]): Promise<void> {
  const now = new Date();
  await enqueueEvents(
    tx,
    changes.map((change) => ({
      id: `msg_${randomUUID()}`,
      type: `ecosystem.${change.kind}` as const,
      occurredAt: now,
      data: { ecosystem_id: change.ecosystemId, entity_id: change.entityId },
      ecosystemId: change.ecosystemId,
      position: change.position,
    })),
  );
}

/** Above this many touched entities a whole recomputation is cheaper than naming them. */
const WHOLE_ABOVE = 50_000;
/** More changes than this many batches behind, the follower recomputes every ecosystem whole and jumps to the head. */
const BACKLOG_BATCHES = 10;

/**
 * In one snapshot: the head, whether any ecosystem is tracked (active, or deactivated with members
 * still to drop), and how many changes (up to `limit`, $4) follow the place ($1, $2, $3).
 */
const BACKLOG = `
  SELECT (SELECT position FROM change_clock)::text AS head,
         EXISTS (SELECT 1 FROM ecosystems WHERE is_active) OR EXISTS (SELECT 1 FROM ecosystem_memberships) AS tracked,
         (SELECT count(*)::int FROM (
            SELECT 1 FROM change_commits cc JOIN changes c ON c.xid = cc.xid AND ${afterPlaceSql('$1::bigint', '$2::text', '$3::int')}
             WHERE cc.position >= $1::bigint
             LIMIT $4) t) AS backlog`;

/**
 * Every change up to the head (the snapshot's present is the state at the head, so a pass answers for
 * all of them), or, when no ecosystem is tracked or there are too many (an import of a hundred
 * thousand records), none: the place jumps to the head and every ecosystem is recomputed whole, one
 * statement each. A backlog never delays the membership events of the present.
 */
async function readOrJump(tx: SqlTransaction, place: FeedPlace, batchSize: number): Promise<FollowerBatch> {
  const limit = batchSize * BACKLOG_BATCHES;
  const [row] = await tx.query<{ head: string; tracked: boolean; backlog: number }>(BACKLOG, [
    String(place.position),
    place.resource,
    place.objectId,
    limit,
  ]);
  const head = endOf(BigInt(row!.head));
  if (row!.backlog > 0 && (!row!.tracked || row!.backlog >= limit)) return { changes: [], head: row!.head, next: head, everything: true };
  return { ...(await readNext(tx, place, limit, FOLLOWED)), next: head };
}

/** What one pass knows: where each difference it finds can come from. */
interface Pass {
  tx: SqlTransaction;
  head: string;
  /** The pass jumped: everything may have changed, at the head. */
  everything: boolean;
  /** Entity → the newest position among the pass's changes that touched it. */
  touched: ReadonlyMap<number, string>;
  /** Ecosystem → the position of its newest change in the pass (a filter edit, a deactivation). */
  edited: ReadonlyMap<number, string>;
}

const later = (a: string | undefined, b: string | undefined): string | undefined =>
  a === undefined ? b : b === undefined || BigInt(a) > BigInt(b) ? a : b;

/** Each difference at the newest position it can follow from: its entity's change or the ecosystem's edit (else the head). */
const attribute = (pass: Pass, differences: readonly MembershipChange[], editedAt?: string): FoundChange[] =>
  differences.map((difference) => ({
    ...difference,
    position: pass.everything ? pass.head : later(pass.touched.get(difference.entityId), editedAt) ?? pass.head,
  }));

export function membershipFollower(options: {
  logger: Logger;
  /** The membership changes found, each with the feed position it is attributed to (for who hears it). */
  onChange(tx: SqlTransaction, changes: readonly FoundChange[]): Promise<void>;
}): Follower {
  /** A stored filter this version no longer reads (a field removed) must not stop every other ecosystem. */
  const guarded = async (ecosystemId: number, work: () => Promise<FoundChange[]>): Promise<FoundChange[]> => {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof AppError || error instanceof NotCompiled)) throw error;
      options.logger.error({ ecosystem: ecosystemId, err: error }, 'ecosystem filter cannot be read; its membership is not tracked');
      return [];
    }
  };
  return {
    name: 'ecosystem-membership',
    oneSnapshot: true,
    read: readOrJump,
    handle: async (tx, changes, batch) => {
      const pass = await passOf(tx, changes, batch);
      const found = [...(await closeDeactivated(pass, guarded)), ...(await keepActive(pass, guarded))];
      if (found.length) await options.onChange(tx, found);
      return countTypes(found.map((change) => `ecosystem.${change.kind}`));
    },
  };
}

type Guard = (ecosystemId: number, work: () => Promise<FoundChange[]>) => Promise<FoundChange[]>;

async function passOf(tx: SqlTransaction, changes: readonly StoredChange[], batch: FollowerBatch): Promise<Pass> {
  const edited = new Map<number, string>();
  const data: StoredChange[] = [];
  // In feed order: an ecosystem's last change is its newest.
  for (const change of changes) {
    if ((change.resource as string) === ECOSYSTEM) edited.set(change.object_id, change.position);
    else data.push(change);
  }
  const touched = data.length ? await touchedEntities(tx, data) : new Map<number, string>();
  return { tx, head: batch.head, everything: batch.everything === true, touched, edited };
}

/**
 * Active ecosystems: the touched entities recomputed, an edited one whole (then its filter noted). A
 * first computation (an ecosystem activated again, or created other than through the API) is its
 * starting point, taken silently.
 */
async function keepActive(pass: Pass, guarded: Guard): Promise<FoundChange[]> {
  const ecosystems = await pass.tx.query<{ id: number; filter: string; computed: string | null }>(
    `SELECT e.id, e.filter, m.filter AS computed FROM ecosystems e
       LEFT JOIN ecosystem_memberships m ON m.ecosystem_id = e.id
      WHERE e.is_active ORDER BY e.id`,
  );
  const found: FoundChange[] = [];
  for (const { id, filter, computed } of ecosystems) {
    const edited = computed !== filter;
    if (!edited && !pass.everything && pass.touched.size === 0) continue;
    const only = edited || pass.everything || pass.touched.size > WHOLE_ABOVE ? undefined : [...pass.touched.keys()];
    found.push(...(await guarded(id, async () => {
      const differences = await recompute(pass.tx, id, filter, only);
      if (edited) await noteComputed(pass.tx, id, filter);
      return computed === null ? [] : attribute(pass, differences, edited ? pass.edited.get(id) ?? pass.head : undefined);
    })));
  }
  return found;
}

/**
 * Ecosystems deactivated since the last pass: the differences of the entities whose changes in the
 * pass all came before the deactivation (their state then is the present) are reported; then the
 * members are dropped, silently (taken again as a starting point if the ecosystem is activated again).
 */
async function closeDeactivated(pass: Pass, guarded: Guard): Promise<FoundChange[]> {
  const closing = await pass.tx.query<{ id: number; filter: string }>(
    `SELECT e.id, e.filter FROM ecosystems e JOIN ecosystem_memberships m ON m.ecosystem_id = e.id AND m.filter = e.filter
      WHERE NOT e.is_active ORDER BY e.id`,
  );
  const found: FoundChange[] = [];
  for (const { id, filter } of closing) {
    const at = pass.edited.get(id);
    if (at === undefined || pass.everything) continue;
    const before = [...pass.touched].filter(([, position]) => BigInt(position) < BigInt(at)).map(([entityId]) => entityId);
    if (before.length) found.push(...(await guarded(id, async () => attribute(pass, await recompute(pass.tx, id, filter, before)))));
  }
  await pass.tx.query('DELETE FROM ecosystem_memberships m USING ecosystems e WHERE e.id = m.ecosystem_id AND NOT e.is_active');
  await pass.tx.query('DELETE FROM ecosystem_members m USING ecosystems e WHERE e.id = m.ecosystem_id AND NOT e.is_active');
  return found;
}
