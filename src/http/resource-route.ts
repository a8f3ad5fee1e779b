import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, HTTPMethods } from 'fastify';
import { AppError } from '../errors.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

const ALL_METHODS: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Canonical resource name the access rules are checked against. */
    resource?: string;
  }
}

export interface ResourceRoute {
  /** Canonical resource name (permissions, root listing). */
  resource: string;
  /** Every URL of this route (canonical name and alias). */
  urls: string[];
  methods: Partial<Record<Method, { handler: Handler; schema?: FastifySchema }>>;
}

/**
 * Registers one resource path: each supported method with its handler, and every other method
 * answered 405 with an Allow header (spec: "405 method not allowed").
 */
export function addResourceRoute(app: FastifyInstance, route: ResourceRoute): void {
  const supported = ALL_METHODS.filter((method) => route.methods[method]);
  const unsupported: HTTPMethods[] = ALL_METHODS.filter((method) => !route.methods[method]);
  if (!route.methods.GET) unsupported.push('HEAD');
  const allow = [...supported, ...(route.methods.GET ? ['HEAD'] : []), 'OPTIONS'].join(', ');
  const config = { resource: route.resource };
  for (const url of route.urls) {
    for (const method of supported) {
      const { handler, schema } = route.methods[method]!;
      app.route({ method, url, config, schema, handler });
    }
    if (unsupported.length) {
      app.route({
        method: unsupported,
        url,
        config,
        handler: async () => {
          throw new AppError('method-not-allowed', { allow });
        },
      });
    }
  }
}
