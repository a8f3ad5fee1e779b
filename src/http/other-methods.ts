import FindMyWay from 'find-my-way';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** A resource path's answer to a method it does not serve: 405 with these `Allow`ed methods. */
export interface NotAllowed {
  /** The canonical resource the path belongs to (the key's rules are checked against it first). */
  resource: string;
  allow: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the pipeline when no route serves this method but the path is a resource's. */
    notAllowed?: NotAllowed;
  }
}

/**
 * The paths of the API's resources, whatever their methods, so that a method a path does not serve
 * is answered 405 rather than 404 (spec: "405 method not allowed"). Registering a Fastify route for
 * each unsupported method of each path held about 28 MiB at rest (a route context per URL); a
 * router of paths holds a few bytes each, and is asked only for requests no route matched.
 */
export class OtherMethods {
  // Matching as the application's router does (app.ts).
  readonly #paths = FindMyWay({ ignoreTrailingSlash: true });

  add(url: string, answer: NotAllowed): void {
    // One tree of paths: the method is not what is looked up.
    this.#paths.on('GET', url, () => {}, answer);
  }

  /** What the request's path allows, when it is a resource path. */
  of(request: FastifyRequest): NotAllowed | undefined {
    const path = request.url.split('?', 1)[0]!;
    return (this.#paths.find('GET', path)?.store as NotAllowed | null) ?? undefined;
  }
}

const registries = new WeakMap<object, OtherMethods>();

/** The registry of an application (shared by its encapsulated scopes, which share its HTTP server). */
export function otherMethodsOf(app: FastifyInstance): OtherMethods {
  let registry = registries.get(app.server);
  if (!registry) {
    registry = new OtherMethods();
    registries.set(app.server, registry);
  }
  return registry;
}
