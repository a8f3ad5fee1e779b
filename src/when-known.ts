/** A value that is known now, or will be once a load settles (a cache that is current answers at once). */
export type MaybePromise<T> = T | Promise<T>;

/**
 * Applies `then` to `value` at once when it is known, else when its promise settles. The request
 * pipeline runs on every request; staying synchronous while every cache it reads is current saves
 * the promise and microtask turns an `await` would cost each step.
 */
export function whenKnown<T, R>(value: MaybePromise<T>, then: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(then) : then(value);
}
