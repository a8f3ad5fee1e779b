import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { AppContext } from '../../app-context.ts';
import { PACKAGE_VERSION } from '../../version.ts';
import { registerTools } from './mcp-tools.ts';

/**
 * One JSON Schema validator for every server: left to itself, each `McpServer` makes its own (an
 * Ajv instance with its formats, about 0.1-0.2 ms, more than the rest of the server), which only
 * checks answers to server-to-client requests (elicitation) these servers never send. It keeps no
 * request's state: a cache of compiled schemas.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/**
 * One stateless MCP exchange (a POST to `/mcp`): a server with the tools this request's key may
 * use, answering on the raw response through the SDK's transport. Imported on the first `/mcp`
 * request (mcp-routes.ts): the SDK and zod cost about 12 MiB resident that most processes never use.
 * The tools themselves are built once per app (mcpTools, mcp-tools.ts); only the server is made here.
 */
export async function answerMcp(app: FastifyInstance, ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  // A server per request: the SDK's server is connected to one transport at a time, and a stateless
  // transport serves a single request (the SDK refuses to reuse one), so concurrent requests cannot
  // share a server; making one and registering the key's tools on it is cheap (the definitions are shared).
  const server = new McpServer({ name: 'invoicing-api', version: PACKAGE_VERSION }, { jsonSchemaValidator });
  registerTools(server, ctx, app, request);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  // The transport writes the answer itself: the headers the API's hooks set so far go with it (CORS, request id).
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value as string | number | string[]);
  reply.hijack();
  reply.raw.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request.raw, reply.raw, request.body);
  return reply;
}
