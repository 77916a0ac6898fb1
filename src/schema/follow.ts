/**
 * What a field of a read type means, declared once: a column of its record (`column('name')`), a
 * related record or list (`follow(['entity'])`, `follow([['rounds', {orderBy}]])`), or a path through
 * several relations, e.g. an entity's tags (entity → entity_tags → tag) or an investor's name
 * (investor → entity → name). One declaration gives the Pothos field its Prisma `select`, its
 * resolver, and the compiler (src/compile/select.ts) the same path, so the resolver and the compiled
 * statement cannot disagree on what the field means, and the compiler reads no library's internals.
 */
import { CODECS } from '../values/codecs.ts';
import { FACTS, type FieldFacts } from './field-facts.ts';

/** One relation on the way, with the Prisma arguments of a list relation (`where`, `orderBy`). */
export type Step = string | readonly [relation: string, query: StepQuery];

export interface StepQuery {
  where?: Record<string, string | number | boolean | null>;
  orderBy?: Record<string, 'asc' | 'desc'> | Record<string, 'asc' | 'desc'>[];
}

export interface FollowPath {
  steps: readonly Step[];
  /** The path ends in this column of the last relation; without it, in the last related record. */
  column?: string;
  /** Keep the first record of each id (a portfolio lists a company once, however many rounds). */
  distinctById?: boolean;
  /** The column is a decimal given as text, as Prisma's Decimal prints it (`12.5`, not `12.50`). */
  asText?: boolean;
}

export const stepName = (step: Step): string => (typeof step === 'string' ? step : step[0]);
export const stepQuery = (step: Step): StepQuery => (typeof step === 'string' ? {} : step[1]);

type Row = Record<string, unknown>;

/**
 * Prisma's select map along the path; the last step carries `leaf` (`true` for a column, the related
 * type's own selection for records), with the last relation's query beside it.
 */
function selectAlong(steps: readonly Step[], leaf: unknown): Record<string, never> {
  const last = steps[steps.length - 1]!;
  const query = stepQuery(last);
  const end = Object.keys(query).length === 0 ? leaf : { ...query, ...(typeof leaf === 'object' ? leaf : {}) };
  return steps
    .slice(0, -1)
    .reduceRight<Record<string, unknown>>((inner, step) => ({ [stepName(step)]: { ...stepQuery(step), select: inner } }), {
      [stepName(last)]: end,
    }) as Record<string, never>;
}

function walk(value: unknown, steps: readonly Step[]): unknown {
  if (steps.length === 0 || value == null) return value;
  const [step, ...rest] = steps;
  const next = (value as Row)[stepName(step!)];
  return Array.isArray(next) ? next.flatMap((item) => walk(item, rest)) : walk(next, rest);
}

/** The first record of each id, in order. */
function uniqueById<T>(records: readonly T[]): T[] {
  const seen = new Set<unknown>();
  return records.filter((record) => {
    const id = (record as Row).id;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** `extensions` of a field: what it means, and what it declares (src/schema/field-facts.ts). */
function extensionsOf(path: FollowPath, facts: FieldFacts) {
  return Object.keys(facts).length === 0 ? { follow: path } : { follow: path, [FACTS]: facts };
}

/**
 * Field options for a relation path ending in records: spread into `t.field({type, ...follow(...)})`.
 * The related type's own selection is merged in by Pothos (`nestedSelection`).
 */
export function follow(steps: readonly Step[], options: { distinctById?: boolean } & FieldFacts = {}) {
  const { distinctById, ...facts } = options;
  const path: FollowPath = { steps, ...(distinctById ? { distinctById } : {}) };
  return {
    select: (_args: unknown, _context: unknown, nestedSelection: (selection: true) => unknown) =>
      selectAlong(steps, nestedSelection(true)),
    resolve: (parent: unknown): never => {
      const found = walk(parent, steps);
      return (path.distinctById && Array.isArray(found) ? uniqueById(found) : found) as never;
    },
    extensions: extensionsOf(path, facts),
  };
}

/**
 * Field options for a column of the record itself, with what it declares:
 * `t.float({ nullable: true, ...column('lat', { example: 52.52 }) })`.
 */
export const column = (name: string, facts: FieldFacts = {}) => followColumn([], name, facts);

/**
 * Field options for a relation path ending in one column: `t.string({...followColumn(['entity'], 'name')})`;
 * with no steps, a column of the record itself (with `asText`, a decimal as text).
 */
export function followColumn(steps: readonly Step[], column: string, options: { asText?: boolean } & FieldFacts = {}) {
  const { asText, ...facts } = options;
  const path: FollowPath = { steps, column, ...(asText ? { asText } : {}) };
  return {
    select: selectAlong([...steps, column], true),
    resolve: (parent: unknown): never => {
      const value = walk(parent, [...steps, column]) ?? null;
      return (asText ? CODECS.decimal.serialize(value) : value) as never;
    },
    extensions: extensionsOf(path, facts),
  };
}
