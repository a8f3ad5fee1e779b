import type { AppContext, RecordWriter } from '../app-context.ts';
import type { Model } from '../models/define-model.ts';
import { readInput } from '../models/read-input.ts';

/**
 * How a model's records are written from a request body: its module's writer (documents, keys,
 * files ...), or the store with the model's own input rules. The one way a body becomes a record,
 * for the model routes and for whoever writes records as they would (a spreadsheet import).
 */
export function writerOf(ctx: AppContext, model: Model): RecordWriter {
  return ctx.writers.get(model) ?? {
    async create(body, source, options) {
      const { record, reveal } = await ctx.store.create(model, readInput(model, body, source, 'create', undefined, options));
      return { ...record, ...reveal };
    },
    update: (id, body, source, options) => ctx.store.update(model, id, readInput(model, body, source, 'update', id, options)),
    remove: (id) => ctx.store.remove(model, id),
  };
}
