/**
 * The changes feed: one page of changes after a place, in commit order, as clients see them. One
 * statement reads the page, the head of the feed and how far retention has pruned, all in one snapshot,
 * so a page that ends short can move the cursor to the head: everything up to it was read.
 */
import type { GraphQLSchema } from 'graphql';
import type { CancelSignal, SqlClient } from '../db/client.ts';
import { AppError } from '../errors.ts';
import { afterPlaceSql, encodePlace, endOf, isBefore, notACursor, type FeedPlace } from './cursor.ts';
import { recordFields, type ChangeKind, type ChangeResource } from './resources.ts';

export interface ChangeRequest {
  /** Where to continue: after this place; undefined for the oldest retained change; `now` for the head. */
  since: FeedPlace | 'now' | undefined;
  types: readonly ChangeResource[];
  limit: number;
}

export interface ApiChange {
  id: string;
  type: `${ChangeResource}.${ChangeKind}`;
  object_id: number;
  occurred_at: Date;
  changed_fields: string[];
}

export interface ChangePage {
  data: ApiChange[];
  page: { limit: number; next_cursor: string };
}

/** A change as stored: the commit's place, the record, the columns (or list fields) that changed. */
export interface StoredChange {
  position: string;
  resource: ChangeResource;
  kind: ChangeKind;
  object_id: number;
  changed_columns: string[] | null;
  committed_at: string;
}

interface FeedRow {
  head: string;
  pruned: string;
  /** A read replica answered (its head may lag the primary's, where a cursor may come from). */
  replica: boolean;
  changes: StoredChange[] | null;
}

/**
 * Changes after the place ($1, $2, $3), or after what retention pruned when $1 is null; oldest first,
 * `limit` ($5) at most, of the resources $4; in one snapshot with the head and the pruned position.
 * The resources are a filter, not a condition of the index: beside the place's range (afterPlaceSql)
 * PostgreSQL made `resource = ANY ($4)` the index's condition and read the place's commit whole.
 */
export const FEED_STATEMENT = `
  SELECT (SELECT position FROM change_clock)::text AS head, r.position::text AS pruned, pg_is_in_recovery() AS replica,
         (SELECT json_agg(json_build_object('position', p.position::text, 'resource', p.resource, 'kind', p.kind,
                                            'object_id', p.object_id, 'changed_columns', p.changed_columns,
                                            'committed_at', p.committed_at) ORDER BY p.position, p.resource, p.object_id) FROM (
            SELECT cc.position, c.resource, c.kind, c.object_id, c.changed_columns, cc.committed_at
              FROM change_commits cc JOIN changes c ON c.xid = cc.xid AND ${afterPlaceSql('$1::bigint', '$2::text', '$3::int')}
             WHERE cc.position >= coalesce($1::bigint, r.position + 1)
               AND array_position($4::text[], c.resource::text) IS NOT NULL
             ORDER BY cc.position, c.resource, c.object_id
             LIMIT $5) p) AS changes
    FROM change_retention r`;

export async function readChangePage(
  sql: Pick<SqlClient, 'prepared'>,
  schema: GraphQLSchema,
  request: ChangeRequest,
  signal?: CancelSignal,
): Promise<ChangePage> {
  const after = request.since === 'now' ? undefined : request.since;
  const [row] = await sql.prepared<FeedRow>(FEED_STATEMENT, [
    after ? String(after.position) : null,
    after?.resource ?? null,
    after?.objectId ?? null,
    request.types,
    request.since === 'now' ? 0 : request.limit,
  ], signal);
  const pruned = endOf(BigInt(row!.pruned));
  const head = endOf(BigInt(row!.head));
  if (request.since === 'now') return { data: [], page: { limit: request.limit, next_cursor: encodePlace(head) } };
  // The head is read in the page's snapshot, and commits only ever move it forward: a cursor this
  // feed handed out (at a head read earlier) is never past it. On a replica, one from the primary may be.
  if (after && after.position > head.position && !row!.replica) throw notACursor('since');
  if (after && isBefore(after, pruned)) {
    throw new AppError('CURSOR_EXPIRED', 'This cursor is older than the changes kept (CHANGES_RETENTION_DAYS); read everything again, then follow from `since=now`');
  }
  const changes = row!.changes ?? [];
  const last = changes.at(-1);
  // A short page read everything up to the head in its snapshot: the next one starts there.
  const next = changes.length === request.limit && last ? placeOf(last) : maxPlace(after ?? pruned, head);
  return {
    data: changes.map((change) => apiChange(schema, change)),
    page: { limit: request.limit, next_cursor: encodePlace(next) },
  };
}

const maxPlace = (a: FeedPlace, b: FeedPlace): FeedPlace => (isBefore(a, b) ? b : a);

const placeOf = (change: StoredChange): FeedPlace => ({
  position: BigInt(change.position),
  resource: change.resource,
  objectId: change.object_id,
});

/** A stored change as clients see it: the record's field names, not the table's columns. */
export function apiChange(schema: GraphQLSchema, change: StoredChange): ApiChange {
  const fields = recordFields(schema, change.resource);
  const changed =
    change.kind === 'created'
      ? [...fields.all]
      : [...new Set((change.changed_columns ?? []).map(fields.fieldOf).filter((name): name is string => name !== undefined))].sort();
  return {
    id: encodePlace(placeOf(change)),
    type: `${change.resource}.${change.kind}`,
    object_id: change.object_id,
    occurred_at: new Date(change.committed_at),
    changed_fields: changed,
  };
}
