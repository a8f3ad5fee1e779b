/**
 * Named hook points: where a module's flow lets modules listed after it take part without being
 * imported by it (the document engine tells VERI*FACTU that an invoice was written, and asks it
 * whether a document is sealed; the export asks for the fiscal QR of an invoice).
 *
 * Contract:
 * - The module that owns the flow declares the point once, as a constant of its public surface:
 *   `export const documentCreated = hookPoint<NewDocument>('documents.created')`. A point is a
 *   typed name, not state: its handlers live in the app's `Hooks` (`ctx.hooks`), one per app.
 * - A later module registers handlers in its `setup`: `ctx.hooks.on(documentCreated, handler)`.
 * - The owner runs the point with `await ctx.hooks.run(point, payload)`: every handler, one after
 *   another in registration (module) order, awaited. A payload that carries a transaction makes the
 *   handlers part of it: what they write commits or rolls back with the owner's change, and an
 *   AppError they throw refuses the change. The answers that are not undefined come back in order
 *   (a point that asks a question: `hookPoint<Query, Answer>`).
 * - A point nobody listens to costs nothing: `run` returns at once.
 */
export interface HookPoint<Payload, Answer = void> {
  readonly name: string;
  /** Type carrier only: never set. */
  readonly types?: (payload: Payload) => Answer;
}

export type HookHandler<Payload, Answer> = (payload: Payload) => Answer | undefined | void | Promise<Answer | undefined | void>;

export function hookPoint<Payload, Answer = void>(name: string): HookPoint<Payload, Answer> {
  return Object.freeze({ name });
}

/** The handlers of one app's hook points. */
export class Hooks {
  readonly #handlers = new Map<HookPoint<never, unknown>, Array<HookHandler<never, unknown>>>();

  on<Payload, Answer>(point: HookPoint<Payload, Answer>, handler: HookHandler<Payload, Answer>): void {
    const key = point as HookPoint<never, unknown>;
    this.#handlers.set(key, [...(this.#handlers.get(key) ?? []), handler as HookHandler<never, unknown>]);
  }

  async run<Payload, Answer>(point: HookPoint<Payload, Answer>, payload: Payload): Promise<Answer[]> {
    const handlers = this.#handlers.get(point as HookPoint<never, unknown>);
    if (!handlers) return [];
    const answers: Answer[] = [];
    for (const handler of handlers) {
      const answer = await (handler as HookHandler<Payload, Answer>)(payload);
      if (answer !== undefined) answers.push(answer as Answer);
    }
    return answers;
  }
}
