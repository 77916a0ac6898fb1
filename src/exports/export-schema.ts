/**
 * Exports over GraphQL, and the REST rows mapped onto them (docs/exports.md): ask for
 * one (202 with Location), read it, list the organisation's, cancel or delete it. Its files are
 * downloaded over REST only (src/http/export-files.ts); their URLs are in `files`.
 */
import { ANY_CALLER } from '../auth/permissions.ts';
import { requirePrincipal } from '../auth/principal.ts';
import { notFound } from '../errors.ts';
import { builder } from '../schema/builder.ts';
import { example } from '../schema/field-facts.ts';
import { listType, parseWindow } from '../schema/list.ts';
import { declareResource } from '../schema/resource.ts';
import type { GraphQLContext } from '../schema/context.ts';
import { cancelExport, createExport, EXPORT_CREATE, parseExportInput } from './create.ts';
import { EXPORT_FORMATS, EXPORT_RESOURCES } from './resources.ts';
import { EXPORT_STATUSES, listExports, readExport, type ApiExport } from './store.ts';

export const EXPORT_LIST_MAX_LIMIT = 100;

export const EXPORTS = declareResource({
  name: 'exports',
  description: 'A whole resource as files (NDJSON, CSV, Parquet), full or incremental, consistent with the changes feed.',
  // Reading an export of the organisation needs no permission of its own; asking for one needs read:<resource>, as the list.
  read: ANY_CALLER,
  tenant: { Export: { column: 'org_id' }, ExportFile: { through: 'export' }, ExportFilePart: { through: 'export' } },
  lists: [{ typeName: 'Export', maxLimit: EXPORT_LIST_MAX_LIMIT }],
  rest: [
    { method: 'GET', path: '/api/exports', operation: 'ListExports', kind: 'page' },
    {
      method: 'POST',
      path: '/api/exports',
      operation: 'CreateExport',
      kind: 'accepted',
      noun: 'Export',
      body: (body) => ({ input: parseExportInput(body, 'body') }),
      bodySchema: EXPORT_CREATE,
      headers: (header) => ({ idempotency_key: header('idempotency-key') }),
      argumentNames: { input: '' },
      // 410: a `since` older than the changes kept; 422: an Idempotency-Key used with another body.
      errors: [410, 422],
    },
    { method: 'GET', path: '/api/exports/{id}', operation: 'GetExport', kind: 'record', noun: 'Export' },
    { method: 'DELETE', path: '/api/exports/{id}', operation: 'DeleteExport', kind: 'deleted' },
  ],
});

const ExportColumn = builder.objectRef<ApiExport['columns'][number]>('ExportColumn').implement({
  extensions: EXPORTS.owns(),
  description: "A column of the export's files: a field of the list's record and its type",
  fields: (t) => ({
    name: t.exposeString('name', example('total_funding_usd')),
    type: t.exposeString('type', {
      description: 'integer, number, string, boolean, date-time, date, object, or array<...> of one of them (Parquet: INT64, DOUBLE, UTF8, BOOLEAN, TIMESTAMP UTC, DATE, STRUCT, LIST)',
      ...example('integer'),
    }),
  }),
});

const ExportFile = builder.objectRef<ApiExport['files'][number]>('ExportFile').implement({
  extensions: EXPORTS.owns(),
  description: 'A file of a finished export (at most 1,000,000 rows)',
  fields: (t) => ({
    n: t.exposeInt('n', { description: 'Its number, from 1', ...example(1) }),
    url: t.exposeString('url', { description: 'Where to download it (Range requests answered)', ...example('/api/exports/12/files/1') }),
    bytes: t.exposeInt('bytes', example(48213)),
    sha256: t.exposeString('sha256', { description: 'Hex SHA-256 of its bytes: also its ETag', ...example('9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08') }),
    rows: t.exposeInt('rows', example(1000)),
  }),
});

const ExportError = builder.objectRef<NonNullable<ApiExport['error']>>('ExportError').implement({
  extensions: EXPORTS.owns(),
  description: 'Why an export failed',
  fields: (t) => ({
    code: t.exposeString('code', example('FORBIDDEN')),
    message: t.exposeString('message', example('This request needs read:investors')),
  }),
});

export const Export = builder.objectRef<ApiExport>('Export').implement({
  extensions: EXPORTS.owns(),
  description: 'An export of a resource as files, and how far its job has come',
  fields: (t) => ({
    id: t.exposeInt('id', example(12)),
    resource: t.exposeString('resource', { description: EXPORT_RESOURCES.join(', '), ...example('entities') }),
    format: t.exposeString('format', { description: EXPORT_FORMATS.join(', '), ...example('parquet') }),
    filter: t.exposeString('filter', { nullable: true, description: "The list's filter expression", ...example('hq_country:Germany') }),
    fields: t.exposeStringList('fields', { nullable: true, description: "The list's fields (id always)", ...example(['name', 'website']) }),
    since: t.exposeString('since', { nullable: true, description: 'Incremental: the changes cursor it starts after', ...example(null) }),
    status: t.exposeString('status', { description: EXPORT_STATUSES.join(', '), ...example('succeeded') }),
    rows_written: t.exposeInt('rows_written', example(1000)),
    rows_estimated: t.exposeInt('rows_estimated', { nullable: true, ...example(1000) }),
    progress: t.exposeFloat('progress', { description: '0 to 1', ...example(1) }),
    cursor: t.exposeString('cursor', {
      nullable: true,
      description: 'The changes cursor the files are consistent with: follow GET /api/changes?since= from it, or pass it as the next export\'s `since`',
      ...example('MTIzNC5-LjA'),
    }),
    columns: t.field({ type: [ExportColumn], resolve: (row) => row.columns }),
    files: t.field({ type: [ExportFile], description: 'Its files, once it succeeded', resolve: (row) => row.files }),
    error: t.field({ type: ExportError, nullable: true, resolve: (row) => row.error, ...example(null) }),
    created_at: t.expose('created_at', { type: 'DateTime', ...example('2026-11-28T09:00:00.000Z') }),
    started_at: t.expose('started_at', { type: 'DateTime', nullable: true, ...example('2026-11-28T09:00:01.000Z') }),
    finished_at: t.expose('finished_at', { type: 'DateTime', nullable: true, ...example('2026-11-28T09:00:09.000Z') }),
    expires_at: t.expose('expires_at', { type: 'DateTime', nullable: true, description: 'When its files are deleted (EXPORT_RETENTION_DAYS)', ...example('2026-12-05T09:00:09.000Z') }),
  }),
});

const ExportInput = builder.inputType('ExportInput', {
  fields: (t) => ({
    resource: t.string({ required: true, description: EXPORT_RESOURCES.join(', ') }),
    format: t.string({ required: true, description: EXPORT_FORMATS.join(', ') }),
    filter: t.string({ description: "The resource's list filter" }),
    fields: t.stringList({ description: "The list's fields (id always)" }),
    since: t.string({ description: 'A changes cursor: only what changed after it, with tombstones' }),
  }),
});

const ExportList = listType('Export', Export);

const services = (context: GraphQLContext) => {
  if (!context.exports) throw new Error('Exports are not wired into this context');
  return context.exports;
};

const stripNulls = (input: Record<string, unknown>) => Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null && value !== undefined));

builder.queryFields((t) => ({
  exports: t.field({
    type: ExportList,
    extensions: EXPORTS.reads,
    description: "The organisation's exports, newest first",
    args: { limit: t.arg.int(), offset: t.arg.int() },
    resolve: async (_root, args, context) => {
      const window = parseWindow(args, EXPORT_LIST_MAX_LIMIT);
      const { data, total } = await listExports(services(context).sql, requirePrincipal(context.principal).orgId, window.limit, window.offset);
      return { data, page: { ...window, next_cursor: null, count: total } };
    },
  }),
  export: t.field({
    type: Export,
    nullable: true,
    extensions: EXPORTS.reads,
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, context) => (await readExport(services(context).sql, requirePrincipal(context.principal).orgId, args.id)) ?? null,
  }),
}));

builder.mutationFields((t) => ({
  createExport: t.field({
    type: Export,
    extensions: EXPORTS.writes,
    description: 'Asks for an export; it runs in the background (poll `export(id)`, or hear export.succeeded)',
    args: {
      input: t.arg({ type: ExportInput, required: true }),
      idempotency_key: t.arg.string({ description: 'The same key and input answer the same export' }),
    },
    resolve: async (_root, args, context) => {
      const principal = requirePrincipal(context.principal);
      const { sql, readList, wake } = services(context);
      const input = parseExportInput(stripNulls(args.input as Record<string, unknown>), 'input');
      const row = await createExport({ sql, readList, principal, input, idempotencyKey: args.idempotency_key ?? undefined, prefix: 'input' });
      wake();
      return (await readExport(sql, principal.orgId, row.id))!;
    },
  }),
  deleteExport: t.boolean({
    extensions: EXPORTS.writes,
    description: 'Cancels a queued or running export, or deletes a finished one\'s files',
    args: { id: t.arg.int({ required: true }) },
    resolve: async (_root, args, context) => {
      if (!(await cancelExport(services(context).sql, requirePrincipal(context.principal).orgId, args.id))) throw notFound('Export');
      return true;
    },
  }),
}));
