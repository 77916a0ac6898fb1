/**
 * What /mcp says at the protocol level, seen by the SDK's own client over real HTTP: a stateless server
 * advertises no list-change notifications (it never sends one), and an unknown tool is a JSON-RPC
 * error (-32602, invalid params), not a tool result, while a known tool's refused arguments stay a
 * tool error a model can act on.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { callTool, connectMcp, errorText } from './support.ts';

let app: TestApp;
let admin: TestCredentials;
let client: Client;

beforeAll(async () => {
  app = await startTestApp();
  admin = await createApiKeyAndToken(app);
  client = await connectMcp(app, admin.headers);
}, 120_000);

afterAll(async () => {
  await client?.close();
  await app?.close();
});

it('advertises tools and resources without promising list-change notifications', () => {
  const capabilities = client.getServerCapabilities();
  expect(capabilities?.tools).toBeDefined();
  expect(capabilities?.resources).toBeDefined();
  expect(capabilities?.tools?.listChanged).not.toBe(true);
  expect(capabilities?.resources?.listChanged).not.toBe(true);
});

it('answers an unknown tool with a JSON-RPC invalid-params error', async () => {
  const refusal = await callTool(client, 'search_unicorns', {}).then(
    (result) => result,
    (error: unknown) => error,
  );
  expect(refusal).toBeInstanceOf(McpError);
  expect(refusal).toMatchObject({ code: ErrorCode.InvalidParams, message: expect.stringContaining('search_unicorns') });
  // On the wire: an `error` member, no `result`.
  const response = await admin.fetch('/mcp', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'search_unicorns', arguments: {} } }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as Record<string, unknown>;
  expect(body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32602 } });
  expect(body).not.toHaveProperty('result');
});

it('still runs a known tool, and answers its refused arguments as a tool error', async () => {
  const described = await callTool(client, 'describe_filters', { resource: 'entities' });
  expect(described.isError).toBeFalsy();
  expect(errorText(await callTool(client, 'describe_filters', { resource: 'entities', extra: 1 }))).toMatch(/extra/);
});
