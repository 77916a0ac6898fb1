/**
 * Every reference record of the test database in the shape test/unit/filter/evaluate.ts documents, so
 * the differential test can evaluate a filter in memory over exactly the rows the API filters in SQL.
 *
 * Read through Prisma on purpose: the evaluator expects values as Prisma returns them (bigint money,
 * Decimal amounts, Dates for date columns at midnight UTC), and raw SQL drivers differ on those
 * (node-postgres reads a `date` as local midnight, for one).
 */
import type { PrismaClient } from '../../../src/db/client.ts';
import type { FieldSpec, ValueKind } from '../../../src/filter/fields.ts';
import type { Resource, ResolvedExpr, ResolvedFilter } from '../../../src/filter/index.ts';
import type { FilterRecord } from '../../unit/filter/evaluate.ts';

/** One resource's rows, hidden ones included, and which of them a list shows before filtering. */
export interface LoadedResource {
  readonly resource: Resource;
  readonly records: readonly FilterRecord[];
  /** docs/read-api.md, Lists: the rows a list considers for this filter, or for none (soft deletion hides some). */
  inScope(record: FilterRecord, filter: ResolvedFilter | undefined): boolean;
}

export type LoadedData = Readonly<Record<Resource, LoadedResource>>;

const always = () => true;

export async function loadFilterRecords(prisma: PrismaClient): Promise<LoadedData> {
  const investors = await loadInvestors(prisma);
  const hiddenInvestorIds = new Set(investors.filter((row) => row.hidden).map((row) => row.record.id as number));
  const investorRecords = investors.map((row) => row.record);
  return {
    entities: {
      resource: 'entities',
      records: await loadEntities(prisma, investorRecords),
      // Soft-deleted entities are left out unless the filter names deleted_at (`investor__` does not count).
      inScope: (record, filter) => record.deleted_at === null || (filter !== undefined && namesOwnField(filter.root, 'deleted_at')),
    },
    investors: {
      resource: 'investors',
      records: investorRecords,
      // An investor is its entity: a soft-deleted entity's investor profile is hidden as well.
      inScope: (record) => !hiddenInvestorIds.has(record.id as number),
    },
    founders: { resource: 'founders', records: await loadFounders(prisma), inScope: always },
    transactions: { resource: 'transactions', records: await loadTransactions(prisma), inScope: always },
    valuations: { resource: 'valuations', records: await prisma.valuation.findMany({ orderBy: { id: 'asc' } }), inScope: always },
    news: { resource: 'news', records: await loadNews(prisma), inScope: always },
  };
}

/** Written against the resolved tree, not `fieldNames`, so the rule is checked rather than reused. */
function namesOwnField(expr: ResolvedExpr, name: string): boolean {
  if (expr.type === 'combinator') return expr.children.some((child) => namesOwnField(child, name));
  return expr.relation === undefined && expr.field.name === name;
}

/** Investors: the entity's descriptive columns, the investor's counters, entity tags and portfolio. */
async function loadInvestors(prisma: PrismaClient): Promise<{ record: FilterRecord; hidden: boolean }[]> {
  const rows = await prisma.investor.findMany({
    orderBy: { id: 'asc' },
    include: {
      entity: { include: { tags: { select: { tag_id: true } } } },
      rounds: { select: { round: { select: { entity_id: true } } } },
    },
  });
  return rows.map(({ entity, rounds, ...investor }) => {
    const { uuid, name, type, image, platform_url, hq_country, hq_city, launch_year } = entity;
    const record: FilterRecord = {
      ...investor,
      uuid,
      name,
      type,
      image,
      platform_url,
      hq_country,
      hq_city,
      launch_year,
      tags: entity.tags.map((tag) => tag.tag_id),
      portfolio: unique(rounds.map((link) => link.round.entity_id)),
    };
    return { record, hidden: entity.deleted_at !== null };
  });
}

/** Entities with founders (founding roles only), investors of any round, and those investors' records. */
async function loadEntities(prisma: PrismaClient, investorRecords: readonly FilterRecord[]): Promise<FilterRecord[]> {
  const investorById = new Map(investorRecords.map((record) => [record.id as number, record]));
  const rows = await prisma.entity.findMany({
    orderBy: { id: 'asc' },
    include: {
      tags: { select: { tag_id: true } },
      founder_roles: { where: { is_founder: true }, select: { founder_id: true } },
      rounds: { select: { investors: { select: { investor_id: true } } } },
    },
  });
  return rows.map(({ tags, founder_roles, rounds, ...entity }) => {
    const investorIds = unique(rounds.flatMap((round) => round.investors.map((link) => link.investor_id)));
    return {
      ...entity,
      tags: tags.map((tag) => tag.tag_id),
      founders: founder_roles.map((role) => role.founder_id),
      investors: investorIds,
      round_investors: investorIds.map((id) => required(investorById.get(id), `investor ${id}`)),
    };
  });
}

async function loadFounders(prisma: PrismaClient): Promise<FilterRecord[]> {
  const rows = await prisma.founder.findMany({
    orderBy: { id: 'asc' },
    include: {
      tags: { select: { tag_id: true } },
      companies: { select: { entity_id: true } },
      education: { select: { university_id: true } },
      backgrounds: { select: { background_id: true } },
    },
  });
  return rows.map(({ tags, companies, education, backgrounds, ...founder }) => ({
    ...founder,
    tags: tags.map((tag) => tag.tag_id),
    companies: companies.map((role) => role.entity_id),
    education: unique(education.map((row) => row.university_id)),
    backgrounds: backgrounds.map((row) => row.background_id),
  }));
}

async function loadTransactions(prisma: PrismaClient): Promise<FilterRecord[]> {
  const rows = await prisma.fundingRound.findMany({ orderBy: { id: 'asc' }, include: { investors: { select: { investor_id: true } } } });
  return rows.map(({ investors, ...round }) => ({ ...round, investors: investors.map((link) => link.investor_id) }));
}

async function loadNews(prisma: PrismaClient): Promise<FilterRecord[]> {
  const rows = await prisma.newsArticle.findMany({ orderBy: { id: 'asc' }, include: { entities: { select: { entity_id: true } } } });
  return rows.map(({ entities, ...article }) => ({ ...article, entities: entities.map((link) => link.entity_id) }));
}

function unique(values: readonly number[]): number[] {
  return [...new Set(values)];
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`${what} is missing`);
  return value;
}

// ───────────── values the data holds, as filter text ─────────────

/**
 * Filter values for one field, drawn from the rows so that generated filters select a useful share of
 * them: values rows hold (also in other spellings of the same value: `2026-01-01T10:00:00+02:00`, upper
 * case uuids, trailing zeros), values between held ones, and values no row holds. Texts as a client
 * writes them, unquoted; the generator quotes where the grammar needs it.
 */
export interface ValuePool {
  readonly existing: readonly string[];
  readonly between: readonly string[];
  readonly missing: readonly string[];
  /** Id lists: the lists rows hold, so that `in_all` can ask for ids that occur together. */
  readonly groups: readonly (readonly number[])[];
}

/** The keys evaluate.ts reads a field from (see its header). */
export function recordKeys(field: FieldSpec): readonly string[] {
  if (field.target === 'column') return [field.path[field.path.length - 1] as string];
  if (field.target === 'any_column') return field.columns;
  return [field.name];
}

export function valuePool(field: FieldSpec, records: readonly FilterRecord[]): ValuePool {
  const raw = records.flatMap((record) => recordKeys(field).map((key) => record[key]));
  const values = (field.target === 'id_list' ? raw.flat() : raw).filter((value) => value !== null && value !== undefined);
  const texts = TEXTS_BY_KIND[field.kind](values);
  const groups = field.target === 'id_list' ? distinctGroups(raw) : [];
  return { ...texts, groups };
}

type Texts = Pick<ValuePool, 'existing' | 'between' | 'missing'>;

const TEXTS_BY_KIND: Readonly<Record<ValueKind, (values: unknown[]) => Texts>> = {
  int: (values) => integerTexts(values.map(Number)),
  float: (values) => floatTexts(values.map(Number)),
  money: (values) => moneyTexts(values.map((value) => BigInt(value as bigint))),
  decimal: (values) => decimalTexts(values.map(String)),
  bool: (values) => boolTexts(values.map(Boolean)),
  string: (values) => stringTexts(values.map(String)),
  uuid: (values) => uuidTexts(values.map(String)),
  date: (values) => dateTexts(values.map(toDate)),
  datetime: (values) => dateTimeTexts(values.map(toDate)),
};

function distinctGroups(lists: readonly unknown[]): number[][] {
  const seen = new Map<string, number[]>();
  for (const list of lists) {
    if (!Array.isArray(list) || list.length === 0) continue;
    const ids = [...new Set(list.map(Number))].sort((a, b) => a - b);
    seen.set(ids.join(','), ids);
  }
  return [...seen.values()];
}

function sortedDistinct<T>(values: readonly T[], compare: (a: T, b: T) => number): T[] {
  const sorted = [...values].sort(compare);
  return sorted.filter((value, index) => index === 0 || compare(sorted[index - 1] as T, value) !== 0);
}

function neighbours<T>(sorted: readonly T[]): [T, T][] {
  return sorted.slice(1).map((value, index): [T, T] => [sorted[index] as T, value]);
}

function integerTexts(values: number[]): Texts {
  const sorted = sortedDistinct(values, (a, b) => a - b);
  const [min = 0, max = 0] = [sorted[0], sorted[sorted.length - 1]];
  const between = neighbours(sorted)
    .filter(([a, b]) => b - a > 1)
    .map(([a, b]) => Math.floor((a + b) / 2));
  return { existing: sorted.map(String), between: between.map(String), missing: [min - 1, max + 1, -7, 2147483647].map(String) };
}

/** Decimal text without an exponent, as the grammar wants; shortest form, so it reads back exactly. */
function plainNumber(value: number): string {
  const text = String(value);
  return /e/i.test(text) ? value.toFixed(20).replace(/\.?0+$/, '') : text;
}

function floatTexts(values: number[]): Texts {
  const sorted = sortedDistinct(values, (a, b) => a - b);
  const [min = 0, max = 0] = [sorted[0], sorted[sorted.length - 1]];
  const between = neighbours(sorted).map(([a, b]) => (a + b) / 2);
  return { existing: sorted.map(plainNumber), between: between.map(plainNumber), missing: [min - 1, max + 0.5, -1000.25].map(plainNumber) };
}

function moneyTexts(values: bigint[]): Texts {
  const sorted = sortedDistinct(values, compareBigInts);
  const [min = 0n, max = 0n] = [sorted[0], sorted[sorted.length - 1]];
  const between = neighbours(sorted)
    .filter(([a, b]) => b - a > 1n)
    .map(([a, b]) => (a + b) / 2n);
  return { existing: sorted.map(String), between: between.map(String), missing: [min - 1n, max + 1n, -1n].map(String) };
}

/** Decimals (news amount_usd) as thousandths, so midpoints of cent amounts stay exact. */
function decimalTexts(values: string[]): Texts {
  const sorted = sortedDistinct(values.map((text) => toScaled(text, 3)), compareBigInts);
  const [min = 0n, max = 0n] = [sorted[0], sorted[sorted.length - 1]];
  const existing = sorted.flatMap((value) => [fromScaled(value, 3, false), fromScaled(value, 3, true)]);
  const between = neighbours(sorted).map(([a, b]) => fromScaled((a + b) / 2n, 3, false));
  return { existing, between, missing: [min - 10n, max + 1000n, -5n].map((value) => fromScaled(value, 3, false)) };
}

function boolTexts(values: boolean[]): Texts {
  const present = new Set(values);
  return {
    existing: [true, false].filter((value) => present.has(value)).map(String),
    between: [],
    missing: [true, false].filter((value) => !present.has(value)).map(String),
  };
}

/**
 * Strings next to held ones in code point order (a prefix sorts before, `s + ' '` right after), other
 * cases of held ones (equality is case-sensitive), and texts that need quoting or are not ASCII.
 */
function stringTexts(values: string[]): Texts {
  const existing = sortedDistinct(values, compareCodePoints);
  const between = existing.flatMap((text) => [`${text} `, text.slice(0, Math.max(0, text.length - 1)), `${text}~`]);
  const cases = existing.slice(0, 50).flatMap((text) => [text.toLowerCase(), text.toUpperCase()]);
  const missing = ['', 'zzz', 'ZZZ', 'null', 'Zürich', '🚀 rocket', 'a,b(c)|"d\\e', ...cases];
  return { existing, between, missing: missing.filter((text) => !existing.includes(text)) };
}

function uuidTexts(values: string[]): Texts {
  const existing = sortedDistinct(values, compareCodePoints);
  return {
    existing: existing.flatMap((uuid) => [uuid, uuid.toUpperCase()]),
    between: [],
    missing: ['00000000-0000-4000-8000-000000000000', 'FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF'],
  };
}

const DAY_MS = 86_400_000;

function dateTexts(values: Date[]): Texts {
  const days = sortedDistinct(values.map((date) => Math.floor(date.getTime() / DAY_MS)), (a, b) => a - b);
  const text = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
  const between = neighbours(days)
    .filter(([a, b]) => b - a > 1)
    .map(([a, b]) => Math.floor((a + b) / 2));
  return { existing: days.map(text), between: between.map(text), missing: ['1900-01-01', '2999-12-31', '0001-01-01'] };
}

/** Date-times in every accepted spelling: zone offsets, no zone (UTC), no seconds, a date alone. */
function dateTimeTexts(values: Date[]): Texts {
  const times = sortedDistinct(values.map((date) => date.getTime()), (a, b) => a - b);
  const existing = times.flatMap((time) => [
    new Date(time).toISOString(),
    withOffset(time, 330),
    withOffset(time, -480),
    new Date(time).toISOString().slice(0, 19),
  ]);
  const between = [
    ...times.flatMap((time) => [new Date(time + 1).toISOString(), new Date(time - 1).toISOString()]),
    ...times.map((time) => new Date(time).toISOString().slice(0, 16)),
    ...times.map((time) => new Date(time).toISOString().slice(0, 10)),
    ...neighbours(times).map(([a, b]) => withOffset(Math.floor((a + b) / 2), 60)),
  ];
  return { existing, between, missing: ['1970-01-01T00:00:00Z', '2999-12-31T23:59:59.999-01:00', '2000-02-29'] };
}

/** The same instant written in a zone `minutes` east of UTC: `2026-01-01T15:30:00.000+05:30`. */
function withOffset(time: number, minutes: number): string {
  const local = new Date(time + minutes * 60_000).toISOString().slice(0, 23);
  const sign = minutes < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0');
  return `${local}${sign}${hours}:${String(Math.abs(minutes) % 60).padStart(2, '0')}`;
}

function toDate(value: unknown): Date {
  const date = value instanceof Date ? value : new Date(String(value));
  if (Number.isNaN(date.getTime())) throw new Error(`not a date: ${String(value)}`);
  return date;
}

// ───────────── comparing values as PostgreSQL orders them ─────────────

export function compareBigInts(a: bigint, b: bigint): number {
  return a === b ? 0 : a > b ? 1 : -1;
}

/** UTF-8 byte order is code point order, which is how a "C" collation sorts text. */
export function compareCodePoints(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** A decimal text (`-12.5`, `3`) as an integer count of 10^-scale units. */
function toScaled(text: string, scale: number): bigint {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text.trim());
  if (!match) throw new Error(`not a plain decimal: ${text}`);
  const [, sign = '', whole = '', fraction = ''] = match;
  const digits = BigInt(`${whole}${fraction.padEnd(scale, '0').slice(0, scale)}`);
  return sign === '-' ? -digits : digits;
}

/** `padded` keeps every fractional digit (`12.500`), otherwise trailing zeros go (`12.5`, `12`). */
function fromScaled(value: bigint, scale: number, padded: boolean): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, -scale);
  const fraction = padded ? digits.slice(-scale) : digits.slice(-scale).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** Orders two non-null values of a column as PostgreSQL does (text as a "C" collation does). */
export function compareValues(kind: ValueKind, a: unknown, b: unknown): number {
  switch (kind) {
    case 'int':
    case 'float':
      return Math.sign(Number(a) - Number(b));
    case 'money':
      return compareBigInts(BigInt(a as bigint), BigInt(b as bigint));
    case 'decimal':
      return compareBigInts(toScaled(String(a), 3), toScaled(String(b), 3));
    case 'bool':
      return Number(a) - Number(b);
    case 'string':
    case 'uuid':
      return compareCodePoints(String(a), String(b));
    case 'date':
    case 'datetime':
      return Math.sign(toDate(a).getTime() - toDate(b).getTime());
  }
}
