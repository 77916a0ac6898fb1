/**
 * `/mcp` on the pipeline: the body step (one JSON-RPC message, within the body limits), then the MCP
 * endpoint (src/mcp/endpoint.ts), whose SDK transport writes the protocol's answer. What is refused
 * before MCP (method, token, body) is answered in the API's envelope by the one writer.
 */
import type { McpEndpoint } from '../mcp/endpoint.ts';
import type { Exchange } from './exchange.ts';
import type { Route } from './front.ts';
import { bodyReader } from './read-body.ts';

export function mcpRoute(mcp: McpEndpoint): Route {
  const readBody = bodyReader({ strict: true, what: 'An MCP request', jsonOnly: (exchange) => exchange.method === 'POST', refuseNul: true });
  const serve = async (exchange: Exchange): Promise<void> => {
    await readBody(exchange);
    exchange.res.setHeader('X-Request-Id', exchange.requestId);
    await mcp({
      req: exchange.req,
      res: exchange.res,
      body: exchange.body,
      request: exchange,
      onToolFailure: (status) => {
        exchange.toolStatus = status;
      },
    });
  };
  return { serve };
}
