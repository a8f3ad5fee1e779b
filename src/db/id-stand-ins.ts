import { sql, type RawBuilder } from 'kysely';
import type { SqlDialect } from './dialect.ts';

/**
 * Numbers that stand in for ids the database assigns in the batch that also writes the rows
 * naming them: the event log's rows of a document committed with its batch (write-document.ts),
 * whose payloads hold the new header's, lines' and entry's ids before any is answered.
 *
 * A stand-in is a negative integer of 15 digits whose first 12 are drawn when the process starts,
 * so that no value of anyone's is one by chance, and all are of one length, so that none is a
 * prefix of another. A text holding stand-ins is written as SQL that replaces each by the
 * expression reading its id (`written`), and read back with the ids as answered (`answered`).
 */
const BASE = -(100_000_000_000 + Math.floor(Math.random() * 800_000_000_000)) * 1000;
const MAX = 1000;

export class IdStandIns {
  readonly #dialect: SqlDialect;
  readonly #tokens: string[] = [];
  readonly #expressions: RawBuilder<unknown>[] = [];
  readonly #answers: Array<() => unknown> = [];

  constructor(dialect: SqlDialect) {
    this.#dialect = dialect;
  }

  /** A stand-in for the id `expression` reads in SQL, and `answer` gives once the batch is answered. */
  add(expression: RawBuilder<unknown>, answer: () => unknown): number {
    const index = this.#tokens.length;
    if (index >= MAX) throw new Error(`more than ${MAX} ids stood in for in one batch`);
    const value = BASE - index;
    this.#tokens.push(String(value));
    this.#expressions.push(expression);
    this.#answers.push(answer);
    return value;
  }

  /** `text` as SQL, each stand-in in it replaced by its expression's value (`null` for none); the text itself when it holds none. */
  written(text: string): string | RawBuilder<string> {
    let out: RawBuilder<string> | undefined;
    this.#tokens.forEach((token, index) => {
      if (!text.includes(token)) return;
      // The token is digits and a sign: safe as a literal, and it keeps the statement's parameters those of the text.
      out = sql<string>`REPLACE(${out ?? text}, ${sql.lit(token)}, COALESCE(${this.#dialect.text(this.#expressions[index]!)}, 'null'))`;
    });
    return out ?? text;
  }

  /** `text` with each stand-in replaced by its id as answered (JSON's `null` for none). */
  answered(text: string): string {
    let out = text;
    this.#tokens.forEach((token, index) => {
      if (!out.includes(token)) return;
      const value = this.#answers[index]!();
      out = out.replaceAll(token, value === null || value === undefined ? 'null' : String(value));
    });
    return out;
  }
}
