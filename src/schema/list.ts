/**
 * Lists, the same on both transports: `{data, page}` with `page {limit, offset, total, next_cursor}`.
 * `total` runs its count query only when selected (REST selects it for include_total=true).
 */
import type { ObjectRef } from '@pothos/core';
import { accessOf } from '../auth/permissions.ts';
import { validationError, type ErrorDetail } from '../errors.ts';
import type { PageTotal } from '../sql/count.ts';
import { builder, type BuilderTypes } from './builder.ts';

export const DEFAULT_LIMIT = 25;

export interface PageShape {
  limit: number;
  offset: number;
  next_cursor: string | null;
  /** A number is exact; resource lists may answer with an estimate (src/sql/count.ts). Called once. */
  count: () => Promise<number | PageTotal>;
}

const totalOf = async (page: PageShape): Promise<PageTotal> => {
  const counted = await page.count();
  return typeof counted === 'number' ? { total: counted, estimated: false } : counted;
};

export interface ListShape<Item> {
  data: Item[];
  page: PageShape;
}

export const Page = builder.objectRef<PageShape>('Page').implement({
  fields: (t) => ({
    limit: t.exposeInt('limit'),
    offset: t.exposeInt('offset'),
    total: t.int({
      nullable: true,
      description: 'Number of matching records; counted only when selected (an estimate when total_is_estimate)',
      resolve: async (page) => (await totalOf(page)).total,
    }),
    total_is_estimate: t.boolean({
      nullable: true,
      description: 'True when `total` is PostgreSQL\'s estimate: the filter matches too many records to count cheaply',
      resolve: async (page) => (await totalOf(page)).estimated,
    }),
    next_cursor: t.exposeString('next_cursor', {
      nullable: true,
      description: 'Pass as `cursor` to continue after the last record; null on the last page',
    }),
  }),
});

/** `<Name>List {data: [<Name>!]!, page: Page!}`, guarded as its records are (its page counts them). */
export function listType<Item>(name: string, item: ObjectRef<BuilderTypes, Item>) {
  return builder.objectRef<ListShape<Item>>(`${name}List`).implement({
    extensions: accessOf('data'),
    fields: (t) => ({
      data: t.field({ type: [item], resolve: (list) => list.data }),
      page: t.field({ type: Page, resolve: (list) => list.page }),
    }),
  });
}

export interface ListArgs {
  filter?: string | null | undefined;
  sort?: string | null | undefined;
  limit?: number | null | undefined;
  offset?: number | null | undefined;
  cursor?: string | null | undefined;
}

export interface Window {
  limit: number;
  offset: number;
}

/** Checks limit and offset (never clamped: out of range is an error). Paths name the argument. */
export function parseWindow(args: ListArgs, maxLimit: number): Window {
  const details: ErrorDetail[] = [];
  const limit = args.limit ?? DEFAULT_LIMIT;
  const offset = args.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit) {
    details.push({ path: 'limit', message: `must be an integer from 1 to ${maxLimit}` });
  }
  if (!Number.isInteger(offset) || offset < 0) {
    details.push({ path: 'offset', message: 'must be an integer of 0 or more' });
  }
  if (args.cursor != null && args.offset != null) {
    details.push({ path: 'cursor', message: 'cannot be combined with offset' });
  }
  if (details.length) throw validationError(details);
  return { limit, offset };
}

/**
 * The arguments every list field takes, with the same meaning on both transports. Their examples name
 * only `id`, which every list has: GET /api/filters/{resource} lists each one's fields.
 */
export const listArgs = builder.args((t) => ({
  filter: t.string({
    description: 'Filter expression, e.g. `id[gte]:1000` or `and(id[gte]:1000, id[lt]:2000)`; GET /api/filters/{resource} lists the fields',
  }),
  sort: t.string({ description: 'Comma-separated fields, `-` for descending, e.g. `-id`' }),
  limit: t.int({ description: 'Records per page (default 25)' }),
  offset: t.int({ description: 'Records to skip (default 0); not with `cursor`' }),
  cursor: t.string({ description: '`page.next_cursor` of the previous page' }),
}));
