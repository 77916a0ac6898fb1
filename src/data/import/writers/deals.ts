import { entityIdOf } from '../schemas/common.ts';
import type { TransactionRecord, ValuationRecord } from '../schemas/deal.ts';
import { type Column, insertRows, replaceChildren, upsertById } from '../../sql/unnest.ts';
import { assertReferencesExist, type Parsed, type Reference, type WriteContext } from './context.ts';

interface RoundRow {
  id: number;
  slug: string;
  entity_id: number;
  round_type: string;
  amount_usd: string | null;
  currency: string;
  date: string;
  valuation_usd: string | null;
  source_url: string;
  created_at: string | null;
}

const ROUND_COLUMNS: Column<RoundRow>[] = [
  { name: 'id', type: 'int' },
  { name: 'slug', type: 'text' },
  { name: 'entity_id', type: 'int' },
  { name: 'round_type', type: 'text' },
  { name: 'amount_usd', type: 'bigint' },
  { name: 'currency', type: 'text' },
  { name: 'date', type: 'date' },
  { name: 'valuation_usd', type: 'bigint' },
  { name: 'source_url', type: 'text' },
  { name: 'created_at', type: 'timestamptz' },
];

interface RoundInvestorRow {
  round_id: number;
  investor_id: number;
  is_lead: boolean;
}

const ROUND_INVESTOR_COLUMNS: Column<RoundInvestorRow>[] = [
  { name: 'round_id', type: 'int' },
  { name: 'investor_id', type: 'int' },
  { name: 'is_lead', type: 'bool' },
];

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
  const rows: RoundRow[] = records.map((r) => ({
    ...r,
    slug: r.slug ?? `transaction-${r.id}`,
    entity_id: entityIdOf(r) ?? 0,
  }));
  await upsertById(context.tx, { table: 'funding_rounds', columns: ROUND_COLUMNS, timestamps: { created: true } }, rows);
  await replaceChildren(
    context.tx,
    { table: 'round_investors', parentColumn: 'round_id', key: ['round_id', 'investor_id'], columns: ROUND_INVESTOR_COLUMNS },
    records.map((r) => r.id),
    records.flatMap((r) => r.investors.map((i) => ({ round_id: r.id, investor_id: i.id, is_lead: i.is_lead }))),
  );
}

interface ValuationRow {
  id: number;
  slug: string;
  entity_id: number;
  valuation_usd: string | null;
  date: string;
  source: string;
  transaction_id: number | null;
}

const VALUATION_COLUMNS: Column<ValuationRow>[] = [
  { name: 'id', type: 'int' },
  { name: 'slug', type: 'text' },
  { name: 'entity_id', type: 'int' },
  { name: 'valuation_usd', type: 'bigint' },
  { name: 'date', type: 'date' },
  { name: 'source', type: 'text' },
  { name: 'transaction_id', type: 'int' },
];

export async function writeValuations(context: WriteContext, batch: readonly Parsed<ValuationRecord>[]): Promise<void> {
  await assertReferencesExist(context, 'entities', entityReferences(batch));
  await assertReferencesExist(
    context,
    'funding_rounds',
    batch.flatMap(({ line, record }) =>
      record.transaction_id === null ? [] : [{ id: record.transaction_id, line, path: 'transaction_id' }],
    ),
  );
  const rows: ValuationRow[] = batch.map(({ record }) => ({
    ...record,
    slug: record.slug ?? `valuation-${record.id}`,
    entity_id: entityIdOf(record) ?? 0,
  }));
  await upsertById(context.tx, { table: 'valuations', columns: VALUATION_COLUMNS }, rows);
}
