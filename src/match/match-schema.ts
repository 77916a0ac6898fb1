/**
 * Matching one's own records to entities, declared once: `match` and `POST /api/match`
 * (docs/finding-companies.md, "Matching a CRM export"). A query: it reads and changes nothing.
 */
import { OWN_STATEMENT } from '../compile/operation.ts';
import type { WorkCharges } from '../graphql/work-charges.ts';
import { MATCH_COMPARED_INPUTS, MATCH_IDENTIFYING_INPUTS, MATCH_MAX_RECORDS, matchBodySchema, readMatchRequest } from './input.ts';
import { runMatch } from './run.ts';
import { CANDIDATE_FLOOR, MATCH_THRESHOLD, type Candidate, type MatchResult, type Reason } from './score.ts';
import { builder } from '../schema/builder.ts';
import { declareResource } from '../schema/resource.ts';

export const MATCH = declareResource({
  name: 'match',
  description: 'Your own records (a CRM export) matched to entities by website, external id, name and location.',
  read: 'read:entities',
  replicaReads: true,
  rest: [
    {
      method: 'POST',
      path: '/api/match',
      operation: 'Match',
      kind: 'feed',
      // Checked here for REST's detail paths (`body.records[3]`), and passed on as sent.
      body: (body) => {
        readMatchRequest(body, 'body');
        const { records, min_confidence } = body as { records: unknown[]; min_confidence?: number | null };
        return { records, min_confidence: min_confidence ?? null };
      },
      bodySchema: matchBodySchema,
    },
  ],
});

const ReasonType = builder.objectRef<Reason>('MatchReason').implement({
  extensions: MATCH.owns(),
  description: 'An input of the record compared with the candidate',
  fields: (t) => ({
    field: t.exposeString('field', { description: `One of ${MATCH_COMPARED_INPUTS.join(', ')}` }),
    agrees: t.exposeBoolean('agrees'),
    detail: t.exposeString('detail'),
  }),
});

const CandidateType = builder.objectRef<Candidate>('MatchCandidate').implement({
  extensions: MATCH.owns(),
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'The entity id' }),
    name: t.exposeString('name'),
    website: t.exposeString('website'),
    hq_country: t.exposeString('hq_country'),
    confidence: t.exposeFloat('confidence', { description: 'The probability, from 0 to 1, that this is the record’s entity (docs/finding-companies.md)' }),
    reasons: t.field({ type: [ReasonType], resolve: (candidate) => candidate.reasons }),
  }),
});

const ResultType = builder.objectRef<MatchResult>('MatchResult').implement({
  extensions: MATCH.owns(),
  description: 'The answer for one record, in the order sent',
  fields: (t) => ({
    status: t.exposeString('status', {
      description: `matched (the best candidate's confidence is at least ${MATCH_THRESHOLD}), ambiguous, or not_found (no candidate reaches ${CANDIDATE_FLOOR})`,
    }),
    candidate: t.field({ type: CandidateType, nullable: true, resolve: (result) => result.candidate }),
    alternatives: t.field({ type: [CandidateType], resolve: (result) => result.alternatives }),
    metadata: t.field({ type: 'JSON', nullable: true, description: 'The record’s metadata, unchanged', resolve: (result) => result.metadata }),
  }),
});

const MatchResults = builder.objectRef<{ data: MatchResult[] }>('MatchResults').implement({
  extensions: MATCH.owns(),
  fields: (t) => ({ data: t.field({ type: [ResultType], resolve: (results) => results.data }) }),
});

builder.queryFields((t) => ({
  match: t.field({
    type: MatchResults,
    // Every match field of a request draws on one budget of MATCH_MAX_RECORDS records (src/graphql/work-charges.ts).
    extensions: { ...MATCH.reads, ...OWN_STATEMENT, ...({ batchRecords: 'records' } satisfies WorkCharges) },
    description: `Matches up to ${MATCH_MAX_RECORDS} of your records (${[...MATCH_COMPARED_INPUTS, 'metadata'].join(', ')}) to entities`,
    args: {
      records: t.arg({ type: ['JSON'], required: true, description: `1 to ${MATCH_MAX_RECORDS} records, each with at least one of ${MATCH_IDENTIFYING_INPUTS.join(', ')}` }),
      min_confidence: t.arg.float({ description: `Raises the confidence a match needs (default ${MATCH_THRESHOLD})` }),
    },
    resolve: async (_root, args, context) => {
      const request = readMatchRequest({ records: args.records, min_confidence: args.min_confidence }, '');
      return { data: await runMatch(context.sql, request, context.signal) };
    },
  }),
}));
