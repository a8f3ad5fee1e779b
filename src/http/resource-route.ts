import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema, HTTPMethods } from 'fastify';
import { AppError } from '../errors.ts';
import type { Model } from '../models/define-model.ts';
import { otherMethodsOf } from './other-methods.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type Handler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

const ALL_METHODS: Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** What a write answers, so that a profile can reshape it (the established system wraps writes). */
export type WriteKind = 'create' | 'update' | 'delete';

/**
 * Where the records of a response are: the model of the whole body (a record or a list of them),
 * or per property (`{ doc: header, lines: line }`, `{ data: header }`). The profile serializer
 * formats their dates; anything not described is left as it is.
 */
export type ResponseShape = Model | { readonly [property: string]: ResponseShape };

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Canonical resource name the access rules are checked against. */
    resource?: string;
    write?: WriteKind;
    shape?: ResponseShape;
    /** `model`: a generic model resource (its errors follow the request's profile). */
    family?: 'model';
    /** Multipart bodies are handed over unread as a `MultipartStream` (uploads). */
    streamsFiles?: boolean;
    /** Answered without an API key (signed download links): the pipeline skips key and rules. */
    public?: boolean;
    /** Health and readiness: outside the API, answered even with the API switched off. */
    operational?: boolean;
    /** A 405 route: methods a parameter sibling would take (`shadowedBy`); other unsupported methods have no route (other-methods.ts). */
    notAllowed?: boolean;
    /** Not counted by the rate limit itself: what it does is counted as requests of their own (the MCP endpoint's tool calls, a batch's operations). */
    unmetered?: boolean;
    /** The handler writes the answer on the raw response itself (MCP's transport): no `Idempotency-Key` answer can be kept. */
    answersItself?: boolean;
    /** The admin console's files: not part of the API, so not in its OpenAPI description. */
    console?: boolean;
    /** What the OpenAPI description says of a custom endpoint (never used to validate or serialise). */
    openapi?: OperationDoc;
  }
}

/** A custom endpoint described for OpenAPI: its summary, the body it reads and what it answers with which status. */
export interface OperationDoc {
  summary?: string;
  description?: string;
  body?: Record<string, unknown>;
  status?: number;
  response?: Record<string, unknown>;
}

export interface ResourceRoute {
  /** Canonical resource name (permissions, root listing). */
  resource: string;
  /** Every URL of this route (canonical name and alias). */
  urls: string[];
  /** The records its answers carry (see ResponseShape). */
  shape?: ResponseShape;
  family?: 'model';
  methods: Partial<Record<Method, { handler: Handler; schema?: FastifySchema; write?: WriteKind; shape?: ResponseShape; streamsFiles?: boolean; openapi?: OperationDoc }>>;
  /**
   * The methods a parameter sibling serves (`/schema` beside `/:id`): the router would hand this
   * path to the sibling for them, so they keep a 405 route of their own. Every other method a path
   * does not serve is answered 405 from the path registry (other-methods.ts).
   */
  shadowedBy?: Method[];
  /** See FastifyContextConfig.unmetered. */
  unmetered?: boolean;
  /** See FastifyContextConfig.answersItself. */
  answersItself?: boolean;
}

/**
 * The methods of a path grouped into as few routes as answer the same: each Fastify route holds a
 * context of its own (a few KiB, times every path of every resource). HEAD shares GET's route
 * (Fastify's own HEAD twin would be another; Node sends a HEAD answer's headers without its body),
 * and methods with the same handler and options (PUT and PATCH) share one.
 */
function sharedRoutes(route: ResourceRoute, supported: Method[]): HTTPMethods[][] {
  const groups: HTTPMethods[][] = [];
  const same = (a: Method, b: Method) => {
    const [x, y] = [route.methods[a]!, route.methods[b]!];
    return x.handler === y.handler && x.schema === y.schema && x.write === y.write && x.shape === y.shape && x.streamsFiles === y.streamsFiles && x.openapi === y.openapi;
  };
  for (const method of supported) {
    const group = groups.find((methods) => same(methods[0] as Method, method));
    if (group) group.push(method);
    else groups.push(method === 'GET' ? ['GET', 'HEAD'] : [method]);
  }
  return groups;
}

/**
 * Registers one resource path: each supported method with its handler, and every other method
 * answered 405 with an Allow header (spec: "405 method not allowed").
 */
/**
 * The record a route's URL names (`/api/3/<resource>/:id`), or 400 `record-not-specified` when the
 * URL names none (the resource's bare URL answers it too, rather than 404).
 */
export function specifiedRecord(request: { params: unknown }, name: 'id' | 'code' = 'id'): string {
  const value = (request.params as Record<string, string | undefined>)[name];
  if (value === undefined || value === '') throw new AppError('record-not-specified');
  return value;
}

export function addResourceRoute(app: FastifyInstance, route: ResourceRoute): void {
  const supported = ALL_METHODS.filter((method) => route.methods[method]);
  const unsupported: HTTPMethods[] = ALL_METHODS.filter((method) => !route.methods[method]);
  if (!route.methods.GET) unsupported.push('HEAD');
  const allow = [...supported, ...(route.methods.GET ? ['HEAD'] : []), 'OPTIONS'].join(', ');
  const config = { resource: route.resource, ...(route.unmetered ? { unmetered: true } : {}), ...(route.answersItself ? { answersItself: true } : {}) };
  for (const url of route.urls) {
    for (const methods of sharedRoutes(route, supported)) {
      const { handler, schema, write, shape, streamsFiles, openapi } = route.methods[methods[0] as Method]!;
      app.route({ method: methods, exposeHeadRoute: false, url, config: { ...config, write, shape: shape ?? route.shape, family: route.family, streamsFiles, openapi }, schema, handler });
    }
    if (!unsupported.length) continue;
    otherMethodsOf(app).add(url, { resource: route.resource, allow });
    const shadowed = unsupported.filter((method) => route.shadowedBy?.includes(method as Method));
    if (!shadowed.length) continue;
    app.route({
      method: shadowed,
      url,
      config: { ...config, notAllowed: true },
      handler: async () => {
        throw new AppError('method-not-allowed', { allow });
      },
    });
  }
}
