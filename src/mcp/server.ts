/**
 * The MCP server of one HTTP request. The endpoint is stateless (any instance answers any request),
 * so each request gets a server of its own, bound to that request's caller; the tools' schemas are
 * built once, at start-up.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
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
import { similarCompanies } from './tools/similar.ts';

const INSTRUCTIONS =
  'Venture data: companies (entities), founders, investors, funding rounds (transactions), valuations and news. ' +
  'To find a record by name or website: search (one search box across companies, investors and founders); to match a list of company records: match_companies. ' +
  'To answer a question: describe_filters shows the fields of a resource; lookup_values turns a place name into the id filters take; ' +
  'validate_filter checks a filter; search_* list records a page at a time (pass next_cursor back as cursor); get_record reads one; similar_companies finds companies like one, with reasons; ' +
  'aggregate counts and sums by dimensions. Every answer is limited to what the access token may read.';

export function createTools(handle: RestHandler): readonly Tool[] {
  return [
    ...searchTools(handle),
    search,
    matchCompanies,
    getRecord,
    similarCompanies,
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
  refuseUnknownTools(server, new Set(tools.map((tool) => tool.name)));
  for (const tool of tools) tool.register(server, get);
  registerResources(server, get);
  // The SDK advertises list changes once anything is registered; a server that lives for one request
  // never sends a notification, and its lists change only with a new version (clients list again).
  server.server.registerCapabilities({ tools: { listChanged: false }, resources: { listChanged: false } });
  return server;
}

/**
 * An unknown tool is a JSON-RPC error (-32602, invalid params), as the MCP specification asks of a
 * protocol error; McpServer answers it as a tool result with `isError`, which a client reads as the
 * tool having run and failed. Its tools/call handler is wrapped as McpServer installs it.
 */
function refuseUnknownTools(server: McpServer, names: ReadonlySet<string>): void {
  type Handler = (request: { params: { name: string } }, extra: unknown) => unknown;
  const low = server.server;
  const install = low.setRequestHandler.bind(low) as (schema: unknown, handler: Handler) => void;
  const guarded = (handler: Handler): Handler => (request, extra) => {
    if (!names.has(request.params.name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    return handler(request, extra);
  };
  low.setRequestHandler = ((schema: unknown, handler: Handler) =>
    install(schema, schema === CallToolRequestSchema ? guarded(handler) : handler)) as typeof low.setRequestHandler;
}
