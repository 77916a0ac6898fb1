/**
 * A tool as the MCP endpoint registers it: a name, a description written for a model, a strict input
 * schema (an unknown argument is refused, as REST refuses an unknown parameter, rather than silently
 * ignored), an output schema, and what it does with a RestGet. Every tool here only reads.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { RestGet } from './rest-call.ts';

export interface Tool {
  readonly name: string;
  register(server: McpServer, get: RestGet): void;
}

interface ToolSpec<I extends z.ZodRawShape, O extends z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  /** A function when the input reads the filter registries, which exist once the schema is built. */
  input: I | (() => I);
  output: O;
  run(args: z.output<z.ZodObject<I>>, get: RestGet): Promise<CallToolResult>;
}

export function defineTool<I extends z.ZodRawShape, O extends z.ZodRawShape>(spec: ToolSpec<I, O>): Tool {
  // Typed loosely for the SDK's generics; the SDK parses each call's arguments with it before `run`.
  let inputSchema: z.ZodType | undefined;
  const outputSchema: z.ZodType = z.object(spec.output);
  return {
    name: spec.name,
    register: (server, get) => {
      inputSchema ??= z.strictObject(typeof spec.input === 'function' ? spec.input() : spec.input);
      server.registerTool(
        spec.name,
        {
          title: spec.title,
          description: spec.description,
          inputSchema,
          outputSchema,
          // Reads only: nothing changes, asking twice answers the same, and only this service's data is reached.
          annotations: { title: spec.title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        },
        (args: unknown) => spec.run(args as z.output<z.ZodObject<I>>, get),
      );
    },
  };
}
