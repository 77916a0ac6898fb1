import type { FounderRecord } from '../schemas/founder.ts';
import { columnsOf, replaceChildren, upsertById } from '../../sql/unnest.ts';
import { assertReferencesExist, type Parsed, type WriteContext } from './context.ts';
import { cleanCityName } from '../resolve/city-names.ts';
import { defaultUuid } from './entities.ts';
import { replaceLinks } from './links.ts';

interface CompanyRow {
  founder_id: number;
  entity_id: number;
  is_founder: boolean;
  is_past: boolean;
  raw_title: string;
  year_start: number | null;
  year_end: number | null;
}

// A role's id is the database's (a serial): roles are matched by founder and entity.
const COMPANY_COLUMNS = columnsOf<CompanyRow>('FounderCompany', ['id']);

interface EducationRow {
  founder_id: number;
  university_id: number;
  degree: string;
  year_start: number | null;
  year_end: number | null;
  /** JSON text: unnest cannot carry an array per row, so majors travel as JSON and are unpacked in SQL. */
  majors: string;
}

export async function writeFounders(context: WriteContext, batch: readonly Parsed<FounderRecord>[]): Promise<void> {
  await assertReferencesExist(context, 'entities', [
    ...batch.flatMap(({ line, record }) =>
      record.companies.map((c, i) => ({ id: c.entity_id, line, path: `companies[${i}].entity_id` })),
    ),
    ...batch.flatMap(({ line, record }) =>
      record.education.map((e, i) => ({ id: e.university_id, line, path: `education[${i}].university_id` })),
    ),
  ]);
  const records = batch.map(({ record }) => ({ ...record, hq_city: cleanCityName(record.hq_city, record.hq_country) }));
  const countries = await context.locations.countryIds(records.map((r) => r.hq_country));
  const rows = records.map((r) => ({
    ...r,
    uuid: r.uuid ?? defaultUuid('founder', r.id),
    slug: r.slug ?? `founder-${r.id}`,
    location_country_id: r.hq_country ? (countries.get(r.hq_country) ?? null) : null,
  }));
  const columns = columnsOf<(typeof rows)[number]>('Founder');
  await upsertById(context.tx, { table: 'founders', columns, timestamps: { created: true, updated: true } }, rows);

  const ids = records.map((r) => r.id);
  await writeFounderTaxonomy(context, records);
  await replaceChildren(
    context.tx,
    { table: 'founder_companies', parentColumn: 'founder_id', key: ['founder_id', 'entity_id'], columns: COMPANY_COLUMNS },
    ids,
    records.flatMap((r) => r.companies.map((c) => ({ ...c, founder_id: r.id }))),
  );
  await writeEducation(context, records, ids);
}

async function writeFounderTaxonomy(context: WriteContext, records: FounderRecord[]): Promise<void> {
  await replaceLinks(context, context.tags, records, (r) => r.tags, {
    table: 'founder_tags',
    parentColumn: 'founder_id',
    childColumn: 'tag_id',
  });
  await replaceLinks(context, context.backgrounds, records, (r) => r.backgrounds, {
    table: 'founder_backgrounds',
    parentColumn: 'founder_id',
    childColumn: 'background_id',
  });
}

/**
 * Education rows have no natural key (two degrees at one university are fine), so a founder's list is
 * replaced as a whole, and only when it differs from the stored one: re-imports then write nothing.
 */
async function writeEducation(context: WriteContext, records: FounderRecord[], ids: number[]): Promise<void> {
  const stored = await context.tx.query<{ founder_id: number; list: unknown }>(
    `SELECT founder_id, json_agg(json_build_array(university_id, degree, year_start, year_end, majors) ORDER BY id) AS list
       FROM founder_education WHERE founder_id = ANY($1::int[]) GROUP BY founder_id`,
    [ids],
  );
  const storedLists = new Map(stored.map((row) => [row.founder_id, JSON.stringify(row.list)]));
  const changed = records.filter((r) => {
    const wanted = r.education.map((e) => [e.university_id, e.degree, e.year_start, e.year_end, e.majors]);
    return (storedLists.get(r.id) ?? '[]') !== JSON.stringify(wanted);
  });
  if (changed.length === 0) return;
  await context.tx.query(`DELETE FROM founder_education WHERE founder_id = ANY($1::int[])`, [changed.map((r) => r.id)]);
  const rows: EducationRow[] = changed.flatMap((r) =>
    r.education.map((e) => ({ ...e, founder_id: r.id, majors: JSON.stringify(e.majors) })),
  );
  if (rows.length === 0) return;
  const columns: (keyof EducationRow)[] = ['founder_id', 'university_id', 'degree', 'year_start', 'year_end', 'majors'];
  await context.tx.query(
    `INSERT INTO founder_education (founder_id, university_id, degree, year_start, year_end, majors)
     SELECT u.founder_id, u.university_id, u.degree, u.year_start, u.year_end,
            ARRAY(SELECT jsonb_array_elements_text(u.majors::jsonb))
       FROM unnest($1::int[], $2::int[], $3::text[], $4::int[], $5::int[], $6::text[])
         AS u(founder_id, university_id, degree, year_start, year_end, majors)`,
    columns.map((column) => rows.map((row) => row[column])),
  );
}
