import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { addResourceRoute, type Handler } from '../../http/resource-route.ts';

/**
 * `/mcp`: a Model Context Protocol server over the Streamable HTTP transport (docs/mcp.md), in its
 * stateless form: each POST carries a whole exchange, answered as JSON, so that any instance serves
 * it and nothing is kept between requests. The route goes through the API's pipeline like the
 * root (open to every valid key; API switch, ban and key apply); each tool call is a request of
 * its own through the same pipeline, checked against the key's rules and counted by its rate limit.
 */
export function registerMcpRoutes(app: FastifyInstance, ctx: AppContext): void {
  ctx.customResources.add('mcp');
  let exchange: Promise<typeof import('./mcp-exchange.ts')> | undefined;
  // An import that failed to load or resolve is not kept: the next request tries again (a module that threw while running stays failed in Node).
  const load = () => (exchange ??= import('./mcp-exchange.ts').catch((error: unknown) => {
    exchange = undefined;
    throw error;
  }));
  const handler: Handler = async (request, reply) => (await load()).answerMcp(app, ctx, request, reply);
  addResourceRoute(app, {
    // Open to every valid key (the root's resource); not metered itself: each tool call is a request of its own.
    resource: '', urls: ['/mcp'], unmetered: true, answersItself: true,
    methods: {
      POST: { handler, openapi: { summary: 'Model Context Protocol (Streamable HTTP, stateless): tools for agents over this API (docs/mcp.md)', response: { type: 'object' } } },
    },
  });
}
