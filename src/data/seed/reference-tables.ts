/** The fixed rows (locations, tags, backgrounds), the empty-database guard and the final counts. */
import type { SqlClient } from '../../db/client.ts';
import type { SqlTx } from '../sql/unnest.ts';
import { BACKGROUNDS, COUNTRIES, TAGS } from './reference-data.ts';
import { PLACES } from './universe.ts';

export class SeedRefusedError extends Error {
  override name = 'SeedRefusedError';
}

/** Reference tables, children first; management data (keys, teams, ecosystems, landscapes) is not here. */
const REFERENCE_TABLES = [
  'news_entities', 'news_articles', 'valuations', 'round_investors', 'funding_rounds', 'investors',
  'founder_backgrounds', 'founder_tags', 'founder_education', 'founder_companies', 'founders', 'backgrounds',
  'entity_external_ids', 'entity_tags', 'landscape_entities', 'entities', 'tags', 'location_spellings', 'locations',
];

/**
 * Seeding adds rows with fixed ids, so it needs empty reference tables: it refuses otherwise, unless
 * `replace` asks to delete them first (landscapes lose their entity lists, as those entities go).
 */
export async function clearReferenceData(tx: SqlTx, replace: boolean): Promise<void> {
  const [row] = await tx.query<{ entities: number; others: boolean }>(
    `SELECT (SELECT COUNT(*) FROM entities)::int AS entities,
            EXISTS (SELECT 1 FROM founders) OR EXISTS (SELECT 1 FROM tags) OR EXISTS (SELECT 1 FROM locations) AS others`,
  );
  const hasData = (row?.entities ?? 0) > 0 || row?.others === true;
  if (!hasData) return;
  if (!replace) {
    throw new SeedRefusedError(
      `The database already holds reference data (${row?.entities ?? 0} entities). Seeding needs empty reference ` +
        'tables; run `seed --replace` to delete entities, founders, rounds, valuations, news, tags and locations ' +
        'first (API keys, teams and ecosystems are kept).',
    );
  }
  await tx.exec(`TRUNCATE ${REFERENCE_TABLES.join(', ')} RESTART IDENTITY`);
}

export async function writeTaxonomy(tx: SqlTx): Promise<void> {
  await tx.query(
    `INSERT INTO locations (id, kind, name, country_code, parent_id)
     SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::int[])`,
    [
      [...COUNTRIES.map((_, i) => i + 1), ...PLACES.map((p) => p.cityId)],
      [...COUNTRIES.map(() => 'country'), ...PLACES.map(() => 'city')],
      [...COUNTRIES.map((c) => c.name), ...PLACES.map((p) => p.city.name)],
      [...COUNTRIES.map((c) => c.code), ...PLACES.map(() => null)],
      [...COUNTRIES.map(() => null), ...PLACES.map((p) => p.countryId)],
    ],
  );
  await tx.query('INSERT INTO tags (id, name, type) SELECT * FROM unnest($1::int[], $2::text[], $3::text[])', [
    TAGS.map((_, i) => i + 1),
    TAGS.map((t) => t.name),
    TAGS.map((t) => t.type),
  ]);
  await tx.query('INSERT INTO backgrounds (id, name) SELECT * FROM unnest($1::int[], $2::text[])', [
    BACKGROUNDS.map((_, i) => i + 1),
    BACKGROUNDS,
  ]);
}

export async function countReferenceRows(sql: SqlClient) {
  const [row] = await sql.query<Record<string, number>>(
    `SELECT (SELECT COUNT(*) FROM entities)::int AS entities,
            (SELECT COUNT(*) FROM investors)::int AS investors,
            (SELECT COUNT(*) FROM founders)::int AS founders,
            (SELECT COUNT(*) FROM funding_rounds)::int AS transactions,
            (SELECT COUNT(*) FROM valuations)::int AS valuations,
            (SELECT COUNT(*) FROM news_articles)::int AS news`,
  );
  return {
    entities: row?.entities ?? 0,
    investors: row?.investors ?? 0,
    founders: row?.founders ?? 0,
    transactions: row?.transactions ?? 0,
    valuations: row?.valuations ?? 0,
    news: row?.news ?? 0,
  };
}
