/**
 * The changes feed: one page of changes after a place, in commit order, as clients see them. One
 * statement reads the page, the head of the feed and how far retention has pruned, all in one snapshot,
 * so a page that ends short can move the cursor to the head: everything up to it was read.
 */
import type { GraphQLSchema } from 'graphql';
import type { SqlClient } from '../db/client.ts';
import { AppError } from '../errors.ts';
import { END_OF_COMMIT, encodePlace, isBefore, type FeedPlace } from './cursor.ts';
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
  seq: string;
  resource: ChangeResource;
  kind: ChangeKind;
  object_id: number;
  changed_columns: string[] | null;
  committed_at: string;
}

interface FeedRow {
  head: string;
  pruned_position: string;
  pruned_seq: string;
  changes: StoredChange[] | null;
}

/**
 * Changes after ($1, $2), or after what retention pruned when they are null; oldest first, `limit` at
 * most, of `types`; in one snapshot with the head and the pruned place.
 */
export const FEED_STATEMENT = `
  SELECT (SELECT position FROM change_clock)::text AS head,
         r.position::text AS pruned_position, r.seq::text AS pruned_seq,
         (SELECT json_agg(json_build_object('position', p.position::text, 'seq', p.seq::text, 'resource', p.resource,
                                            'kind', p.kind, 'object_id', p.object_id, 'changed_columns', p.changed_columns,
                                            'committed_at', p.committed_at) ORDER BY p.position, p.seq) FROM (
            SELECT cc.position, c.seq, c.resource, c.kind, c.object_id, c.changed_columns, cc.committed_at
              FROM change_commits cc JOIN changes c ON c.xid = cc.xid
             WHERE cc.position >= coalesce($1::bigint, r.position)
               AND (cc.position > coalesce($1::bigint, r.position) OR c.seq > coalesce($2::bigint, r.seq))
               AND c.resource = ANY ($3::text[])
             ORDER BY cc.position, c.seq
             LIMIT $4) p) AS changes
    FROM change_retention r`;

export async function readChangePage(
  sql: Pick<SqlClient, 'prepared'>,
  schema: GraphQLSchema,
  request: ChangeRequest,
  signal?: AbortSignal,
): Promise<ChangePage> {
  const after = request.since === 'now' ? undefined : request.since;
  const [row] = await sql.prepared<FeedRow>(FEED_STATEMENT, [
    after ? String(after.position) : null,
    after ? String(after.seq) : null,
    request.types,
    request.since === 'now' ? 0 : request.limit,
  ], signal);
  const pruned: FeedPlace = { position: BigInt(row!.pruned_position), seq: BigInt(row!.pruned_seq) };
  const head: FeedPlace = { position: BigInt(row!.head), seq: END_OF_COMMIT };
  if (request.since === 'now') return { data: [], page: { limit: request.limit, next_cursor: encodePlace(head) } };
  if (after && isBefore(after, pruned)) {
    throw new AppError('CURSOR_EXPIRED', 'This cursor is older than the changes kept (CHANGES_RETENTION_DAYS); read everything again, then follow from `since=now`');
  }
  const changes = row!.changes ?? [];
  const last = changes.at(-1);
  // A short page read everything up to the head in its snapshot: the next one starts there.
  const next = changes.length === request.limit && last ? { position: BigInt(last.position), seq: BigInt(last.seq) } : maxPlace(after ?? pruned, head);
  return {
    data: changes.map((change) => apiChange(schema, change)),
    page: { limit: request.limit, next_cursor: encodePlace(next) },
  };
}

const maxPlace = (a: FeedPlace, b: FeedPlace): FeedPlace => (isBefore(a, b) ? b : a);

/** A stored change as clients see it: the record's field names, not the table's columns. */
export function apiChange(schema: GraphQLSchema, change: StoredChange): ApiChange {
  const fields = recordFields(schema, change.resource);
  const changed =
    change.kind === 'created'
      ? [...fields.all]
      : [...new Set((change.changed_columns ?? []).map(fields.fieldOf).filter((name): name is string => name !== undefined))].sort();
  return {
    id: encodePlace({ position: BigInt(change.position), seq: BigInt(change.seq) }),
    type: `${change.resource}.${change.kind}`,
    object_id: change.object_id,
    occurred_at: new Date(change.committed_at),
    changed_fields: changed,
  };
}
