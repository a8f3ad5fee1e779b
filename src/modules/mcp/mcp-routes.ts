import type { FastifyInstance } from 'fastify';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AppContext } from '../../app-context.ts';
import { addResourceRoute, type Handler } from '../../http/resource-route.ts';
import { PACKAGE_VERSION } from '../../version.ts';
import { registerTools } from './mcp-tools.ts';

/**
 * `/mcp`: a Model Context Protocol server over the Streamable HTTP transport (docs/mcp.md), in its
 * stateless form: each POST carries a whole exchange, answered as JSON, so that any instance serves
 * it and nothing is kept between requests. The route goes through the API's pipeline like the
 * root (open to every valid key; API switch, ban and key apply); each tool call is a request of
 * its own through the same pipeline, checked against the key's rules and counted by its rate limit.
 */
export function registerMcpRoutes(app: FastifyInstance, ctx: AppContext): void {
  ctx.customResources.add('mcp');
  const handler: Handler = async (request, reply) => {
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
  };
  addResourceRoute(app, {
    // Open to every valid key (the root's resource); not metered itself: each tool call is a request of its own.
    resource: '', urls: ['/mcp'], unmetered: true, answersItself: true,
    methods: {
      POST: { handler, openapi: { summary: 'Model Context Protocol (Streamable HTTP, stateless): tools for agents over this API (docs/mcp.md)', response: { type: 'object' } } },
    },
  });
}
