/**
 * Asking for an export, the same over REST and GraphQL. The body is checked (`resource`, `format`,
 * `fields`, `filter`, `since`), then the list itself is asked once, as the caller, for one row: so a
 * filter, a field or a permission (`investor__` needs read:investors) is refused exactly as the list
 * refuses it, with the body's paths. Then, in one transaction under the organisation's lock: the
 * Idempotency-Key's earlier export (the same body) or 422, the queue's bound (429), the insert.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Principal } from '../auth/principal.ts';
import { decodePlace, endOf, isBefore } from '../changes/cursor.ts';
import type { SqlClient } from '../db/client.ts';
import { AppError, relocated, validationError } from '../errors.ts';
import { parseInput } from '../management/input.ts';
import { checkNarrowable } from './narrow.ts';
import { findExport, insertExport, type ExportRow } from './store.ts';
import { EXPORT_FORMATS, EXPORT_RESOURCES, listPath } from './resources.ts';

/** More than this many queued exports of an organisation: 429. */
export const MAX_QUEUED = 20;
const RETRY_AFTER_SECONDS = '30';

export const EXPORT_CREATE = z.strictObject({
  resource: z.enum(EXPORT_RESOURCES as [string, ...string[]], { error: `must be one of ${EXPORT_RESOURCES.join(', ')}` }),
  format: z.enum(EXPORT_FORMATS, { error: `must be one of ${EXPORT_FORMATS.join(', ')}` }),
  filter: z.string({ error: 'must be a filter expression (a string)' }).max(10_000).optional(),
  fields: z.array(z.string({ error: 'must be a field name' }), { error: 'must be an array of field names' }).min(1).max(200).optional(),
  since: z.string({ error: 'must be a changes cursor' }).max(100).optional(),
}).meta({ examples: [{ resource: 'entities', format: 'parquet', filter: 'hq_country:Germany', fields: ['name', 'website', 'total_funding_usd'] }] });

export type ExportInput = z.output<typeof EXPORT_CREATE>;

export const parseExportInput = (body: unknown, prefix: string): ExportInput => parseInput(EXPORT_CREATE, body ?? {}, prefix);

/** One read of a list as a principal: the REST handler's answer, its JSON read (src/app.ts builds it). */
export type ReadList = (principal: Principal, path: string, query: Record<string, string>) => Promise<{ status: number; body: unknown }>;

/** The list's query for an export's rows (`fields` as the list takes them). */
export function listQuery(input: Pick<ExportInput, 'filter' | 'fields'>): Record<string, string> {
  return { ...(input.filter !== undefined ? { filter: input.filter } : {}), ...(input.fields ? { fields: input.fields.join(',') } : {}) };
}

/** The list's refusal, its paths and message the argument's (`query.fields` → `input.fields`, over REST `body.fields`). */
function refusal(status: number, body: unknown, prefix: string): AppError {
  const error = (body as { error?: { code: string; message: string; details?: { path: string; message: string }[] } }).error;
  if (!error) return new AppError('INTERNAL_ERROR', `The list answered ${status}`);
  const answered = new AppError(error.code as never, error.message, error.details ? { details: error.details } : {});
  return relocated(answered, (path) => path.replace(/^query\./, prefix ? `${prefix}.` : ''));
}

/** `since` as a place of the feed: 400 when it is none, 410 when retention pruned past it, as the feed. */
async function checkSince(sql: Pick<SqlClient, 'query'>, since: string, path: string): Promise<void> {
  const place = decodePlace(since, path);
  const [row] = await sql.query<{ head: string; pruned: string }>(
    'SELECT (SELECT position FROM change_clock)::text AS head, position::text AS pruned FROM change_retention',
  );
  if (place.position > BigInt(row!.head)) throw validationError([{ path, message: 'is not a cursor of this feed' }]);
  if (isBefore(place, endOf(BigInt(row!.pruned)))) {
    throw new AppError('CURSOR_EXPIRED', 'This cursor is older than the changes kept (CHANGES_RETENTION_DAYS); export everything again');
  }
}

const requestHash = (input: ExportInput): string =>
  createHash('sha256').update(JSON.stringify([input.resource, input.format, input.filter ?? null, input.fields ?? null, input.since ?? null])).digest('hex');

export interface CreateExportOptions {
  sql: SqlClient;
  readList: ReadList;
  principal: Principal;
  input: ExportInput;
  idempotencyKey: string | undefined;
  /** Where errors point: `body` over REST, `` (the argument) over GraphQL. */
  prefix: string;
}

export async function createExport({ sql, readList, principal, input, idempotencyKey, prefix }: CreateExportOptions): Promise<ExportRow> {
  const at = (name: string) => (prefix ? `${prefix}.${name}` : name);
  if (idempotencyKey !== undefined && !/^[\x21-\x7e]{1,255}$/.test(idempotencyKey)) {
    throw validationError([{ path: 'header.idempotency-key', message: 'must be 1 to 255 visible ASCII characters' }]);
  }
  if (input.since !== undefined) await checkSince(sql, input.since, at('since'));
  const probe = await readList(principal, listPath(input.resource as never), { ...listQuery(input), limit: '1', include_total: 'true' });
  if (probe.status !== 200) throw refusal(probe.status, probe.body, prefix);
  if (input.filter !== undefined) checkNarrowable(input.filter, at('filter'));
  const total = (probe.body as { page?: { total?: number } }).page?.total ?? null;
  const hash = requestHash(input);
  return sql.transaction(async (tx) => {
    // One creation at a time per organisation: the queue's bound and the key's uniqueness hold under concurrency.
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('exports:' || $1))", [principal.orgId]);
    if (idempotencyKey !== undefined) {
      const [earlier] = await tx.query<ExportRow>(
        'SELECT id, request_hash FROM exports WHERE org_id = $1 AND created_by = $2 AND idempotency_key = $3',
        [principal.orgId, principal.subject, idempotencyKey],
      );
      if (earlier) {
        if (earlier.request_hash !== hash) throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with another request body');
        return (await findExport(tx, principal.orgId, earlier.id))!;
      }
    }
    const [queued] = await tx.query<{ n: string }>("SELECT count(*)::text AS n FROM exports WHERE org_id = $1 AND status = 'queued'", [principal.orgId]);
    if (Number(queued!.n) >= MAX_QUEUED) {
      throw new AppError('RATE_LIMITED', `At most ${MAX_QUEUED} exports may wait; try again when one has started`, { headers: { 'Retry-After': RETRY_AFTER_SECONDS } });
    }
    return insertExport(tx, {
      orgId: principal.orgId,
      createdBy: principal.subject,
      principal: { subject: principal.subject, kind: principal.kind, clientId: principal.clientId, ...(principal.apiKey ? { apiKey: principal.apiKey } : {}), permissions: [...principal.permissions] },
      resource: input.resource,
      format: input.format,
      filter: input.filter ?? null,
      fields: input.fields ?? null,
      since: input.since ?? null,
      rowsEstimated: total,
      idempotencyKey: idempotencyKey ?? null,
      requestHash: hash,
    });
  });
}

/**
 * DELETE: a queued or running export is cancelled (its runner sees the lease gone at its next write
 * and stops); a finished one's files are deleted. False when the organisation has no such export.
 */
export async function cancelExport(sql: SqlClient, orgId: string, id: number): Promise<boolean> {
  return sql.transaction(async (tx) => {
    const [row] = await tx.query<{ status: string }>('SELECT status FROM exports WHERE org_id = $1 AND id = $2 FOR UPDATE', [orgId, id]);
    if (!row) return false;
    if (row.status === 'queued' || row.status === 'running') {
      await tx.query("UPDATE exports SET status = 'cancelled', finished_at = now(), lease_owner = NULL WHERE id = $1", [id]);
    }
    await tx.query('DELETE FROM export_file_parts WHERE export_id = $1', [id]);
    await tx.query('DELETE FROM export_files WHERE export_id = $1', [id]);
    return true;
  });
}
