/**
 * A cost model that counts list fan-out: how many records a document can make the server read. A list
 * field multiplies everything under it by its size (the `limit` of a paged list, or a relation's fan-out
 * below), so `investors(limit: 1) { data { portfolio { investors { portfolio { name } } } } }` costs
 * 1 × 700 × 20 × 700 records, not the few dozen fields it spells. graphql-armor's cost limit weighs
 * depth but not list sizes; this adds what it misses.
 *
 * It runs when an operation is about to execute, not as a validation rule: a page `limit` is often a
 * variable, and a document's validation is kept per text (graphql-request.ts), so a rule would judge
 * `$n: 2` and `$n: 500` alike.
 * Prepared REST operations are not checked (their selections are fixed and their limits bounded).
 */
import {
  getNamedType,
  getNullableType,
  GraphQLError,
  isListType,
  isObjectType,
  Kind,
  type FieldNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { DEFAULT_LIMIT } from '../schema/list.ts';
import { chargesOf } from './work-charges.ts';

/**
 * How many records a relation list returns per parent, for costing. Measured on the demo data (per
 * parent: 99th percentile / maximum): an investor's portfolio and rounds 15 / ~700, an entity's news
 * 36 / 160, its tags 5 / 31, its founders 5 / 8, its rounds 6 / 14. The figures sit well above the 99th
 * percentile, so ordinary nesting passes; the portfolio, though, is costed at its maximum, since the largest investors' portfolios are what a nested query would multiply.
 */
export const RELATION_FAN_OUT: Readonly<Record<string, number>> = Object.freeze({
  'Investor.portfolio': 700,
  'Investor.rounds': 700,
  'Entity.news': 50,
  'Entity.investors': 20,
  'Entity.rounds': 20,
  'Entity.valuations': 20,
  'Entity.tags': 10,
  'Investor.tags': 10,
  'Founder.tags': 10,
  'Entity.founders': 10,
  'Founder.companies': 5,
  'Founder.education': 5,
  'Founder.backgrounds': 5,
  'Transaction.investors': 10,
  'NewsArticle.entities': 10,
});

/** A list field not in the table above (scalar lists are free: they come with their row). */
const DEFAULT_FAN_OUT = 10;

type Variables = Record<string, unknown> | undefined;

function limitOf(field: FieldNode, variables: Variables): number | undefined {
  const argument = field.arguments?.find((node) => node.name.value === 'limit');
  if (!argument) return undefined;
  const value = readInt(argument.value, variables);
  // A bad limit is refused by the resolver with its own message; count it as the default meanwhile.
  return value !== undefined && Number.isInteger(value) && value > 0 ? value : DEFAULT_LIMIT;
}

function readInt(node: ValueNode, variables: Variables): number | undefined {
  if (node.kind === Kind.INT) return Number(node.value);
  if (node.kind === Kind.VARIABLE) {
    const value = variables?.[node.name.value];
    return typeof value === 'number' ? value : value == null ? DEFAULT_LIMIT : undefined;
  }
  return undefined;
}

class FanOutCounter {
  private readonly fragments: Map<string, FragmentDefinitionNode>;

  constructor(
    private readonly schema: GraphQLSchema,
    document: DocumentNode,
    private readonly variables: Variables,
  ) {
    const definitions = document.definitions;
    this.fragments = new Map(
      definitions
        .filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
        .map((fragment) => [fragment.name.value, fragment]),
    );
  }

  /**
   * Records under `selections` on `type`, each parent counted `multiplier` times. `pageSize` is the
   * `limit` of the paged-list field just above (its `data` list has that many rows). Fragments are
   * followed at most `budget` levels deep, so a cycle cannot loop (validation refuses cycles anyway).
   */
  count(selections: SelectionSetNode, type: GraphQLObjectType, multiplier: number, pageSize: number | undefined, budget = 32): number {
    if (budget === 0) return 0;
    let total = 0;
    for (const selection of selections.selections) {
      if (selection.kind === Kind.FIELD) {
        total += this.field(selection, type, multiplier, pageSize, budget);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const on = selection.typeCondition ? this.schema.getType(selection.typeCondition.name.value) : type;
        if (isObjectType(on)) total += this.count(selection.selectionSet, on, multiplier, pageSize, budget - 1);
      } else {
        const fragment = this.fragments.get(selection.name.value);
        const on = fragment && this.schema.getType(fragment.typeCondition.name.value);
        if (fragment && isObjectType(on)) total += this.count(fragment.selectionSet, on, multiplier, pageSize, budget - 1);
      }
    }
    return total;
  }

  private field(node: FieldNode, parent: GraphQLObjectType, multiplier: number, pageSize: number | undefined, budget: number): number {
    const definition = parent.getFields()[node.name.value];
    if (!definition) return 0;
    // A search per parent row (Entity.similar): its declared charge, once per row, whatever it selects
    // (the companies and reasons it lists come out of the search, not out of reads of their own).
    const search = chargesOf(definition.extensions).searchCharge;
    if (search !== undefined) return search * multiplier;
    if (!node.selectionSet) return 0;
    const target = getNamedType(definition.type);
    if (!isObjectType(target)) return 0;
    const isList = isListType(getNullableType(definition.type));
    const limit = limitOf(node, this.variables) ?? (definition.args.some((arg) => arg.name === 'limit') ? DEFAULT_LIMIT : undefined);
    // A list with a `limit` has that many rows (`locations(limit:)`); a paged list (`entities(limit:)`)
    // returns one envelope whose `data` list holds `limit` rows; any other list, its fan-out.
    const size = isList ? (limit ?? pageSize ?? RELATION_FAN_OUT[`${parent.name}.${definition.name}`] ?? DEFAULT_FAN_OUT) : 1;
    const rows = multiplier * size;
    return (isList ? rows : 0) + this.count(node.selectionSet, target, rows, isList ? undefined : limit, budget - 1);
  }
}

/** Records the operation can read (see RELATION_FAN_OUT); 0 for subscriptions and unknown roots. */
export function fanOutCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  variables: Variables,
): number {
  const root = operation.operation === 'query' ? schema.getQueryType()
    : operation.operation === 'mutation' ? schema.getMutationType() : undefined;
  return root ? new FanOutCounter(schema, document, variables).count(operation.selectionSet, root, 1, undefined) : 0;
}

/** The request error of an operation over GRAPHQL_MAX_FAN_OUT (the runner checks /graphql documents). */
export function overLimit(cost: number, maxCost: number): GraphQLError {
  return new GraphQLError(
    `Query reads too many records: list fan-out cost ${Math.ceil(cost)} is over the limit of ${maxCost} ` +
      '(each list multiplies what it contains: lower `limit`, or select fewer nested lists)',
    // A request error like a validation error (src/graphql/mask-error.ts): `spec` gives it 200 for a
    // client accepting only application/json, 400 for application/graphql-response+json.
    { extensions: { code: 'VALIDATION_ERROR', http: { status: 400, spec: true } } },
  );
}
