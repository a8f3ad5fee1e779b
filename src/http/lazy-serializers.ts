import fastJsonStringify from 'fast-json-stringify';
import type { FastifyInstance } from 'fastify';

type Serialize = (data: unknown) => string;

/**
 * Response serialisers compiled on a route's first answer, and once per schema. Fastify's default
 * compiles every response schema at start, for every URL and its HEAD twin: each model's list and
 * record schemas under each of its names came to 344 generated serialisers, about 6 MiB of source
 * plus their code, though a process answers a handful of resources. Here a route's serialiser is
 * built when it first answers, and routes sharing a schema object (a resource's aliases) share it;
 * HEAD answers through GET's route (resource-route.ts). The output is fast-json-stringify's, as
 * with Fastify's default.
 */
export function registerLazySerializers(app: FastifyInstance, build: (schema: object) => Serialize = fastJsonStringify as (schema: object) => Serialize): void {
  const compiled = new WeakMap<object, Serialize>();
  const compile = (schema: object): Serialize => {
    let serialize = compiled.get(schema);
    if (!serialize) {
      serialize = build(schema);
      compiled.set(schema, serialize);
    }
    return serialize;
  };
  app.setSerializerCompiler(({ schema }) => {
    let serialize: Serialize | undefined;
    return (data: unknown) => (serialize ??= compile(schema as object))(data);
  });
}
