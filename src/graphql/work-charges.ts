/**
 * What a field declares it costs beyond the records it reads, for the operation runner's limits
 * (docs/read-api.md, "Limits"). Two kinds of work grow with what a client sends rather than with the
 * rows a list returns, so the list fan-out (fan-out-cost.ts) alone does not see them:
 *
 * - a field that runs a search per parent row (`Entity.similar`) declares `searchCharge`: the records'
 *   worth of fan-out budget one call costs, charged once per parent row;
 * - a field that takes a batch of records (`match`) declares `batchRecords`: the name of its argument
 *   holding the list. Every such field of an operation (aliases, fragments, variables resolved) draws
 *   on one budget per request.
 */
import { GraphQLError, isObjectType, Kind, type DocumentNode, type FieldNode, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode, type SelectionSetNode, type ValueNode } from 'graphql';

export interface WorkCharges {
  /** Fan-out budget (records' worth) that one call of this field costs, per parent row. */
  searchCharge?: number;
  /** The argument holding the records this field processes, counted against the request's batch budget. */
  batchRecords?: string;
}

export const chargesOf = (extensions: unknown): WorkCharges => (extensions ?? {}) as WorkCharges;

type Variables = Readonly<Record<string, unknown>> | undefined;

/** How many records a list argument holds, variables read as sent (a single value is a list of one, as GraphQL coerces it). */
function listLength(node: ValueNode, variables: Variables): number {
  if (node.kind === Kind.LIST) return node.values.length;
  if (node.kind === Kind.NULL) return 0;
  if (node.kind === Kind.VARIABLE) {
    const value = variables?.[node.name.value];
    return Array.isArray(value) ? value.length : value == null ? 0 : 1;
  }
  return 1;
}

/**
 * Records every batch field of the operation would process, summed over all of them (each alias,
 * each fragment spread where it is spread). Fields under @skip/@include are counted too: the budget
 * is what the document may ask for.
 */
export function batchRecords(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, variables: Variables): number {
  const root = operation.operation === 'query' ? schema.getQueryType() : operation.operation === 'mutation' ? schema.getMutationType() : undefined;
  if (!root) return 0;
  const fields = root.getFields();
  const fragments = new Map(
    document.definitions
      .filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment]),
  );
  // Batch fields are root fields: only the root selection and the fragments on the root type are walked.
  const walk = (selections: SelectionSetNode, depth: number): number => {
    if (depth > 32) return 0;
    let total = 0;
    for (const selection of selections.selections) {
      if (selection.kind === Kind.FIELD) total += charged(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) total += walk(selection.selectionSet, depth + 1);
      else {
        const fragment = fragments.get(selection.name.value);
        if (fragment && isObjectType(schema.getType(fragment.typeCondition.name.value))) total += walk(fragment.selectionSet, depth + 1);
      }
    }
    return total;
  };
  const charged = (node: FieldNode): number => {
    const argument = chargesOf(fields[node.name.value]?.extensions).batchRecords;
    const value = argument && node.arguments?.find((candidate) => candidate.name.value === argument)?.value;
    return value ? listLength(value, variables) : 0;
  };
  return walk(operation.selectionSet, 0);
}

/** The request error of an operation whose batch fields hold more than `max` records together. */
export function overBatchBudget(records: number, max: number): GraphQLError {
  return new GraphQLError(
    `Query sends too many records: its match fields hold ${records} records together, over the limit of ${max} a request ` +
      `(every alias and fragment of match counts; send at most ${max} records across them, or split them over requests)`,
    // A request error like the fan-out limit's (fan-out-cost.ts): 400, or 200 to a client accepting only application/json.
    { extensions: { code: 'VALIDATION_ERROR', http: { status: 400, spec: true } } },
  );
}
