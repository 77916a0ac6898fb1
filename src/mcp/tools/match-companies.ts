/**
 * match_companies: one's own records (a CRM export) matched to entities (POST /api/match,
 * docs/finding-companies.md "Matching a CRM export").
 */
import { z } from 'zod';
import { MATCH_MAX_RECORDS } from '../../match/input.ts';
import { toolError, toolResult } from '../rest-call.ts';
import { defineTool, type Tool } from '../tool.ts';

const record = z.object({
  name: z.string().optional(),
  website: z.string().optional().describe('A domain, URL or e-mail address'),
  hq_country: z.string().optional(),
  hq_city: z.string().optional(),
  launch_year: z.number().int().optional(),
  external_id: z.string().optional().describe('<source>:<id>, e.g. crunchbase:airbnb'),
  metadata: z.unknown().optional().describe('Echoed back unchanged'),
});

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
    `Matches up to ${MATCH_MAX_RECORDS} records (each with at least one of name, website, external_id; optionally hq_country, hq_city, launch_year) to companies. ` +
    'Each answer has a status: matched (one candidate clearly ahead), ambiguous (look at candidate and alternatives; add a country or website to decide), ' +
    'not_found; candidates carry a confidence from 0 to 1 and the reasons (which inputs agreed or disagreed). min_confidence raises the bar of matched.',
  input: {
    records: z.array(record).min(1).max(MATCH_MAX_RECORDS),
    min_confidence: z.number().min(0).max(1).optional(),
  },
  output: {
    data: z.array(z.object({ status: z.enum(['matched', 'ambiguous', 'not_found']), candidate: candidate.nullable(), alternatives: z.array(candidate), metadata: z.unknown() })),
  },
  run: async ({ records, min_confidence }, get) => {
    const answer = await get('/api/match', {}, { records, ...(min_confidence === undefined ? {} : { min_confidence }) });
    if (answer.status !== 200) return toolError(answer);
    return toolResult({ data: (answer.body as { data: unknown[] }).data });
  },
});
