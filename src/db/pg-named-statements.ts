import { createHash } from 'node:crypto';

/** A pg client's `query`, as Kysely calls it: text and values (or a config object, left as it is). */
type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;
/**
 * What the wrapper needs of a pg client: its query, whether a transaction is open on it, and the
 * names its connection has prepared (pg's own record: a name is there once the server parsed it).
 */
type Client = { query: Query; getTransactionStatus?: () => string | null; connection?: { parsedStatements?: Record<string, unknown> } };

/** A statement is named once it has run this often: a one-off text is never prepared. */
const NAME_AFTER = 3;
/** At most this many names per process, so at most this many prepared statements per connection. */
const MAX_NAMES = 500;
/** Texts counted while they wait for a name (a burst of one-off texts clears the count, never the names). */
const MAX_COUNTED = 5000;
/**
 * Larger statements stay unnamed: a multi-row insert's text changes with its row count, and a
 * plan per count held on every connection would cost the server more than parsing saves.
 */
const MAX_PARAMETERS = 256;
const MAX_TEXT = 8192;

/** Marks an error the wrapper found to come from a statement this connection had prepared. */
const STALE = Symbol('stale prepared statement');

/**
 * A prepared statement the server can no longer run as prepared: a table it reads changed shape
 * since (a column's type widened by a schema sync or a plugin, here or in another instance:
 * "cached plan must not change result type"), or the statement is gone (`DEALLOCATE`, a pooler
 * that moved the session). Running the same text under a new name prepares it afresh. Only
 * errors `NamedStatements` marked: a name this connection had prepared (pg forgets a name whose
 * Parse failed, say in a transaction already aborted, and the next statement of that name then
 * fails as "does not exist": that is the earlier failure's consequence, not a stale plan).
 */
export function isStalePreparedStatement(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { [STALE]?: boolean })[STALE] === true;
}

function looksStale(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof message !== 'string') return false;
  return (code === '0A000' && message.includes('cached plan must not change result type')) || (code === '26000' && /^prepared statement .* does not exist/.test(message));
}

/**
 * PostgreSQL named (prepared) statements (docs/deploy.md, `PG_PREPARED_STATEMENTS`): a statement
 * text run often gets a name derived from its text, so that each connection parses and plans it
 * once and then only binds and executes it; unnamed statements are parsed and planned on every
 * run, which measured as much as their execution for a document's writes. Texts run fewer times,
 * texts beyond the cap, large ones (`MAX_PARAMETERS`, `MAX_TEXT`) and statements without
 * parameters (BEGIN, COMMIT) stay unnamed. The
 * names are shared by every connection of the pool: pg prepares one on a connection the first
 * time that connection runs it (pipelined or not).
 *
 * Names carry a generation. A stale prepared statement (`isStalePreparedStatement`) moves the
 * pool to the next generation, so every connection prepares its texts again under new names (the
 * old ones stay on the server until their connection closes: at most `MAX_NAMES` per change of
 * schema). The failed statement runs again at once when it ran on its own; inside a transaction
 * the transaction failed with it, and the error is a retryable one (translate-error.ts): the
 * transaction runs again, with the new names.
 */
export class NamedStatements {
  readonly #names = new Map<string, string>();
  #counts = new Map<string, number>();
  #generation = 0;

  /** The name for a text about to run with parameters, once it has run often enough; else undefined. */
  nameOf(text: string, parameters = 1): string | undefined {
    if (parameters > MAX_PARAMETERS || text.length > MAX_TEXT) return undefined;
    const named = this.#names.get(text);
    if (named) return `${named}_${this.#generation}`;
    if (this.#names.size >= MAX_NAMES) return undefined;
    const count = (this.#counts.get(text) ?? 0) + 1;
    if (count < NAME_AFTER) {
      if (this.#counts.size >= MAX_COUNTED) this.#counts = new Map();
      this.#counts.set(text, count);
      return undefined;
    }
    this.#counts.delete(text);
    const name = `s${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`;
    this.#names.set(text, name);
    return `${name}_${this.#generation}`;
  }

  /** The names in use are stale (a statement of this generation failed as such): the next ones are new. */
  #renew(name: string): void {
    if (name.endsWith(`_${this.#generation}`)) this.#generation += 1;
  }

  /** Makes a pg client run its frequent parameterised statements as named ones. */
  adopt(client: Client): void {
    const query = client.query.bind(client) as Query;
    client.query = (config, values, callback) => {
      if (typeof config !== 'string' || !Array.isArray(values) || !values.length || callback) return query(config, values, callback);
      const name = this.nameOf(config, values.length);
      if (!name) return query(config, values);
      const prepared = client.connection?.parsedStatements?.[name] !== undefined;
      return (query({ name, text: config, values }) as Promise<unknown>).catch((error: unknown) => {
        if (!prepared || !looksStale(error)) throw error;
        (error as { [STALE]?: boolean })[STALE] = true;
        this.#renew(name);
        // Outside a transaction ('I'dle) the statement is alone on the connection and may run again.
        // Read as it failed, not as it was sent: a transaction's BEGIN may be pipelined just before
        // it (guarded-dialect.ts), and the status read then would still be the idle one before it.
        if (client.getTransactionStatus?.() !== 'I') throw error;
        return query({ name: this.nameOf(config, values.length), text: config, values });
      });
    };
  }
}
