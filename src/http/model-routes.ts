import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.ts';
import type { Model } from '../models/define-model.ts';
import { coerceValue } from '../models/coerce.ts';
import type { FieldValue } from '../models/fields.ts';
import { writerOf } from './record-writer.ts';
import { recordJsonSchema, schemaOutput } from '../models/schema-output.ts';
import { encodeListCursor, keysetPageable } from '../query/list-cursor.ts';
import { parseListQuery, type ListQuery } from '../query/list-query.ts';
import type { AppContext } from '../app-context.ts';
import { bodyOf } from './body.ts';
import { streamList } from './list-stream.ts';
import { isLegacy } from './profile.ts';
import { addResourceRoute } from './resource-route.ts';
import { applyReadView, readViewOf, viewKey, wantsPresented, type ReadView } from './read-view.ts';
import { answerConditionalGet, conditionalWrite } from './conditional.ts';

/** The `{id}` path segment typed as the model's primary key; an impossible key is simply not found. */
export function parseId(model: Model, request: FastifyRequest): FieldValue {
  const raw = (request.params as { id: string }).id;
  const coerced = coerceValue({ ...model.fields[model.primaryKey]!, length: undefined }, raw, 'json');
  if (!coerced.ok || coerced.value === null) throw new AppError('record-not-found');
  return coerced.value;
}

/**
 * The next page of a full page: the same request with a `cursor` after its last row where the sort
 * allows keyset paging (list-cursor.ts), else with the next `offset`.
 */
function nextPageUrl(model: Model, query: ListQuery, url: string, last: Record<string, unknown>): string {
  const mark = url.indexOf('?');
  const params = new URLSearchParams(mark < 0 ? '' : url.slice(mark + 1));
  params.delete('cursor');
  params.delete('offset');
  if (keysetPageable(model, query.sort)) params.set('cursor', encodeListCursor(query.sort, last));
  else params.set('offset', String(query.offset + query.limit!));
  return `${mark < 0 ? url : url.slice(0, mark)}?${params.toString()}`;
}

/**
 * The generic resource of a model (spec "Model resources"), generated once from the registry
 * under the canonical name and the reference's plural alias. Handlers answer in the `spec`
 * profile's terms; the route's `write` and `shape` let the profile serializer reshape them for
 * `facturascripts` keys (profile-serializer.ts), and lenient reading follows the request's profile.
 */
export function registerModelRoutes(app: FastifyInstance, ctx: AppContext, model: Model): void {
  const { store, config } = ctx;
  const names = [...new Set([model.resource, model.alias])];
  const presenter = ctx.presenters.get(model);
  const plain = recordJsonSchema(model);
  const expansions = Object.fromEntries(Object.entries(ctx.expansions.get(model) ?? {}).map(([name, expansion]) => [name, expansion.schema]));
  const record = { ...plain, properties: { ...(plain.properties as object), ...(presenter?.properties ?? {}), ...expansions } };
  const schema = schemaOutput(model);
  const writer = writerOf(ctx, model);
  const { streamsFiles } = writer;
  const presented = Object.keys(presenter?.properties ?? {});
  const present = async <T extends Record<string, unknown>>(request: FastifyRequest, rows: T[], view?: ReadView): Promise<T[]> =>
    presenter && (!view || wantsPresented(view, presented)) ? ((await presenter.present(rows, request.query as Record<string, unknown>)) as T[]) : rows;
  const presentOne = async (request: FastifyRequest, row: Record<string, unknown>) => (await present(request, [row]))[0]!;
  const ensure = async (id: FieldValue) => {
    const found = await store.get(model, id);
    if (!found) throw new AppError('record-not-found');
    return found;
  };
  const list = async (request: FastifyRequest, reply: FastifyReply) => {
    const legacy = isLegacy(request);
    const query = parseListQuery(model, request.query as Record<string, unknown>, { defaultLimit: 50, maxLimit: legacy ? Number.MAX_SAFE_INTEGER : config.maxListLimit, lenient: legacy });
    const view = readViewOf(ctx, model, request, presented);
    if (query.limit === null) return streamList(ctx, model, query, reply, async (rows) => applyReadView(view, await present(request, rows, view)));
    const { rows, total } = await store.list(model, query);
    reply.header('X-Total-Count', String(total));
    if (rows.length === query.limit) reply.header('Link', `<${nextPageUrl(model, query, request.url, rows[rows.length - 1]!)}>; rel="next"`);
    return applyReadView(view, await present(request, rows, view));
  };
  const create = async (request: FastifyRequest, reply: FastifyReply) => {
    const { body, source } = bodyOf(request);
    reply.code(201);
    return presentOne(request, await writer.create(body, source, { ignoreUnknown: isLegacy(request) }));
  };
  const update = async (request: FastifyRequest) => {
    const id = parseId(model, request);
    const { body, source } = bodyOf(request);
    return conditionalWrite(store, request, model, id, async () => presentOne(request, await writer.update(id, body, source, { ignoreUnknown: isLegacy(request) })));
  };

  addResourceRoute(app, {
    resource: model.resource,
    urls: names.map((name) => `/api/3/${name}`),
    shape: model,
    family: 'model',
    methods: {
      // A streamed list (every row) bypasses the schema; a page is serialised by it.
      GET: { schema: { response: { 200: { type: 'array', items: record } } }, handler: list },
      POST: model.readOnlyResource ? undefined : { handler: create, write: 'create', streamsFiles },
    },
  });
  addResourceRoute(app, {
    resource: model.resource,
    urls: names.map((name) => `/api/3/${name}/schema`),
    methods: { GET: { handler: async () => schema } },
    // The record path below takes `schema` for an id with these.
    shadowedBy: model.readOnlyResource ? [] : ['PUT', 'PATCH', 'DELETE'],
  });
  addResourceRoute(app, {
    resource: model.resource,
    urls: names.map((name) => `/api/3/${name}/:id`),
    shape: model,
    family: 'model',
    methods: {
      GET: {
        schema: { response: { 200: record } },
        handler: async (request, reply) => {
          const view = readViewOf(ctx, model, request, presented);
          const found = await ensure(parseId(model, request));
          if (!view.expand.length) {
            if (await answerConditionalGet(ctx.database, request, reply, model, found, viewKey(view))) return reply;
            return (await applyReadView(view, await present(request, [found], view)))[0];
          }
          // Embedded records have versions of their own: the tag is of the whole answer.
          const answer = (await applyReadView(view, await present(request, [found], view)))[0]!;
          if (await answerConditionalGet(ctx.database, request, reply, model, found, JSON.stringify(answer))) return reply;
          return answer;
        },
      },
      ...(model.readOnlyResource ? {} : { PUT: { handler: update, write: 'update' as const, streamsFiles }, PATCH: { handler: update, write: 'update' as const, streamsFiles } }),
      DELETE: model.readOnlyResource ? undefined : {
        write: 'delete',
        handler: async (request) => {
          const id = parseId(model, request);
          return { ok: 'record-deleted', data: await conditionalWrite(store, request, model, id, () => writer.remove(id)) };
        },
      },
    },
  });
}
