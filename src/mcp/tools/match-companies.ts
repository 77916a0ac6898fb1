/**
 * match_companies: one's own records (a CRM export) matched to entities (POST /api/match,
 * docs/finding-companies.md "Matching a CRM export").
 */
import { z } from 'zod';
import { MATCH_COMPARED_INPUTS, MATCH_IDENTIFYING_INPUTS, MATCH_MAX_RECORDS, matchBodySchema } from '../../match/input.ts';
import { MATCH_THRESHOLD } from '../../match/score.ts';
import { toolError, toolResult } from '../rest-call.ts';
import { defineTool, type Tool } from '../tool.ts';

const identifying: readonly string[] = MATCH_IDENTIFYING_INPUTS;
const optionalInputs = MATCH_COMPARED_INPUTS.filter((input) => !identifying.includes(input)).join(', ');

const candidate = z.object({
  id: z.number().int(),
  name: z.string(),
  website: z.string(),
  hq_country: z.string(),
  confidence: z.number(),
  reasons: z.array(z.object({ field: z.string(), agrees: z.boolean(), detail: z.string() })),
});

export const matchCompanies: Tool = defineTool({
  name: 'match_companies',
  title: 'Match your own company records to entities',
  description:
    `Matches up to ${MATCH_MAX_RECORDS} records (each with at least one of ${MATCH_IDENTIFYING_INPUTS.join(', ')}; optionally ${optionalInputs}) to companies. ` +
    `Each answer has a status: matched (its best candidate is the record's company with a probability of at least ${MATCH_THRESHOLD}), ambiguous (look at candidate and alternatives; ` +
    'add a country or website to decide), not_found; candidates carry that probability as confidence and the reasons (which inputs agreed or disagreed, and by how much). ' +
    'min_confidence raises the bar of matched. A website on a platform (facebook.com, linkedin.com, ...) is a profile there and says nothing.',
  // POST /api/match's own body schema: the same fields, bounds and refusals (an unknown key included).
  input: matchBodySchema.shape,
  output: {
    data: z.array(z.object({ status: z.enum(['matched', 'ambiguous', 'not_found']), candidate: candidate.nullable(), alternatives: z.array(candidate), metadata: z.unknown() })),
  },
  run: async ({ records, min_confidence }, get) => {
    const answer = await get('/api/match', {}, { records, ...(min_confidence === undefined || min_confidence === null ? {} : { min_confidence }) });
    if (answer.status !== 200) return toolError(answer);
    return toolResult({ data: (answer.body as { data: unknown[] }).data });
  },
});
