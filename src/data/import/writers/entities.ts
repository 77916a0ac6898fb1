import { domainOf } from '../../../identifiers/domain.ts';
import { uuidV5 } from '../../ids.ts';
import type { EntityRecord, InvestorRecord } from '../schemas/entity.ts';
import { type Column, insertRows, replaceChildren, upsertById } from '../../sql/unnest.ts';
import { cleanCityName } from '../resolve/city-names.ts';
import { cityKey } from '../resolve/locations.ts';
import { assertReferencesExist, type Parsed, type WriteContext } from './context.ts';
import { replaceLinks } from './links.ts';

interface EntityRow {
  id: number;
  uuid: string;
  slug: string;
  type: string;
  is_company: boolean;
  is_investor: boolean;
  is_university: boolean;
  is_crowdfunding: boolean;
  is_government: boolean;
  is_non_profit: boolean;
  is_founder: boolean;
  name: string;
  tagline: string;
  image: string;
  platform_url: string;
  website: string;
  website_domain: string;
  launch_year: number | null;
  hq_country: string;
  hq_city: string;
  country_location_id: number | null;
  city_location_id: number | null;
  lat: number | null;
  lon: number | null;
  created_at: string | null;
  updated_at: string | null;
  deleted_at: string | null;
}

const ENTITY_COLUMNS: Column<EntityRow>[] = [
  { name: 'id', type: 'int' },
  { name: 'uuid', type: 'uuid' },
  { name: 'slug', type: 'text' },
  { name: 'type', type: 'text' },
  { name: 'is_company', type: 'bool' },
  { name: 'is_investor', type: 'bool' },
  { name: 'is_university', type: 'bool' },
  { name: 'is_crowdfunding', type: 'bool' },
  { name: 'is_government', type: 'bool' },
  { name: 'is_non_profit', type: 'bool' },
  { name: 'is_founder', type: 'bool' },
  { name: 'name', type: 'text' },
  { name: 'tagline', type: 'text' },
  { name: 'image', type: 'text' },
  { name: 'platform_url', type: 'text' },
  { name: 'website', type: 'text' },
  { name: 'website_domain', type: 'text' },
  { name: 'launch_year', type: 'int' },
  { name: 'hq_country', type: 'text' },
  { name: 'hq_city', type: 'text' },
  { name: 'country_location_id', type: 'int' },
  { name: 'city_location_id', type: 'int' },
  { name: 'lat', type: 'float8' },
  { name: 'lon', type: 'float8' },
  { name: 'created_at', type: 'timestamptz' },
  { name: 'updated_at', type: 'timestamptz' },
  { name: 'deleted_at', type: 'timestamptz' },
];

const LINKS = { table: 'entity_tags', parentColumn: 'entity_id', childColumn: 'tag_id' };

export async function writeEntities(context: WriteContext, batch: readonly Parsed<EntityRecord>[]): Promise<void> {
  // HQ cities are stored in the spelling of their location row (`San Francisco, CA` → `San Francisco`).
  const records = batch.map(({ record }) => ({ ...record, hq_city: cleanCityName(record.hq_city, record.hq_country) }));
  const countries = await context.locations.countryIds(records.map((r) => r.hq_country));
  const countryOf = (r: EntityRecord) => (r.hq_country ? (countries.get(r.hq_country) ?? null) : null);
  const cities = await context.locations.cityIds(records.map((r) => ({ city: r.hq_city, countryId: countryOf(r) })));
  const cityOf = (r: EntityRecord) => (r.hq_city ? cities.get(cityKey(r.hq_city, countryOf(r))) : undefined);

  const rows: EntityRow[] = records.map((r) => ({
    ...r,
    website_domain: domainOf(r.website),
    uuid: r.uuid ?? defaultUuid('entity', r.id),
    slug: r.slug ?? `entity-${r.id}`,
    hq_city: cityOf(r)?.name ?? r.hq_city,
    country_location_id: countryOf(r),
    city_location_id: cityOf(r)?.id ?? null,
  }));
  await upsertById(context.tx, { table: 'entities', columns: ENTITY_COLUMNS, timestamps: { created: true, updated: true } }, rows);

  await replaceLinks(context, context.tags, records, (r) => r.tags, LINKS);
  await replaceExternalIds(context, records);
}

interface ExternalIdRow {
  entity_id: number;
  source: string;
  external_id: string;
}

const EXTERNAL_ID_COLUMNS: Column<ExternalIdRow>[] = [
  { name: 'entity_id', type: 'int' },
  { name: 'source', type: 'text' },
  { name: 'external_id', type: 'text' },
];

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
    { table: 'entity_external_ids', parentColumn: 'entity_id', key: ['entity_id', 'source', 'external_id'], columns: EXTERNAL_ID_COLUMNS },
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
