/**
 * Similar companies (docs/finding-companies.md, "Similar companies"): `Entity.similar(limit, filter)`, and the root field
 * `similarEntities(id, ...)` that `GET /api/entities/{id}/similar` runs, so the REST answer (and its
 * 404) takes one statement (src/schema/similar-sql.ts). The filter is read by the entity list's own
 * code: the same grammar, checks and errors.
 */
import { requirePrincipal } from '../auth/principal.ts';
import { readModels } from './model.ts';
import { OWN_STATEMENT } from './operation.ts';
import { notFound } from '../errors.ts';
import { builder } from '../schema/builder.ts';
import type { GraphQLContext } from '../schema/context.ts';
import { ENTITIES, ENTITY_LIST, SIMILAR_LIMIT } from '../schema/entity.ts';
import { INVESTORS } from '../schema/investor.ts';
import { parseWindow } from '../schema/list.ts';
import { readListRequest } from '../schema/list-query.ts';
import { replicaReads } from '../schema/resource.ts';
import { similarStatement } from './similar-sql.ts';
import { similarFieldSql } from './similar-select.ts';
import type { WorkCharges } from '../graphql/work-charges.ts';

/**
 * The list fan-out budget (GRAPHQL_MAX_FAN_OUT records) one similar search costs, per entity it is
 * asked on. On the demo data a search takes 6 to 40 ms (by the machine's load), a record of a page
 * 0.01 to 0.05 ms: a search is worth about a thousand records. 800 (whatever the search selects: what
 * it lists comes out of the search) keeps the default page of 25 with every entity field two levels
 * deep and its similar companies within the budget, lets at most 31 searches through, and refuses
 * `entities(limit: 500) { data { similar { ... } } }` before it runs (bench/README.md, "Cost of a request").
 */
export const SIMILAR_SEARCH_CHARGE = 800;
const CHARGED = { searchCharge: SIMILAR_SEARCH_CHARGE } satisfies WorkCharges;


/** What a similar company's score is made of, a reason each. */
export const SIMILAR_REASON_KINDS = ['tag', 'investor', 'location', 'launch_year'] as const;

export interface SimilarReason {
  kind: (typeof SIMILAR_REASON_KINDS)[number];
  detail: string;
  weight: number;
}

export interface SimilarCompanyShape {
  id: number;
  name: string;
  score: number;
  reasons: SimilarReason[];
}

export interface SimilarAnswer {
  data: SimilarCompanyShape[];
  page: { limit: number };
}

interface SimilarArgs {
  limit?: number | null | undefined;
  filter?: string | null | undefined;
}

const MODELS = readModels();

/** The answer for entity `id`, or null when no live entity has it. Arguments are checked before the statement runs. */
export async function findSimilar(id: number, args: SimilarArgs, context: GraphQLContext): Promise<SimilarAnswer | null> {
  const { limit } = parseWindow({ limit: args.limit ?? SIMILAR_LIMIT.default }, SIMILAR_LIMIT.max);
  const request = await readListRequest(ENTITY_LIST, { filter: args.filter }, context);
  // Investor reasons name investors: without read:investors they are neither shown nor counted.
  const withInvestors = requirePrincipal(context.principal).permissions.has(INVESTORS.read as string);
  const { sql, params } = similarStatement(MODELS, id, limit, withInvestors, request.where);
  const [row] = await context.sql.prepared<{ found: number; rows: string }>(sql, params, context.signal);
  if (!row || !row.found) return null;
  return { data: JSON.parse(row.rows) as SimilarCompanyShape[], page: { limit } };
}

const SimilarReasonType = builder.objectRef<SimilarReason>('SimilarityReason').implement({
  description: 'One thing the two companies share, and what it adds to the score',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: '`tag`, `investor` (needs read:investors), `location` or `launch_year`' }),
    detail: t.exposeString('detail', { description: 'The tag or investor name, the shared city or country, or the launch years' }),
    weight: t.exposeFloat('weight', { description: "This reason's part of the score" }),
  }),
});

const SimilarCompany = builder.objectRef<SimilarCompanyShape>('SimilarCompany').implement({
  extensions: ENTITIES.owns(['id', 'name']),
  description: 'A company like the one asked about, with why',
  fields: (t) => ({
    id: t.exposeInt('id'),
    name: t.exposeString('name'),
    score: t.exposeFloat('score', { description: "The sum of the reasons' weights" }),
    reasons: t.field({ type: [SimilarReasonType], resolve: (company) => company.reasons }),
  }),
});

const SimilarPage = builder.objectRef<SimilarAnswer['page']>('SimilarPage').implement({
  fields: (t) => ({ limit: t.exposeInt('limit') }),
});

const SimilarCompanies = builder.objectRef<SimilarAnswer>('SimilarCompanies').implement({
  extensions: ENTITIES.owns(),
  description: 'Companies ranked by similarity, best first',
  fields: (t) => ({
    data: t.field({ type: [SimilarCompany], resolve: (answer) => answer.data }),
    page: t.field({ type: SimilarPage, resolve: (answer) => answer.page }),
  }),
});

const similarArgs = builder.args((t) => ({
  limit: t.int({ description: `Companies to return: 1 to ${SIMILAR_LIMIT.max} (default ${SIMILAR_LIMIT.default})` }),
  filter: t.string({ description: 'An entity filter that narrows the candidates, e.g. `hq_country:Germany`: the entity list grammar' }),
}));

const DESCRIPTION =
  'Companies most like this one: shared tags (rarer ones weigh more), shared investors, the same city or country, ' +
  'close launch years; each with the reasons that make up its score (docs/finding-companies.md, "Similar companies")';

builder.prismaObjectField('Entity', 'similar', (t) =>
  t.field({
    type: SimilarCompanies,
    description: DESCRIPTION,
    // In a compiled read, a correlated subquery of the list's statement (similar-select.ts).
    extensions: { ...CHARGED, compiled: similarFieldSql },
    args: similarArgs,
    resolve: async (entity, args, context) =>
      (await findSimilar(entity.id, args, context)) ?? { data: [], page: { limit: args.limit ?? SIMILAR_LIMIT.default } },
  }),
);

builder.queryFields((t) => ({
  similarEntities: t.field({
    type: SimilarCompanies,
    description: `${DESCRIPTION}. An unknown or deleted id is NOT_FOUND`,
    // OWN_STATEMENT: one statement answers it, the 404 included (src/compile/operation.ts).
    extensions: { ...ENTITIES.reads, ...OWN_STATEMENT, ...replicaReads, ...CHARGED },
    args: { id: t.arg.int({ required: true, description: 'The entity to find companies like' }), ...similarArgs },
    resolve: async (_root, { id, ...args }, context) => (await findSimilar(id, args, context)) ?? Promise.reject(notFound('Entity')),
  }),
}));
