import type { FastifyRequest } from 'fastify';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { InnerAnswer, InnerRequest } from '../../http/inject-as.ts';
import type { MayUse } from './tool-access.ts';

/**
 * What a tool call takes from the `/mcp` request it came with; everything else about a tool is the
 * same for every request (the definitions are built once per app: mcp-tools.ts).
 */
export interface CallContext {
  /** Runs a request against the API as the caller's key, from its address (`injectAs`). */
  inject: (inner: InnerRequest) => Promise<InnerAnswer>;
  /** The `/mcp` request itself: its protocol and host make absolute links. */
  request: FastifyRequest;
  /** Whether the caller's key may use a resource with a method. */
  may: MayUse;
}

/** A tool as the SDK registers it, plus the endpoints that decide whether a key is offered it. */
export interface ToolDefinition {
  readonly name: string;
  /** The input schema is a whole object schema, made once: the SDK would wrap a bare shape in a new one per registration. */
  readonly config: { readonly description: string; readonly inputSchema: z.ZodObject };
  /** The endpoints the tool calls, as (resource, method) (tool-access.ts): a key is offered it when its rules allow one. */
  readonly needs: ReadonlyArray<readonly [string, string]>;
  /** Runs a call whose arguments the SDK has checked against `config.inputSchema`. */
  readonly run: (args: Record<string, unknown>, call: CallContext) => Promise<CallToolResult>;
}

/** Makes a definition, its arguments typed from its input schema. */
export type DefineTool = <Shape extends z.ZodRawShape>(
  name: string,
  config: { description: string; inputSchema: Shape },
  run: (args: z.output<z.ZodObject<Shape>>, call: CallContext) => Promise<CallToolResult>,
) => ToolDefinition;
