/**
 * The changes feed over GraphQL and REST, declared once: `changes` and `GET /api/changes`
 * (docs/changes.md). Any caller may ask; which types it reads follows its read permissions
 * (src/changes/request.ts). Recording happens in the database (the `changes` migration).
 */
import { ANY_CALLER } from '../auth/permissions.ts';
import { requirePrincipal } from '../auth/principal.ts';
import { OWN_STATEMENT } from '../compile/operation.ts';
import { readChangePage, type ApiChange, type ChangePage } from './feed.ts';
import { changeParameters, readChangeRequest } from './request.ts';
import { builder } from '../schema/builder.ts';
import { declareResource } from '../schema/resource.ts';

export const CHANGES = declareResource({
  name: 'changes',
  description: 'Every create, update and delete of the data resources, in commit order: keep a copy in sync.',
  read: ANY_CALLER,
  // A replica replays commits in order: a page read there is a prefix of the primary's feed, and a
  // cursor from a replica further ahead only waits at the head of one behind it (never skips).
  replicaReads: true,
  rest: [
    {
      method: 'GET',
      path: '/api/changes',
      operation: 'ListChanges',
      kind: 'feed',
      query: [
        { name: 'since', type: 'string' },
        { name: 'types', type: 'string' },
        { name: 'limit', type: 'integer' },
      ],
      querySchema: changeParameters,
    },
  ],
});

const Change = builder.objectRef<ApiChange>('Change').implement({
  extensions: CHANGES.owns(),
  description: 'One create, update or delete of a record',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'Opaque; also a cursor: `since=<id>` continues after this change' }),
    type: t.exposeString('type', { description: '`<type>.created`, `<type>.updated` or `<type>.deleted`, e.g. `entity.updated`' }),
    object_id: t.exposeInt('object_id', { description: "The record's id" }),
    occurred_at: t.expose('occurred_at', { type: 'DateTime', description: 'When the writing transaction committed' }),
    changed_fields: t.exposeStringList('changed_fields', {
      description: "The record's fields that changed: all of them for a created record, none for a record removed outright",
    }),
  }),
});

const ChangeFeedPage = builder.objectRef<ChangePage['page']>('ChangeFeedPage').implement({
  extensions: CHANGES.owns(),
  fields: (t) => ({
    limit: t.exposeInt('limit'),
    next_cursor: t.exposeString('next_cursor', { description: 'Always present, also on an empty page: poll with it' }),
  }),
});

const ChangeFeed = builder.objectRef<ChangePage>('ChangeFeed').implement({
  extensions: CHANGES.owns(),
  description: 'A page of changes in commit order',
  fields: (t) => ({
    data: t.field({ type: [Change], resolve: (feed) => feed.data }),
    page: t.field({ type: ChangeFeedPage, resolve: (feed) => feed.page }),
  }),
});

builder.queryFields((t) => ({
  changes: t.field({
    type: ChangeFeed,
    extensions: { ...CHANGES.reads, ...OWN_STATEMENT },
    description: 'Changes of the data resources after `since`, in commit order: following `next_cursor` never skips or repeats one',
    args: {
      since: t.arg.string({ description: changeParameters.shape.since.description }),
      types: t.arg.string({ description: changeParameters.shape.types.description }),
      limit: t.arg.int({ description: changeParameters.shape.limit.description }),
    },
    resolve: (_root, args, context, info) =>
      readChangePage(context.sql, info.schema, readChangeRequest(requirePrincipal(context.principal), args), context.signal),
  }),
}));
