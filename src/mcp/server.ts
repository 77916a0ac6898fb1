/**
 * The MCP server of one HTTP request. The endpoint is stateless (any instance answers any request),
 * so each request gets a server of its own, bound to that request's caller; the tools' schemas are
 * built once, at start-up.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RestHandler } from '../rest/handler.ts';
import { registerResources } from './resources.ts';
import type { RestGet } from './rest-call.ts';
import type { Tool } from './tool.ts';
import { aggregate } from './tools/aggregate.ts';
import { ecosystemEntities, listEcosystems } from './tools/ecosystems.ts';
import { describeFilters, lookupValues, validateFilter } from './tools/filters.ts';
import { search } from './tools/find-by-name.ts';
import { matchCompanies } from './tools/match-companies.ts';
import { getRecord } from './tools/records.ts';
import { searchTools } from './tools/search.ts';

const INSTRUCTIONS =
  'Venture data: companies (entities), founders, investors, funding rounds (transactions), valuations and news. ' +
  'To find a record by name or website: search (one search box across companies, investors and founders); to match a list of company records: match_companies. ' +
  'To answer a question: describe_filters shows the fields of a resource; lookup_values turns a place name into the id filters take; ' +
  'validate_filter checks a filter; search_* list records a page at a time (pass next_cursor back as cursor); get_record reads one; ' +
  'aggregate counts and sums by dimensions. Every answer is limited to what the access token may read.';

export function createTools(handle: RestHandler): readonly Tool[] {
  return [
    ...searchTools(handle),
    search,
    matchCompanies,
    getRecord,
    describeFilters,
    lookupValues,
    validateFilter,
    aggregate,
    listEcosystems,
    ecosystemEntities(handle),
  ];
}

export function createServer(tools: readonly Tool[], get: RestGet, version: string): McpServer {
  const server = new McpServer({ name: 'venture-data-api', version }, { instructions: INSTRUCTIONS });
  for (const tool of tools) tool.register(server, get);
  registerResources(server, get);
  return server;
}
