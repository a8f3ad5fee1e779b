import { sql, type CompiledQuery, type RawBuilder } from 'kysely';
import type { SqlDialect } from '../../db/dialect.ts';
import { wrapParameters } from '../../db/parameter-sql.ts';
import { expandPattern } from './code-patterns.ts';
import { WriteInRounds } from './document-parts.ts';
import type { DocumentType } from './document-types.ts';
import type { ClaimedNumber } from './number-claim.ts';
import type { NumberingInput, Sequence } from './numbering.ts';

/**
 * A document's number given by the database in the batch that claims it (docs/performance.md): on
 * PostgreSQL and MariaDB the claim then travels with the locks, the read and the writes, and the
 * sequence's lock is held for that round trip and the commit's only, with no JavaScript between
 * the claim and the writes.
 *
 * Until that batch is answered, the header's `numero` and `codigo` hold placeholders where the
 * number goes: a run of one private-use character as long as the number's text will be (the
 * sequence's last claim in this process, plus one, says how long), `{NUM}` and `{0NUM}` each their
 * own. The parts carry them as any other text into their statements' parameters (the entry's
 * concept, the receipt's invoice code ...), and each statement replaces them in SQL with the
 * number the claim before it, in the same transaction, took from the sequence row. Once answered,
 * the claim is checked against what the placeholders assumed: the same sequence row, pattern,
 * start and gap rule, and a number of the same length, so that the code SQL wrote is the one
 * `codeOf` gives; anything else runs the commit again with the number claimed first
 * (`WriteInRounds`). So a part must not compute on `numero` or `codigo` (a hash, a length) before
 * its `afterLocks` (document-parts.ts); from then on they are the real ones.
 *
 * SQLite has no round trip to save: it claims first, as before. A sequence this process has not
 * claimed from yet, a pattern with `|T` (title case reads word boundaries, which a placeholder would
 * move), and a document whose own text holds a placeholder's character, claim first too.
 */

const PLAIN = '\uE000';
const PADDED = '\uE001';

/** The sequences as their last claims answered them, per database (a hint, checked on every use). */
const claimedSequences = new WeakMap<object, Map<string, Sequence>>();
const MAX_REMEMBERED = 1000;

const keyOf = (type: DocumentType, input: NumberingInput) => `${type.name}\u0000${input.codserie}\u0000${input.idempresa}\u0000${input.codejercicio}`;

/** Remembers a claim's sequence row (its `numero` the number claimed) for the next late number of that sequence. */
export function rememberClaim(database: object, type: DocumentType, input: NumberingInput, claimed: ClaimedNumber): void {
  let known = claimedSequences.get(database);
  if (!known) claimedSequences.set(database, (known = new Map()));
  if (known.size >= MAX_REMEMBERED) known.clear();
  known.set(keyOf(type, input), { ...claimed.sequence, numero: claimed.numero });
}

const holdsPlaceholder = (value: unknown) => typeof value === 'string' && (value.includes(PLAIN) || value.includes(PADDED));

export class LateNumber {
  /** The header's `numero` and `codigo` until the claim is answered. */
  readonly numero: string;
  readonly codigo: string;
  readonly #sequence: Sequence;
  readonly #plain: string;
  readonly #padded: string;
  readonly #engine: 'postgres' | 'mysql';
  /** The number claimed, as SQL of the sequence row (moved on by the claim: one past it). */
  readonly #claimedSql: string;
  #text?: string;

  constructor(dialect: SqlDialect & { engine: 'postgres' | 'mysql' }, sequence: Sequence, input: NumberingInput) {
    const next = String(sequence.numero + 1);
    this.#sequence = sequence;
    this.#engine = dialect.engine;
    this.#plain = PLAIN.repeat(next.length);
    this.#padded = PADDED.repeat(Math.max(sequence.longnumero, next.length));
    this.numero = this.#plain;
    this.codigo = expandPattern(sequence.patron, { ...input, numero: 0, longnumero: sequence.longnumero, numberText: { plain: this.#plain, padded: this.#padded } });
    // An integer from the database, written into the SQL as such: no parameter to number.
    this.#claimedSql = `(SELECT numero - 1 FROM secuencias_documentos WHERE idsecuencia = ${Math.trunc(sequence.idsecuencia)})`;
  }

  /** The number claimed, as SQL (for the checks read after the locks). */
  get claimed(): RawBuilder<number> {
    return sql<number>`${sql.raw(this.#claimedSql)}`;
  }

  get sequence(): Sequence {
    return this.#sequence;
  }

  /** The statement with its placeholders replaced in SQL (StatementBatch's rewrite). */
  readonly bind = (query: CompiledQuery): CompiledQuery => {
    const text = `CAST(${this.#claimedSql} AS ${this.#engine === 'mysql' ? 'CHAR' : 'TEXT'})`;
    return wrapParameters(query, this.#engine, (placeholder, value) => {
      if (typeof value !== 'string') return undefined;
      let wrapped = placeholder;
      // The placeholders are private-use characters only: safe as literals.
      if (value.includes(this.#plain)) wrapped = `REPLACE(${wrapped}, '${this.#plain}', ${text})`;
      if (value.includes(this.#padded)) wrapped = `REPLACE(${wrapped}, '${this.#padded}', LPAD(${text}, ${this.#padded.length}, '0'))`;
      return wrapped === placeholder ? undefined : wrapped;
    });
  };

  /**
   * The claim as answered, checked against what the placeholders assumed; WriteInRounds when it
   * differs (or went unanswered), the commit then running again with the number claimed first.
   */
  settle(claimed: ClaimedNumber | undefined): ClaimedNumber {
    const known = this.#sequence;
    const sequence = claimed?.sequence;
    const text = String(claimed?.numero ?? '');
    const same = claimed !== undefined && sequence!.idsecuencia === known.idsecuencia && sequence!.patron === known.patron && sequence!.longnumero === known.longnumero
      && sequence!.inicio === known.inicio && sequence!.usarhuecos === known.usarhuecos && text.length === this.#plain.length;
    this.#text = text;
    if (!same || this.resolve(this.codigo) !== claimed.codigo) {
      this.#text = undefined;
      throw new WriteInRounds('the number claimed is not as its placeholders assumed');
    }
    return claimed;
  }

  /** A text with the placeholders replaced by the number claimed (once settled). */
  resolve(value: string): string {
    const text = this.#text;
    if (text === undefined) throw new Error('a late number read before its claim was answered');
    return value.replaceAll(this.#plain, text).replaceAll(this.#padded, text.padStart(this.#padded.length, '0'));
  }

  /** Resolves a value if it is text holding a placeholder. */
  resolved(value: unknown): unknown {
    return holdsPlaceholder(value) ? this.resolve(value as string) : value;
  }
}

/**
 * The late number of a new document, where it may have one (see above): undefined to claim first.
 * `own` are the document's own values (header and lines): none may hold a placeholder's character.
 */
export function lateNumber(database: object, dialect: SqlDialect, type: DocumentType, input: NumberingInput, own: Iterable<Record<string, unknown>>): LateNumber | undefined {
  if (dialect.engine === 'sqlite') return undefined;
  const sequence = claimedSequences.get(database)?.get(keyOf(type, input));
  if (!sequence || sequence.patron.split('|')[1] === 'T') return undefined;
  for (const row of own) for (const value of Object.values(row)) if (holdsPlaceholder(value)) return undefined;
  const late = new LateNumber(dialect as SqlDialect & { engine: 'postgres' | 'mysql' }, sequence, input);
  // Too long for a code: the claim first, whose `codeOf` refuses it as always.
  return late.codigo.length > 20 ? undefined : late;
}
