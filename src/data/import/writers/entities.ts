import { domainOf } from '../../../identifiers/domain.ts';
import { uuidV5 } from '../../ids.ts';
import type { EntityRecord, InvestorRecord } from '../schemas/entity.ts';
import { columnsOf, insertRows, replaceChildren, upsertById } from '../../sql/unnest.ts';
import { cleanCityName } from '../resolve/city-names.ts';
import { cityKey } from '../resolve/locations.ts';
import { assertReferencesExist, type Parsed, type WriteContext } from './context.ts';
import { replaceLinks } from './links.ts';

/** What the importer computes after the rows are written (src/data/derived.ts), never taken from a record. */
const RECOMPUTED = ['total_funding_usd', 'is_unicorn'];

const LINKS = { table: 'entity_tags', parentColumn: 'entity_id', childColumn: 'tag_id' };

export async function writeEntities(context: WriteContext, batch: readonly Parsed<EntityRecord>[]): Promise<void> {
  // HQ cities are stored in the spelling of their location row (`San Francisco, CA` → `San Francisco`).
  const records = batch.map(({ record }) => ({ ...record, hq_city: cleanCityName(record.hq_city, record.hq_country) }));
  const countries = await context.locations.countryIds(records.map((r) => r.hq_country));
  const countryOf = (r: EntityRecord) => (r.hq_country ? (countries.get(r.hq_country) ?? null) : null);
  const cities = await context.locations.cityIds(records.map((r) => ({ city: r.hq_city, countryId: countryOf(r) })));
  const cityOf = (r: EntityRecord) => (r.hq_city ? cities.get(cityKey(r.hq_city, countryOf(r))) : undefined);

  const rows = records.map((r) => ({
    ...r,
    website_domain: domainOf(r.website),
    uuid: r.uuid ?? defaultUuid('entity', r.id),
    slug: r.slug ?? `entity-${r.id}`,
    hq_city: cityOf(r)?.name ?? r.hq_city,
    country_location_id: countryOf(r),
    city_location_id: cityOf(r)?.id ?? null,
  }));
  const columns = columnsOf<(typeof rows)[number]>('Entity', RECOMPUTED);
  await upsertById(context.tx, { table: 'entities', columns, timestamps: { created: true, updated: true } }, rows);

  await replaceLinks(context, context.tags, records, (r) => r.tags, LINKS);
  await replaceExternalIds(context, records);
}

interface ExternalIdRow {
  entity_id: number;
  source: string;
  external_id: string;
}

/** Each record's external ids become exactly its rows (duplicates collapsed). */
async function replaceExternalIds(context: WriteContext, records: readonly EntityRecord[]): Promise<void> {
  const rows = new Map<string, ExternalIdRow>();
  for (const record of records) {
    for (const { source, id } of record.external_ids) {
      rows.set(JSON.stringify([record.id, source, id]), { entity_id: record.id, source, external_id: id });
    }
  }
  await replaceChildren(
    context.tx,
    { table: 'entity_external_ids', parentColumn: 'entity_id', key: ['entity_id', 'source', 'external_id'], columns: columnsOf<ExternalIdRow>('EntityExternalId') },
    records.map((record) => record.id),
    [...rows.values()],
  );
}

/** An investor record makes its entity an investor; the profile's numbers are recomputed afterwards. */
export async function writeInvestors(context: WriteContext, batch: readonly Parsed<InvestorRecord>[]): Promise<void> {
  await assertReferencesExist(
    context,
    'entities',
    batch.map((item) => ({ id: item.record.id, line: item.line, path: 'id' })),
  );
  const rows = batch.map((item) => ({ id: item.record.id }));
  await insertRows(context.tx, 'investors', [{ name: 'id', type: 'int' }], rows, 'ON CONFLICT (id) DO NOTHING');
  await context.tx.query(`UPDATE entities SET is_investor = true WHERE id = ANY($1::int[]) AND NOT is_investor`, [
    rows.map((row) => row.id),
  ]);
}

/** Records without a uuid get one derived from their id, so re-importing them keeps it. */
export function defaultUuid(kind: string, id: number): string {
  return uuidV5(`${kind}:${id}`);
}
