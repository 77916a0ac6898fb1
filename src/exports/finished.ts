/**
 * What follows an export's end, in one transaction: its webhook event (`export.succeeded` or
 * `export.failed`, `data: {export_id, resource, rows}`, heard only by its organisation's webhooks)
 * and its rows counted in usage as `rows_exported`, to the client that asked, on `POST /api/exports`.
 * The event id is the export's and outcome's, so a repeated call adds nothing.
 */
import { enqueueEvents } from '../changes/outbox.ts';
import type { SqlClient } from '../db/client.ts';
import type { ExportRow } from './store.ts';

export const EXPORT_ENDPOINT = 'POST /api/exports';

export async function exportFinished(sql: SqlClient, row: ExportRow, outcome: { status: 'succeeded' | 'failed'; rows: number }, now = new Date()): Promise<void> {
  await sql.transaction(async (tx) => {
    await enqueueEvents(tx, [
      {
        id: `evt_export_${row.id}_${outcome.status}`,
        type: `export.${outcome.status}`,
        occurredAt: now,
        data: { export_id: row.id, resource: row.resource, rows: outcome.rows },
        orgId: row.org_id,
      },
    ]);
    if (outcome.rows > 0) {
      await tx.query(
        `INSERT INTO usage_buckets AS usage (org_id, client_id, bucket, endpoint, rows_exported)
         VALUES ($1, $2, date_trunc('hour', $3::timestamptz, 'UTC'), $4, $5)
         ON CONFLICT (org_id, client_id, bucket, endpoint) DO UPDATE SET rows_exported = usage.rows_exported + excluded.rows_exported`,
        [row.org_id, row.principal.clientId, now.toISOString(), EXPORT_ENDPOINT, outcome.rows],
      );
    }
  });
}
