import { entityIdOf } from '../schemas/common.ts';
import type { TransactionRecord, ValuationRecord } from '../schemas/deal.ts';
import { columnsOf, insertRows, replaceChildren, upsertById } from '../../sql/unnest.ts';
import { assertReferencesExist, type Parsed, type Reference, type WriteContext } from './context.ts';

function entityReferences<T extends { entity_id?: number | undefined; entity?: { id: number } | undefined }>(
  batch: readonly Parsed<T>[],
): Reference[] {
  return batch.map(({ line, record }) => ({
    id: entityIdOf(record) ?? 0,
    line,
    path: record.entity_id !== undefined ? 'entity_id' : 'entity.id',
  }));
}

export async function writeTransactions(
  context: WriteContext,
  batch: readonly Parsed<TransactionRecord>[],
): Promise<void> {
  const investorRefs = batch.flatMap(({ line, record }) =>
    record.investors.map((investor, i) => ({ id: investor.id, line, path: `investors[${i}].id` })),
  );
  await assertReferencesExist(context, 'entities', [...entityReferences(batch), ...investorRefs]);
  // Naming an entity as a round's investor makes it an investor: its profile must exist for the link.
  await insertRows(
    context.tx,
    'investors',
    [{ name: 'id', type: 'int' }],
    [...new Set(investorRefs.map((ref) => ref.id))].map((id) => ({ id })),
    'ON CONFLICT (id) DO NOTHING',
  );

  const records = batch.map((item) => item.record);
  const rows = records.map((r) => ({
    ...r,
    slug: r.slug ?? `transaction-${r.id}`,
    entity_id: entityIdOf(r) ?? 0,
  }));
  const columns = columnsOf<(typeof rows)[number]>('FundingRound');
  await upsertById(context.tx, { table: 'funding_rounds', columns, timestamps: { created: true } }, rows);
  await replaceChildren(
    context.tx,
    {
      table: 'round_investors',
      parentColumn: 'round_id',
      key: ['round_id', 'investor_id'],
      columns: columnsOf<{ round_id: number; investor_id: number; is_lead: boolean }>('RoundInvestor'),
    },
    records.map((r) => r.id),
    records.flatMap((r) => r.investors.map((i) => ({ round_id: r.id, investor_id: i.id, is_lead: i.is_lead }))),
  );
}

export async function writeValuations(context: WriteContext, batch: readonly Parsed<ValuationRecord>[]): Promise<void> {
  await assertReferencesExist(context, 'entities', entityReferences(batch));
  await assertReferencesExist(
    context,
    'funding_rounds',
    batch.flatMap(({ line, record }) =>
      record.transaction_id === null ? [] : [{ id: record.transaction_id, line, path: 'transaction_id' }],
    ),
  );
  const rows = batch.map(({ record }) => ({
    ...record,
    slug: record.slug ?? `valuation-${record.id}`,
    entity_id: entityIdOf(record) ?? 0,
  }));
  await upsertById(context.tx, { table: 'valuations', columns: columnsOf<(typeof rows)[number]>('Valuation') }, rows);
}
