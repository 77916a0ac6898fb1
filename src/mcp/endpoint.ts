/**
 * `/mcp`: the Model Context Protocol over Streamable HTTP, stateless (no session: several instances
 * behind one address answer alike). A request is authenticated as /api's are (the same three
 * headers, tokens, rate limit), except that a request without a token is told, in RFC 9728's
 * challenge, where the protected resource metadata names the token endpoint. One JSON-RPC message per
 * request, so each request is one rate-limit charge and one usage count, named by its tool.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { resourceMetadataChallenge } from '../auth/well-known.ts';
import type { Config } from '../config.ts';
import { AppError, findAppError, validationError } from '../errors.ts';
import type { RestHandler } from '../rest/handler.ts';
import type { RestRequest } from '../rest/request.ts';
import { restGet } from './rest-call.ts';
import { createServer, createTools } from './server.ts';

export const MCP_PATH = '/mcp';

/** What the HTTP binding (src/http/mcp-route.ts) hands over. */
export interface McpExchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** The parsed JSON body. */
  body: unknown;
  /** The HTTP request as the REST handler sees it: authenticated once; each tool's read is a pass of it. */
  request: RestRequest;
  /** Told the status of a tool call's reads when one failed (usage counts the call as an error). */
  onToolFailure(status: number): void;
}

export interface McpEndpointOptions {
  config: Config;
  handle: RestHandler;
  version: string;
}

/** Serves one request; throws AppError for what is refused before MCP (answered in the API's envelope). */
export type McpEndpoint = (exchange: McpExchange) => Promise<void>;

export function createMcpEndpoint({ config, handle, version }: McpEndpointOptions): McpEndpoint {
  const tools = createTools(handle);
  const toolNames = new Set(tools.map((tool) => tool.name));
  return async ({ req, res, body, request, onToolFailure }) => {
    if (req.method !== 'POST') {
      // Stateless: no stream to resume (GET) and no session to end (DELETE).
      throw new AppError('METHOD_NOT_ALLOWED', `${req.method} is not allowed on ${MCP_PATH}`, { headers: { Allow: 'POST' } });
    }
    if (!request.header('authorization')) {
      throw new AppError('UNAUTHORIZED', 'An access token is required: Authorization: Bearer <access token> (see the WWW-Authenticate header)', {
        headers: { 'WWW-Authenticate': resourceMetadataChallenge(config, MCP_PATH) },
      });
    }
    await authenticate(config, handle, request);
    request.endpoint = `POST ${MCP_PATH}`;
    if (Array.isArray(body)) {
      throw validationError([{ path: 'body', message: 'must be one JSON-RPC message; batches are not accepted' }]);
    }
    // Usage and metrics name a tool call by its tool; a name no tool has would make any number of series.
    const tool = toolName(body);
    if (tool && toolNames.has(tool)) request.endpoint = `POST ${MCP_PATH} ${tool}`;
    request.responseHeaders.forEach((value, name) => res.setHeader(name, value));

    const get = restGet(handle, request, (status) => {
      if (status >= 400) onToolFailure(status);
    });
    const server = createServer(tools, get, version);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
}

/** The REST handler's authentication; a refused token also says where the metadata is (RFC 9728 §5.1). */
async function authenticate(config: Config, handle: RestHandler, request: RestRequest): Promise<void> {
  try {
    await handle.begin(request);
  } catch (error) {
    // The context factory's refusal, an AppError (unwrapped in case a layer wraps it).
    const refusal = findAppError(error);
    if (!refusal) throw error;
    if (refusal.code !== 'UNAUTHORIZED') throw refusal;
    throw new AppError(refusal.code, refusal.message, {
      details: refusal.details,
      headers: { ...refusal.headers, 'WWW-Authenticate': resourceMetadataChallenge(config, MCP_PATH, 'invalid_token') },
    });
  }
}

function toolName(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return undefined;
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
  return method === 'tools/call' && typeof params?.name === 'string' ? params.name : undefined;
}
