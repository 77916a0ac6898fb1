/**
 * A match request answered: the statistics the comparisons are weighed by, then the candidates of
 * STATEMENT_RECORDS records at a time (one statement each), each record weighed on its own. Batches
 * of statements rather than one: the embedded database runs one statement at a time, and another
 * request waits for one of them, not for all 1,000 records.
 */
import type { CancelSignal, SqlClient } from '../db/client.ts';
import type { MatchRequest } from './input.ts';
import type { MatchModel } from './model.ts';
import { PARAMETERS } from './parameters.ts';
import { decide, type MatchResult } from './score.ts';
import { findCandidates, readStatistics, type CandidateRow } from './statement.ts';

/** Records per statement: a few hundred milliseconds of the embedded database's time at most. */
export const STATEMENT_RECORDS = 200;

export async function runMatch(
  sql: Pick<SqlClient, 'prepared'>,
  request: MatchRequest,
  signal?: CancelSignal,
  model: MatchModel = PARAMETERS,
): Promise<MatchResult[]> {
  const statistics = await readStatistics(sql, signal);
  const results: MatchResult[] = [];
  for (let start = 0; start < request.records.length; start += STATEMENT_RECORDS) {
    const records = request.records.slice(start, start + STATEMENT_RECORDS);
    const byRecord = groupByRecord(await findCandidates(sql, records, signal));
    records.forEach((record, index) => results.push(decide(record, byRecord.get(index) ?? [], statistics, model, request.minConfidence)));
  }
  return results;
}

export function groupByRecord(rows: readonly CandidateRow[]): Map<number, CandidateRow[]> {
  const byRecord = new Map<number, CandidateRow[]>();
  for (const row of rows) {
    const list = byRecord.get(row.idx);
    if (list) list.push(row);
    else byRecord.set(row.idx, [row]);
  }
  return byRecord;
}
