/**
 * What a model may read before it writes a filter: the grammar (src/filter/grammar.md, the language's
 * definition) and each resource's field list, read through GET /api/filters/{resource} so the same
 * permission guards it.
 */
import { readFileSync } from 'node:fs';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { RESOURCES } from '../filter/index.ts';
import { packagePath } from '../package-root.ts';
import type { ErrorEnvelope, RestGet } from './rest-call.ts';

export const GRAMMAR_URI = 'venture-data://filter-grammar';
export const fieldsUri = (resource: string): string => `venture-data://fields/${resource}`;

const GRAMMAR = readFileSync(packagePath('src/filter/grammar.md'), 'utf8');

export function registerResources(server: McpServer, get: RestGet): void {
  server.registerResource(
    'filter-grammar',
    GRAMMAR_URI,
    { title: 'Filter expression grammar', description: 'The filter language every search, aggregate and ecosystem takes: syntax, operators, values, errors', mimeType: 'text/markdown' },
    (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/markdown', text: GRAMMAR }] }),
  );
  for (const resource of RESOURCES) {
    server.registerResource(
      `fields-${resource}`,
      fieldsUri(resource),
      { title: `Fields of ${resource}`, description: `What filters, sorts and aggregates of ${resource} can name: type, operators, sortable`, mimeType: 'application/json' },
      async (uri) => {
        const answer = await get(`/api/filters/${resource}`);
        // A resource read has no tool-error form: the refusal is the request's JSON-RPC error.
        if (answer.status !== 200) throw new Error((answer.body as ErrorEnvelope).error.message);
        const fields = (answer.body as { data: unknown }).data;
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(fields, null, 2) }] };
      },
    );
  }
}
