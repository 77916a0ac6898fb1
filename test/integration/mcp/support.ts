// Shared by the MCP tests: the SDK's own client over HTTP, with the three headers every request carries.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { TestApp } from '../../helpers/app.ts';

export async function connectMcp(app: TestApp, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: 'venture-data-api-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The text of a tool's error, asserting it is one. */
export function errorText(result: CallToolResult): string {
  if (result.isError !== true) throw new Error(`expected a tool error, got ${JSON.stringify(result).slice(0, 300)}`);
  const [first] = result.content;
  return first?.type === 'text' ? first.text : '';
}
