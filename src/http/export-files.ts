/**
 * `GET /api/exports/{id}/files/{n}`: an export's file, from the database (any instance serves it),
 * a part at a time. `Content-Length`, `ETag` (its sha256), `Accept-Ranges: bytes`; one byte range
 * (`bytes=a-b`, `bytes=a-`, `bytes=-n`) answers 206 with `Content-Range`, one it cannot satisfy 416;
 * several ranges get the whole file (RFC 9110 lets a server ignore Range). A copy the client holds
 * (`If-None-Match` with the ETag) is 304; a resumed download's `If-Range` that is not the ETag gets the
 * whole file, as RFC 9110 has it. The caller is authenticated and rate-limited as for any request;
 * another organisation's export is 404, an expired one 410.
 */
import { AppError, notFound, validationError } from '../errors.ts';
import { listFiles, readRange } from '../exports/file-store.ts';
import { fileContentType, fileSuffix, type ExportFormat } from '../exports/resources.ts';
import { expireExports, findExport } from '../exports/store.ts';
import type { SqlClient } from '../db/client.ts';
import type { RestHandler } from '../rest/handler.ts';
import type { Exchange } from './exchange.ts';
import { isFresh, respond, respondStream } from './respond.ts';

export const EXPORT_FILE_PATH = /^\/api\/exports\/([^/]+)\/files\/([^/]+)\/?$/;

type Range = { start: number; end: number } | 'unsatisfiable' | undefined;

/** One range of a file of `size` bytes, or undefined for the whole file. */
export function parseRange(header: string | undefined, size: number): Range {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

/** Path ids as every /api path reads them: digits, at least 1, else 400; one past the ids' int4 range names nothing (404). */
const positive = (text: string, name: string): number => {
  if (!/^\d+$/.test(text) || Number(text) < 1) throw validationError([{ path: `path.${name}`, message: 'must be a positive integer' }]);
  return Number(text);
};
const MAX_ID = 2_147_483_647;

export async function serveExportFile(exchange: Exchange, handle: RestHandler, sql: SqlClient, match: RegExpExecArray): Promise<void> {
  if (exchange.method !== 'GET' && exchange.method !== 'HEAD') {
    throw new AppError('METHOD_NOT_ALLOWED', `${exchange.method} is not allowed on ${exchange.path}`, { headers: { Allow: 'GET, HEAD' } });
  }
  exchange.endpoint = 'GET /api/exports/{id}/files/{n}';
  const { principal } = await handle.begin(exchange);
  const id = positive(match[1]!, 'id');
  const n = positive(match[2]!, 'n');
  await expireExports(sql);
  const row = principal && id <= MAX_ID && n <= MAX_ID ? await findExport(sql, principal.orgId, id) : undefined;
  if (!row) throw notFound('Export');
  if (row.status === 'expired') throw new AppError('EXPORT_EXPIRED', 'This export\'s files were deleted after EXPORT_RETENTION_DAYS; ask for a new export');
  const file = row.status === 'succeeded' ? (await listFiles(sql, id)).find((candidate) => candidate.n === n) : undefined;
  if (!file) throw notFound('Export file');
  const etag = `"${file.sha256}"`;
  const common = {
    'Accept-Ranges': 'bytes',
    ETag: etag,
    'Content-Disposition': `attachment; filename="${row.resource}-${id}-${n}${fileSuffix[row.format as ExportFormat]}"`,
  };
  if (isFresh(exchange, etag)) return respond(exchange, { status: 304, headers: common });
  // The file has no Last-Modified: an If-Range that is a date, or another tag, asks for the whole file.
  const ifRange = exchange.header('if-range');
  const range = ifRange === undefined || ifRange.trim() === etag ? parseRange(exchange.header('range'), file.bytes) : undefined;
  const contentType = row.format === 'parquet' ? fileContentType.parquet : 'application/gzip';
  if (range === 'unsatisfiable') {
    throw new AppError('RANGE_NOT_SATISFIABLE', `Range not satisfiable: the file has ${file.bytes} bytes`, {
      headers: { 'Content-Range': `bytes */${file.bytes}` },
    });
  }
  const { start, end } = range ?? { start: 0, end: file.bytes - 1 };
  const headers = { ...common, 'Content-Length': String(end - start + 1), ...(range ? { 'Content-Range': `bytes ${start}-${end}/${file.bytes}` } : {}) };
  const destination = respondStream(exchange, range ? 206 : 200, headers, contentType);
  if (exchange.method === 'HEAD' || file.bytes === 0) return void destination.end();
  for await (const chunk of readRange(sql, id, n, start, end)) {
    if (!destination.write(chunk)) await new Promise((resolve) => destination.once('drain', resolve));
    if (exchange.signal?.aborted) break;
  }
  destination.end();
}
