import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AppContext } from '../../app-context.ts';
import { PACKAGE_VERSION } from '../../version.ts';
import { registerTools } from './mcp-tools.ts';

/**
 * One stateless MCP exchange (a POST to `/mcp`): a server with the tools this request's key may
 * use, answering on the raw response through the SDK's transport. Imported on the first `/mcp`
 * request (mcp-routes.ts): the SDK and zod cost about 12 MiB resident that most processes never use.
 */
export async function answerMcp(app: FastifyInstance, ctx: AppContext, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const server = new McpServer({ name: 'invoicing-api', version: PACKAGE_VERSION });
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
