import type { FastifyReply } from 'fastify';
import type { AppContext } from '../../app-context.ts';
import { AppError } from '../../errors.ts';
import type { Caller } from './access-control.ts';
import { rateWindowModel } from './internal-models.ts';

const MINUTE_MS = 60_000;
const TABLE = rateWindowModel.table;

/**
 * Fair use per API key (docs/deploy.md, "Fair use"): at most N requests per key and minute (a fixed
 * window on the clock's minute), N being the key's `ratelimit` or else RATE_LIMIT_PER_MINUTE (0 or
 * unset: none). The global key is never limited. Over the limit: 429 `rate-limited` with
 * `Retry-After` (seconds to the next minute). While a key is limited, every answer carries
 * `RateLimit-Policy` and `RateLimit` (IETF draft "RateLimit header fields for HTTP").
 *
 * Shared by the instances on one database within a tolerance: each instance counts what it serves
 * in memory and, every STATE_REFRESH_MS (`sync`), adds it to the key's row of the minute and reads
 * the sums back. An instance decides on the shared sum it last read plus its own count since, so
 * the instances together may serve up to what the others served since their last sync beyond N.
 */
export class RateLimiter {
  readonly #ctx: AppContext;
  /** This instance's requests per key in `#window`, not yet added to the shared rows. */
  #pending = new Map<number, number>();
  /** Counts being added to the shared rows right now (until the sums are read back). */
  #flushing = new Map<number, number>();
  /** The shared sums per key as last read (including this instance's flushed counts). */
  #shared = new Map<number, number>();
  #window = -1;
  /** Whether a request met a limit yet: with no installation limit, until then there is nothing to share (no statement). */
  #limited = false;

  constructor(ctx: AppContext) {
    this.#ctx = ctx;
  }

  /** The caller's limit per minute, or 0 for none. */
  #limitOf(caller: Caller): number {
    if (caller.keyId === undefined) return 0;
    return caller.ratelimit ?? this.#ctx.config.rateLimitPerMinute;
  }

  #roll(window: number): void {
    if (window === this.#window) return;
    // A new minute: what was pending belonged to the last one (flushed or not, it no longer counts).
    this.#window = window;
    this.#pending = new Map();
    this.#flushing = new Map();
    this.#shared = new Map();
  }

  /** Counts a request of the caller, or refuses it (429); sets the headers on the answer. */
  admit(caller: Caller, reply: FastifyReply): void {
    const limit = this.#limitOf(caller);
    if (!limit) return;
    this.#limited = true;
    const now = this.#ctx.clock.now();
    const window = Math.floor(now / MINUTE_MS);
    this.#roll(window);
    const key = caller.keyId!;
    const used = (this.#shared.get(key) ?? 0) + (this.#flushing.get(key) ?? 0) + (this.#pending.get(key) ?? 0);
    const reset = Math.max(1, Math.ceil(((window + 1) * MINUTE_MS - now) / 1000));
    reply.header('RateLimit-Policy', `"per-key";q=${limit};w=60`);
    if (used >= limit) {
      reply.header('RateLimit', `"per-key";r=0;t=${reset}`);
      throw new AppError('rate-limited', { retryAfter: reset, limit });
    }
    this.#pending.set(key, (this.#pending.get(key) ?? 0) + 1);
    reply.header('RateLimit', `"per-key";r=${limit - used - 1};t=${reset}`);
  }

  /** Adds this instance's counts to the shared rows and reads every key's sum of this minute back. */
  async sync(): Promise<void> {
    if (!this.#limited && !this.#ctx.config.rateLimitPerMinute) return;
    const window = Math.floor(this.#ctx.clock.now() / MINUTE_MS);
    this.#roll(window);
    const pending = this.#pending;
    this.#flushing = pending;
    this.#pending = new Map();
    const db = this.#ctx.database.kysely;
    const engine = this.#ctx.database.engine;
    const unsent = new Map(pending);
    try {
      for (const [idapikey, count] of pending) {
        const insert = db.insertInto(TABLE).values({ idapikey, ventana: window, cuenta: count });
        await (engine === 'mysql'
          ? insert.onDuplicateKeyUpdate((eb) => ({ cuenta: eb('cuenta', '+', count) }))
          : insert.onConflict((oc) => oc.columns(['idapikey', 'ventana']).doUpdateSet((eb) => ({ cuenta: eb(`${TABLE}.cuenta` as 'cuenta', '+', count) })))
        ).execute();
        unsent.delete(idapikey);
      }
    } catch (error) {
      // What was not added is counted again next time, not lost.
      for (const [idapikey, count] of unsent) this.#pending.set(idapikey, (this.#pending.get(idapikey) ?? 0) + count);
      this.#flushing = new Map();
      throw error;
    }
    const rows = await db.selectFrom(TABLE).select(['idapikey', 'cuenta']).where('ventana', '=', window).execute();
    if (window === this.#window) {
      this.#shared = new Map(rows.map((row) => [Number(row.idapikey), Number(row.cuenta)]));
      this.#flushing = new Map();
    }
    // Past minutes no longer count: pruned now and then.
    if (Math.random() < 0.05) await db.deleteFrom(TABLE).where('ventana', '<', window - 1).execute();
  }
}
