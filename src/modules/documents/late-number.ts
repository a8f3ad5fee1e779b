import { sql, type CompiledQuery, type RawBuilder } from 'kysely';
import type { SqlDialect } from '../../db/dialect.ts';
import { wrapParameters } from '../../db/parameter-sql.ts';
import { expandPattern } from './code-patterns.ts';
import { WriteInRounds } from './document-parts.ts';
import type { DocumentType } from './document-types.ts';
import { claimedInSession, type ClaimedNumber } from './number-claim.ts';
import type { NumberingInput, Sequence } from './numbering.ts';

/**
 * A document's number given by the database in the batch that claims it (docs/performance.md): on
 * PostgreSQL and MariaDB the claim then travels with the locks, the read and the writes, and the
 * sequence's lock is held for that round trip and the commit's only, with no JavaScript between
 * the claim and the writes.
 *
 * Until that batch is answered, the header's `numero` and `codigo` hold placeholders where the
 * number goes (`{NUM}` and `{0NUM}` each its own): a few C1 control characters (U+0080 to U+009F,
 * led by U+0091, PRIVATE USE ONE), the last ones drawn at random when the process starts, so that
 * no text of anyone's holds them by chance. They are Latin-1, not the private-use area: a statement
 * holding one stays a one-byte string in V8, and MariaDB's text protocol formats and encodes the
 * batch's text (some 26 KB an invoice) at half the cost of a two-byte one (docs/performance.md). The
 * parts carry them as any other text into their statements' parameters (the entry's concept, the
 * receipt's invoice code ...), and each statement replaces them in SQL with the number the claim
 * before it in the same transaction left in the session (number-claim.ts, `claimedInSession`).
 * Once answered, the claim is checked against what the placeholders assumed: the same sequence
 * row, pattern, start and gap rule, so that the code SQL wrote is the one `codeOf` gives; anything
 * else, or a batch that failed, runs the commit again with the number claimed first
 * (`WriteInRounds`). So a part must not compute on `numero` or `codigo` (a hash, a length) before
 * its `afterLocks` (document-parts.ts); from then on they are the real ones.
 *
 * SQLite has no round trip to save: it claims first, as before. A sequence this process has not
 * claimed from yet, a pattern with `|T` (title case reads word boundaries, which a placeholder
 * would move), and a document whose own text holds a placeholder's first character, claim first too.
 */

/** PRIVATE USE ONE: a control character no text is meant to hold (a document's own that does claims first). */
const LEAD = '\u0091';
/** Three C1 control characters (U+0080 to U+009F), drawn once. */
const drawn = () => String.fromCharCode(0x80 + Math.floor(Math.random() * 0x20));
const NONCE = drawn() + drawn() + drawn();
const PLAIN = `${LEAD}\u0081${NONCE}`;
const PADDED = `${LEAD}\u0082${NONCE}`;
const holdsPlaceholder = (value: unknown): value is string => typeof value === 'string' && value.includes(LEAD);

/** The sequences as their last claims answered them, per database (a hint, checked on every use). */
const claimedSequences = new WeakMap<object, Map<string, Sequence>>();
const MAX_REMEMBERED = 1000;

const keyOf = (type: DocumentType, input: NumberingInput) => `${type.name}\u0000${input.codserie}\u0000${input.idempresa}\u0000${input.codejercicio}`;

/** Remembers a claim's sequence row for the next late number of that sequence. */
export function rememberClaim(database: object, type: DocumentType, input: NumberingInput, claimed: ClaimedNumber): void {
  let known = claimedSequences.get(database);
  if (!known) claimedSequences.set(database, (known = new Map()));
  if (known.size >= MAX_REMEMBERED) known.clear();
  known.set(keyOf(type, input), claimed.sequence);
}

/** Forgets a sequence whose late number failed: the next document claims first, and learns it again. */
export function forgetClaim(database: object, type: DocumentType, input: NumberingInput): void {
  claimedSequences.get(database)?.delete(keyOf(type, input));
}

export class LateNumber {
  /** The header's `numero` and `codigo` until the claim is answered. */
  readonly numero = PLAIN;
  readonly codigo: string;
  readonly sequence: Sequence;
  readonly #engine: 'postgres' | 'mysql';
  #text?: string;

  constructor(engine: 'postgres' | 'mysql', sequence: Sequence, input: NumberingInput) {
    this.sequence = sequence;
    this.#engine = engine;
    this.codigo = expandPattern(sequence.patron, { ...input, numero: 0, longnumero: sequence.longnumero, numberText: { plain: PLAIN, padded: PADDED } });
  }

  /** The number claimed, as SQL (for the checks read after the locks). */
  get claimed(): RawBuilder<number> {
    return sql<number>`${sql.raw(claimedInSession[this.#engine].number)}`;
  }

  /**
   * 1 when the sequence the claim of the same batch moved is the only one of its exercise and is as
   * the placeholders assumed it (what `settle` checks of the claim's answer), 0 otherwise: read
   * after the locks where the commit goes with the batch, so that a sequence changed since it was
   * remembered fails the batch before its COMMIT.
   */
  sequenceCheck(dialect: SqlDialect, type: DocumentType, input: NumberingInput): RawBuilder<number> {
    const known = this.sequence;
    const same = sql`s.idsecuencia = ${known.idsecuencia} AND s.patron = ${known.patron} AND s.longnumero = ${known.longnumero}
      AND GREATEST(1, COALESCE(s.inicio, 1)) = ${known.inicio} AND COALESCE(s.usarhuecos, ${dialect.boolean(false)}) = ${dialect.boolean(known.usarhuecos)}
      AND s.numero - 1 >= GREATEST(1, COALESCE(s.inicio, 1))`;
    const key = sql`s.tipodoc = ${type.name} AND s.codserie = ${input.codserie} AND s.idempresa = ${input.idempresa} AND s.codejercicio = ${input.codejercicio}`;
    // The one known row as assumed, and no other of the key: two index lookups, no aggregate.
    return sql<number>`CASE WHEN EXISTS (SELECT 1 FROM secuencias_documentos s WHERE ${key} AND ${same})
      AND NOT EXISTS (SELECT 1 FROM secuencias_documentos s WHERE ${key} AND s.idsecuencia <> ${known.idsecuencia}) THEN 1 ELSE 0 END`;
  }

  /** The statement with its placeholders replaced in SQL (StatementBatch's rewrite). */
  readonly bind = (query: CompiledQuery): CompiledQuery => {
    // Most of a batch's statements hold none: they go as they are, nothing built for them.
    if (!query.parameters.some(holdsPlaceholder)) return query;
    const text = claimedInSession[this.#engine].text;
    // A longer number than the padding is not cut (LPAD would).
    const padded = `LPAD(${text}, GREATEST(LENGTH(${text}), ${Math.trunc(this.sequence.longnumero)}), '0')`;
    return wrapParameters(query, this.#engine, (placeholder, value) => {
      if (!holdsPlaceholder(value)) return undefined;
      let wrapped = placeholder;
      // The placeholders are control characters only (no quote, no backslash): safe as literals.
      if (value.includes(PLAIN)) wrapped = `REPLACE(${wrapped}, '${PLAIN}', ${text})`;
      if (value.includes(PADDED)) wrapped = `REPLACE(${wrapped}, '${PADDED}', ${padded})`;
      return wrapped === placeholder ? undefined : wrapped;
    });
  };

  /**
   * The claim as answered, checked against what the placeholders assumed; WriteInRounds when it
   * differs (or went unanswered), the commit then running again with the number claimed first.
   */
  settle(claimed: ClaimedNumber | undefined): ClaimedNumber {
    const known = this.sequence;
    const sequence = claimed?.sequence;
    if (claimed && sequence!.idsecuencia === known.idsecuencia && sequence!.patron === known.patron && sequence!.longnumero === known.longnumero
      && sequence!.inicio === known.inicio && sequence!.usarhuecos === known.usarhuecos) {
      this.#text = String(claimed.numero);
      if (this.resolve(this.codigo) === claimed.codigo) return claimed;
      this.#text = undefined;
    }
    throw new WriteInRounds('the number claimed is not as its placeholders assumed');
  }

  /** A text with the placeholders replaced by the number claimed (once settled). */
  resolve(value: string): string {
    const text = this.#text;
    if (text === undefined) throw new Error('a late number read before its claim was answered');
    return value.replaceAll(PLAIN, text).replaceAll(PADDED, text.padStart(this.sequence.longnumero, '0'));
  }

  /** Resolves a value if it is text holding a placeholder. */
  resolved(value: unknown): unknown {
    return typeof value === 'string' && value.includes(LEAD) ? this.resolve(value) : value;
  }
}

/**
 * The late number of a new document, where it may have one (see above): undefined to claim first.
 * `own` are the document's own values (header and lines): none may hold a placeholder's first character.
 */
export function lateNumber(database: object, dialect: SqlDialect, type: DocumentType, input: NumberingInput, own: Iterable<Record<string, unknown>>): LateNumber | undefined {
  if (dialect.engine === 'sqlite') return undefined;
  const sequence = claimedSequences.get(database)?.get(keyOf(type, input));
  if (!sequence || sequence.patron.split('|')[1] === 'T') return undefined;
  for (const row of own) for (const value of Object.values(row)) if (typeof value === 'string' && value.includes(LEAD)) return undefined;
  const late = new LateNumber(dialect.engine, sequence, input);
  // A code whose placeholders would not pass as a code (longer than 20) claims first, as it may be one.
  return late.codigo.length > 20 ? undefined : late;
}
