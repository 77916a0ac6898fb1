/**
 * Limits that refuse abusive GraphQL documents while they are parsed and validated, before any resolver
 * or database work (graphql-armor). Prepared REST operations are validated once at start-up and skip
 * these. A refused document is a VALIDATION_ERROR request error whose message names the limit, with the
 * status of any validation error (src/graphql/mask-error.ts): each limit reports its error to the
 * validation instead of throwing it, so it is one like the others.
 */
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { MaxTokensParserWLexer } from '@escape.tech/graphql-armor-max-tokens';
import type { DocumentNode, GraphQLError, ValidationContext, ValidationRule } from 'graphql';

export const GRAPHQL_LIMITS = Object.freeze({
  /** entities → data → founders → companies → entity → tags → name is 7 deep. */
  depth: 10,
  aliases: 15,
  /** Tokens in the document: parsing stops past this, so a huge query costs little. */
  tokens: 2_000,
  /** graphql-armor's cost: 2 per object, 1 per scalar, ×1.5 per level of depth. */
  cost: 10_000,
});

const REPORTED = { propagateOnRejection: false, onReject: [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(error)] };

/** armor's cost weighs depth, not list sizes: the operation runner also counts the records the lists can reach (fan-out-cost.ts). */
export const ARMOR_RULES: readonly ValidationRule[] = [
  maxDepthRule({ n: GRAPHQL_LIMITS.depth, flattenFragments: true, exposeLimits: true, ...REPORTED }),
  maxAliasesRule({ n: GRAPHQL_LIMITS.aliases, exposeLimits: true, ...REPORTED }),
  costLimitRule({ maxCost: GRAPHQL_LIMITS.cost, exposeLimits: true, ...REPORTED }),
] as unknown as ValidationRule[];

/** Parses a document, stopping (a syntax error naming the limit) past GRAPHQL_LIMITS.tokens. */
export function parseWithinLimits(query: string): DocumentNode {
  return new MaxTokensParserWLexer(query, { n: GRAPHQL_LIMITS.tokens }).parseDocument();
}
