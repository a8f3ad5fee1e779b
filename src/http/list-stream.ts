import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { AppContext } from '../app-context.ts';
import type { Model } from '../models/define-model.ts';
import type { ListQuery } from '../query/list-query.ts';
import { formatterFor } from './profile-serializer.ts';

/** Rows read per statement: the connection is held for one chunk at a time, never for the whole list. */
const CHUNK = 1000;

/**
 * A list of every matching row (the `facturascripts` profile's `limit` <= 0), streamed: read in
 * chunks and written as they come, with the client's pace (backpressure), so neither the rows
 * nor the response are ever whole in memory, and other requests use the database between
 * chunks. Rows inserted or deleted while it streams may shift between chunks. `present` adds what
 * the model's presenter shows beyond its columns.
 */
export async function streamList(
  ctx: AppContext,
  model: Model,
  query: ListQuery,
  reply: FastifyReply,
  present: (rows: Array<Record<string, unknown>>) => Promise<Array<Record<string, unknown>>> = async (rows) => rows,
): Promise<FastifyReply> {
  const total = await ctx.store.count(model, query);
  const format = formatterFor(reply.request, model);
  async function* body(): AsyncGenerator<string> {
    yield '[';
    let first = true;
    for (let offset = 0; ; offset += CHUNK) {
      const rows = await ctx.store.page(model, { ...query, limit: CHUNK, offset });
      let text = '';
      for (const row of await present(rows)) {
        text += (first ? '' : ',') + JSON.stringify(format(row));
        first = false;
      }
      if (text) yield text;
      if (rows.length < CHUNK) break;
    }
    yield ']';
  }
  return reply.header('X-Total-Count', String(total)).type('application/json; charset=utf-8').send(Readable.from(body(), { objectMode: false }));
}
