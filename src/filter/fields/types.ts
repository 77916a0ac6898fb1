// The shape of the field registry. One registry per resource drives filtering, sorting, the
// GET /api/filters/{resource} description and the docs, so everything a field means lives in its entry.
import type { Prisma } from '../../db/generated/prisma/client.ts';

export type Resource = 'entities' | 'founders' | 'investors' | 'transactions' | 'valuations' | 'news';

export const RESOURCES: readonly Resource[] = Object.freeze([
  'entities',
  'founders',
  'investors',
  'transactions',
  'valuations',
  'news',
]);

export type Operator =
  | 'eq'
  | 'neq'
  | 'gt'
  | 'gte'
  | 'lt'
  | 'lte'
  | 'in_any'
  | 'nin_any'
  | 'in_all'
  | 'nin_all'
  // Case-insensitive text search on string fields (`name[contains]:airbnb`).
  | 'contains'
  | 'starts_with';

/**
 * The deprecated spellings and what they mean; responses that use them carry `Deprecation: true`.
 * A Map, so that operator words such as `constructor` find nothing rather than Object.prototype.
 */
export const LEGACY_OPERATORS: ReadonlyMap<string, Operator> = new Map([
  ['in', 'in_any'],
  ['nin', 'nin_any'],
]);

/** The type a client sees in GET /api/filters/{resource}. */
export type FieldType = 'int' | 'number' | 'money' | 'bool' | 'string' | 'date' | 'datetime' | 'id_list' | 'location' | 'external_id';

/**
 * How values are read and compared; finer than FieldType because a Float and a Decimal column are both
 * `number` to a client but compare differently, and a uuid column rejects text that is not a uuid.
 * Ids (in id lists and location fields) are `int`.
 */
export type ValueKind = 'int' | 'float' | 'decimal' | 'money' | 'bool' | 'string' | 'uuid' | 'date' | 'datetime';

/** A value after resolve: `int`/`float` → number, `money` → bigint, `decimal` → its digits as text. */
export type TypedValue = null | boolean | number | bigint | string | Date;

/** The Prisma input types each resource's filter and sort produce. */
export interface PrismaTypesByResource {
  entities: { where: Prisma.EntityWhereInput; orderBy: Prisma.EntityOrderByWithRelationInput };
  founders: { where: Prisma.FounderWhereInput; orderBy: Prisma.FounderOrderByWithRelationInput };
  investors: { where: Prisma.InvestorWhereInput; orderBy: Prisma.InvestorOrderByWithRelationInput };
  transactions: { where: Prisma.FundingRoundWhereInput; orderBy: Prisma.FundingRoundOrderByWithRelationInput };
  valuations: { where: Prisma.ValuationWhereInput; orderBy: Prisma.ValuationOrderByWithRelationInput };
  news: { where: Prisma.NewsArticleWhereInput; orderBy: Prisma.NewsArticleOrderByWithRelationInput };
}

export type WhereFor<R extends Resource> = PrismaTypesByResource[R]['where'];
export type OrderByFor<R extends Resource> = PrismaTypesByResource[R]['orderBy'];

/**
 * A where fragment as the registry builds it. Column fragments are assembled from data (the column's
 * path), so they are typed at the boundary (`toPrismaWhere`) rather than per field; hand-written
 * fragments (id lists, relations) are checked against the model's WhereInput where they are written.
 */
export type WhereFragment = Readonly<Record<string, unknown>>;

export type IdMatch = number | { in: number[] };

interface FieldCommon {
  readonly name: string;
  readonly type: FieldType;
  readonly kind: ValueKind;
  /** Canonical operators only; `in`/`nin` are accepted wherever `in_any`/`nin_any` are. */
  readonly operators: readonly Operator[];
  /** Whether the value can be NULL, which is what makes `eq`/`neq` with `null` legal. */
  readonly nullable: boolean;
  /**
   * Reads a value written in a filter when the field compares something other than the text as written
   * (a website is compared as its normalised domain); without it, the kind's reading (values.ts).
   */
  readonly readValue?: (text: string) => { ok: true; value: TypedValue } | { ok: false; expected: string };
}

/** A scalar column, possibly behind to-one relations (an investor's `name` is `entity.name`). */
export interface ColumnField extends FieldCommon {
  readonly target: 'column';
  /** Prisma path; the last element is the column and also the key in-memory records use. */
  readonly path: readonly [string, ...string[]];
  readonly sortable: boolean;
}

/** Matches when any of several columns matches (an entity's `location` is its HQ country or city). */
export interface AnyColumnField extends FieldCommon {
  readonly target: 'any_column';
  readonly columns: readonly string[];
}

/** A repeated relation filtered by the related records' ids. */
export interface IdListField extends FieldCommon {
  readonly target: 'id_list';
  /** `some`: at least one related record has a matching id; `none`: no related record has. */
  readonly match: (quantifier: 'some' | 'none', id: IdMatch) => WhereFragment;
}

/**
 * A lookup through a relation by a value of its own shape (`external_id[eq]:crunchbase:airbnb`):
 * `match` gives the where of the records that have one of the (already read) values.
 */
export interface LookupField extends FieldCommon {
  readonly target: 'lookup';
  readonly match: (values: readonly string[]) => WhereFragment;
}

export type FieldSpec = ColumnField | AnyColumnField | IdListField | LookupField;

/** `investor__<field>`: a condition on another resource's field, met through a relation. */
export interface RelationSpec {
  readonly name: string;
  readonly resource: Resource;
  /** Where in-memory records keep the related records (see the evaluator). */
  readonly recordKey: string;
  /** Wraps a where of the related resource so it reads "at least one related record matches". */
  readonly wrap: (inner: WhereFragment) => WhereFragment;
}

/**
 * Records reached from each record of the resource whose fields aggregates group by
 * (`group_by=entity.hq_country` on transactions, `tags.name` on entities).
 */
export interface RelatedGrouping {
  readonly name: string;
  /** Prisma relation steps from the resource's model to the related records' model. */
  readonly path: readonly [string, ...string[]];
  /**
   * The resource the related records are, whose read permission such a dimension needs; absent when
   * they are part of this resource's own record (an entity's tags).
   */
  readonly resource?: Resource;
  readonly fields: ReadonlyMap<string, ColumnField>;
}

export interface ResourceRegistry {
  readonly resource: Resource;
  /** The `ref.` prefixes this resource accepts; writing one changes nothing. */
  readonly refs: readonly string[];
  readonly fields: ReadonlyMap<string, FieldSpec>;
  readonly relations: ReadonlyMap<string, RelationSpec>;
  readonly groupings: ReadonlyMap<string, RelatedGrouping>;
}
