/** A match request answered: one statement for the batch, then each record weighed on its own. */
import type { CancelSignal, SqlClient } from '../db/client.ts';
import type { MatchRequest } from './input.ts';
import { decide, type MatchResult } from './score.ts';
import { findCandidates, type CandidateRow } from './statement.ts';

export async function runMatch(sql: Pick<SqlClient, 'prepared'>, request: MatchRequest, signal?: CancelSignal): Promise<MatchResult[]> {
  const rows = await findCandidates(sql, request.records, signal);
  const byRecord = new Map<number, CandidateRow[]>();
  for (const row of rows) {
    const list = byRecord.get(row.idx);
    if (list) list.push(row);
    else byRecord.set(row.idx, [row]);
  }
  return request.records.map((record, index) => decide(record, byRecord.get(index) ?? [], request.minConfidence));
}
