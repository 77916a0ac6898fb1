/** The rows of one seeding batch, written in foreign-key order in one transaction. */
import { tableOf, type ModelName } from '../../db/datamodel.ts';
import { carriedColumns, insertRows, type SqlTx } from '../sql/unnest.ts';
import {
  type EducationRow,
  type EntityRow,
  type ExternalIdRow,
  type FounderCompanyRow,
  type FounderRow,
  type NewsEntityRow,
  type NewsRow,
  type PairRow,
  type RoundInvestorRow,
  type RoundRow,
  type ValuationRow,
} from './rows.ts';

export class SeedBatch {
  readonly entities: EntityRow[] = [];
  readonly entityTags: PairRow[] = [];
  readonly externalIds: ExternalIdRow[] = [];
  readonly investorIds: number[] = [];
  readonly founders: FounderRow[] = [];
  readonly founderCompanies: FounderCompanyRow[] = [];
  readonly education: EducationRow[] = [];
  readonly founderBackgrounds: PairRow[] = [];
  readonly founderTags: PairRow[] = [];
  readonly rounds: RoundRow[] = [];
  readonly roundInvestors: RoundInvestorRow[] = [];
  readonly valuations: ValuationRow[] = [];
  readonly news: NewsRow[] = [];
  readonly newsEntities: NewsEntityRow[] = [];
}

async function insertPairs(tx: SqlTx, table: string, a: string, b: string, rows: PairRow[]): Promise<void> {
  if (rows.length === 0) return;
  await tx.query(`INSERT INTO ${table} (${a}, ${b}) SELECT * FROM unnest($1::int[], $2::int[])`, [
    rows.map((row) => row.a),
    rows.map((row) => row.b),
  ]);
}

async function insertEducation(tx: SqlTx, rows: EducationRow[]): Promise<void> {
  if (rows.length === 0) return;
  const names = ['id', 'founder_id', 'university_id', 'degree', 'year_start', 'year_end', 'majors'] as const;
  await tx.query(
    `INSERT INTO founder_education (id, founder_id, university_id, degree, year_start, year_end, majors)
     SELECT u.id, u.founder_id, u.university_id, u.degree, u.year_start, u.year_end,
            ARRAY(SELECT jsonb_array_elements_text(u.majors::jsonb))
       FROM unnest($1::int[], $2::int[], $3::int[], $4::text[], $5::int[], $6::int[], $7::text[])
         AS u(id, founder_id, university_id, degree, year_start, year_end, majors)`,
    names.map((name) => rows.map((row) => row[name])),
  );
}

/** Rows of `model` with the columns they carry; the others keep their defaults. */
function insertModelRows<Row extends object>(tx: SqlTx, model: ModelName, rows: readonly Row[]): Promise<void> {
  return insertRows(tx, tableOf(model), carriedColumns(model, rows), rows);
}

export async function writeSeedBatch(tx: SqlTx, batch: SeedBatch): Promise<void> {
  await insertModelRows(tx, 'Entity', batch.entities);
  await insertPairs(tx, 'entity_tags', 'entity_id', 'tag_id', batch.entityTags);
  await insertModelRows(tx, 'EntityExternalId', batch.externalIds);
  if (batch.investorIds.length > 0) {
    await tx.query('INSERT INTO investors (id) SELECT unnest($1::int[])', [batch.investorIds]);
  }
  await insertModelRows(tx, 'Founder', batch.founders);
  await insertModelRows(tx, 'FounderCompany', batch.founderCompanies);
  await insertEducation(tx, batch.education);
  await insertPairs(tx, 'founder_backgrounds', 'founder_id', 'background_id', batch.founderBackgrounds);
  await insertPairs(tx, 'founder_tags', 'founder_id', 'tag_id', batch.founderTags);
  await insertModelRows(tx, 'FundingRound', batch.rounds);
  await insertModelRows(tx, 'RoundInvestor', batch.roundInvestors);
  await insertModelRows(tx, 'Valuation', batch.valuations);
  await insertModelRows(tx, 'NewsArticle', batch.news);
  await insertModelRows(tx, 'NewsEntity', batch.newsEntities);
}
