/**
 * The exports table: an export as clients see it, the caller's organisation's list, and the job's
 * state changes (claimed under a lease, finished, failed, cancelled, expired). Every read and change
 * is narrowed to an organisation by the caller, so another organisation's export is never found.
 */
import type { SqlClient, SqlTransaction } from '../db/client.ts';
import type { ExportColumn } from './columns.ts';
import { typeName } from './columns.ts';
import { listFiles, type StoredFile } from './file-store.ts';

export const EXPORT_STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled', 'expired'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

export interface ExportRow {
  id: number;
  org_id: string;
  created_by: string;
  principal: StoredPrincipal;
  resource: string;
  format: string;
  filter: string | null;
  fields: string[] | null;
  since: string | null;
  status: ExportStatus;
  rows_written: number;
  rows_estimated: number | null;
  cursor: string | null;
  columns: ExportColumn[] | null;
  error: { code: string; message: string } | null;
  request_hash: string | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  expires_at: Date | null;
}

/** The principal an export's job reads the list as (the permissions it had when it asked). */
export interface StoredPrincipal {
  subject: string;
  kind: 'api-key' | 'user';
  clientId: string;
  apiKey?: string;
  permissions: string[];
}

/** An export as the API shows it (REST and GraphQL): the stored row without what only the server reads. */
export type ApiExport = Omit<ExportRow, 'org_id' | 'created_by' | 'principal' | 'request_hash' | 'columns'> & {
  progress: number;
  columns: { name: string; type: string }[];
  files: { n: number; url: string; bytes: number; sha256: string; rows: number }[];
};

const COLUMNS = `id, org_id, created_by, principal, resource, format, filter, fields, since, status, rows_written, rows_estimated,
  cursor, columns, error, request_hash, created_at, started_at, finished_at, expires_at`;

export const fileUrl = (id: number, n: number): string => `/api/exports/${id}/files/${n}`;

function progressOf(row: ExportRow): number {
  if (row.status === 'succeeded') return 1;
  if (!row.rows_estimated) return 0;
  return Math.min(0.99, row.rows_written / row.rows_estimated);
}

export function toApiExport(row: ExportRow, files: readonly StoredFile[]): ApiExport {
  const shown = row.status === 'succeeded' ? files : [];
  return {
    id: row.id,
    resource: row.resource,
    format: row.format,
    filter: row.filter,
    fields: row.fields,
    since: row.since,
    status: row.status,
    rows_written: row.rows_written,
    rows_estimated: row.rows_estimated,
    progress: progressOf(row),
    cursor: row.cursor,
    columns: (row.columns ?? []).map((column) => ({ name: column.name, type: typeName(column.type) })),
    files: shown.map((file) => ({ ...file, url: fileUrl(row.id, file.n) })),
    error: row.error,
    created_at: new Date(row.created_at),
    started_at: row.started_at && new Date(row.started_at),
    finished_at: row.finished_at && new Date(row.finished_at),
    expires_at: row.expires_at && new Date(row.expires_at),
  };
}

/** Marks finished exports past their retention `expired` and drops their files (any instance, any read). */
export async function expireExports(sql: Pick<SqlClient, 'query'>): Promise<void> {
  const expired = await sql.query<{ id: number }>(
    `UPDATE exports SET status = 'expired' WHERE status = 'succeeded' AND expires_at <= now() RETURNING id`,
  );
  if (expired.length) {
    const ids = expired.map((row) => row.id);
    await sql.query('DELETE FROM export_file_parts WHERE export_id = ANY ($1::int[])', [ids]);
    await sql.query('DELETE FROM export_files WHERE export_id = ANY ($1::int[])', [ids]);
  }
}

export async function findExport(sql: Pick<SqlClient, 'query'>, orgId: string, id: number): Promise<ExportRow | undefined> {
  const [row] = await sql.query<ExportRow>(`SELECT ${COLUMNS} FROM exports WHERE org_id = $1 AND id = $2`, [orgId, id]);
  return row;
}

export async function readExport(sql: Pick<SqlClient, 'query'>, orgId: string, id: number): Promise<ApiExport | undefined> {
  await expireExports(sql);
  const row = await findExport(sql, orgId, id);
  return row && toApiExport(row, await listFiles(sql, row.id));
}

/** The organisation's exports, newest first. */
export async function listExports(sql: Pick<SqlClient, 'query'>, orgId: string, limit: number, offset: number): Promise<{ data: ApiExport[]; total: () => Promise<number> }> {
  await expireExports(sql);
  const rows = await sql.query<ExportRow>(`SELECT ${COLUMNS} FROM exports WHERE org_id = $1 ORDER BY id DESC LIMIT $2 OFFSET $3`, [orgId, limit, offset]);
  const data = await Promise.all(rows.map(async (row) => toApiExport(row, await listFiles(sql, row.id))));
  const total = async () => Number((await sql.query<{ n: string }>('SELECT count(*)::text AS n FROM exports WHERE org_id = $1', [orgId]))[0]!.n);
  return { data, total };
}

export interface NewExport {
  orgId: string;
  createdBy: string;
  principal: StoredPrincipal;
  resource: string;
  format: string;
  filter: string | null;
  fields: string[] | null;
  since: string | null;
  rowsEstimated: number | null;
  idempotencyKey: string | null;
  requestHash: string;
}

export async function insertExport(tx: SqlTransaction, input: NewExport): Promise<ExportRow> {
  const [row] = await tx.query<ExportRow>(
    `INSERT INTO exports (org_id, created_by, principal, resource, format, filter, fields, since, rows_estimated, idempotency_key, request_hash)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${COLUMNS}`,
    [input.orgId, input.createdBy, JSON.stringify(input.principal), input.resource, input.format, input.filter, input.fields, input.since,
      input.rowsEstimated, input.idempotencyKey, input.requestHash],
  );
  return row!;
}
