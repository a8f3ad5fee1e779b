import { shapedStatement } from '../../db/statement-shapes.ts';
import { sql, type RawBuilder } from 'kysely';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import type { StatementBatch } from '../../db/statement-batch.ts';
import { AppError } from '../../errors.ts';
import type { DocumentType } from './document-types.ts';
import { codeOf, sequenceOf, type NumberingInput, type Sequence } from './numbering.ts';

/**
 * The first round of a document's commit (docs/performance.md): the next number of its
 * exercise's own sequence, claimed by one statement that takes the sequence row's lock (held to
 * the commit: the first of the fixed lock order) and moves it on, answering the row. What
 * `assignNumber` checks before giving a number (it is free; filling gaps, the one before it is
 * taken and no recorded gap lies below it; invoices keep date order) is read later, with the other
 * parts' reads after their locks (`numberChecks`): the common case costs no statement more. When
 * a check fails, the commit starts again on the slow path (`SlowNumbering`), which numbers as
 * `assignNumber` does.
 */

/** The claim found the sequence not as the fast path needs it: the commit runs again with `assignNumber`. */
export class SlowNumbering extends Error {
  override name = 'SlowNumbering';
}

/** A number claimed from the sequence, and what is read afterwards to check it. */
export interface ClaimedNumber {
  sequence: Sequence;
  numero: number;
  codigo: string;
}

/**
 * The number a claim took, as SQL, for the statements after it in its transaction (late-number.ts):
 * the claim leaves it in the session (PostgreSQL: a setting local to the transaction; MariaDB: a
 * user variable, which outlives it, so it is only read after a claim of the same batch answered a
 * row), so that a statement reading it names no sequence of its own and keeps one text (prepared
 * once) whatever the sequence. SQLite claims first: none.
 */
export const claimedInSession = {
  postgres: { number: "CAST(current_setting('invoicing.claimed') AS INTEGER)", text: "current_setting('invoicing.claimed')" },
  mysql: { number: '@invoicing_claimed', text: 'CAST(@invoicing_claimed AS CHAR)' },
} as const;

/**
 * Queues the claim of the next number of the sequence of exactly this exercise; the function it
 * answers reads the claim after the flush: undefined when there is no such sequence (nothing done).
 */
export function queueClaim(batch: StatementBatch, db: DbExecutor, dialect: SqlDialect, type: DocumentType, input: NumberingInput): () => Promise<ClaimedNumber | undefined> {
  // The sequence's key, in the order of its values (statement-shapes.ts).
  const key = [type.name, input.codserie, input.idempresa, input.codejercicio];
  const bump = (value: (index: number) => unknown) => db.updateTable('secuencias_documentos').set({ numero: sql`numero + 1` }).where('tipodoc', '=', value(0))
    .where('codserie', '=', value(1)).where('idempresa', '=', value(2)).where('codejercicio', '=', value(3));
  let rows: Promise<Record<string, unknown>[]>;
  if (dialect.engine === 'mysql') {
    const updated = batch.add(shapedStatement(db, 'claim:bump', key, bump));
    const read = batch.add(db.selectFrom('secuencias_documentos').selectAll().select(sql`@invoicing_claimed := numero - 1`.as('claimed')).where('tipodoc', '=', type.name).where('codserie', '=', input.codserie)
      .where('idempresa', '=', input.idempresa).where('codejercicio', '=', input.codejercicio));
    rows = Promise.all([updated, read]).then(([update, select]) => (Number(update.numAffectedRows) === select.rows.length ? select.rows : []));
  } else {
    const postgres = dialect.engine === 'postgres';
    rows = batch.add(shapedStatement(db, 'claim:bump-returning', key, (value) => {
      const claimed = bump(value).returningAll();
      return postgres ? claimed.returning(sql`set_config('invoicing.claimed', CAST(numero - 1 AS TEXT), true)`.as('claimed')) : claimed;
    })).then((result) => result.rows as Record<string, unknown>[]);
  }
  // The flush throws a failure itself; this derived promise must not end the process unawaited.
  rows.catch(() => {});
  return async () => {
    const found = await rows;
    // No sequence of its own for this exercise (one shared by every exercise, or none yet): nothing
    // was changed or locked, `assignNumber` decides in this transaction. Two: they were both moved,
    // the transaction starts again on the slow path.
    if (!found.length) return undefined;
    if (found.length > 1) throw new SlowNumbering('two sequences of the exercise');
    const sequence = sequenceOf(type, found[0]!);
    const numero = sequence.numero - 1;
    if (numero < sequence.inicio) throw new SlowNumbering('below the sequence start');
    return { sequence, numero, codigo: codeOf(sequence, input, numero) };
  };
}

/**
 * Expressions (read after the locks) that check a claimed number, by name: the number itself, or
 * the SQL that reads it from the session the claim of the same batch left it in (late-number.ts,
 * `claimedInSession`), for which what depends on it is decided in SQL too.
 */
export function numberChecks(type: DocumentType, input: NumberingInput, dialect: SqlDialect, sequence: Sequence, numero: number | RawBuilder<number>): Record<string, RawBuilder<unknown>> {
  const table = sql.table(type.header.table);
  const scope = sql`d.codserie = ${input.codserie} AND d.idempresa = ${input.idempresa} AND d.codejercicio = ${input.codejercicio}`;
  const exists = (condition: RawBuilder<unknown>) => sql`CASE WHEN EXISTS (SELECT 1 FROM ${table} d WHERE ${scope} AND ${condition}) THEN 1 ELSE 0 END`;
  const gapBelow = (below: unknown) => sql`EXISTS (SELECT 1 FROM secuencias_huecos h WHERE h.idsecuencia = ${sequence.idsecuencia} AND h.numero >= ${sequence.inicio} AND h.numero < ${below})`;
  const checks: Record<string, RawBuilder<unknown>> = {};
  if (typeof numero === 'number') {
    checks.taken = exists(sql`d.numero = ${String(numero)}`);
    if (sequence.usarhuecos && numero > sequence.inicio) {
      checks.previous = exists(sql`d.numero = ${String(numero - 1)}`);
      checks.gap = sql`CASE WHEN ${gapBelow(numero - 1)} THEN 1 ELSE 0 END`;
    }
  } else {
    checks.taken = exists(sql`d.numero = ${dialect.text(numero)}`);
    if (sequence.usarhuecos) {
      // At the sequence's start there is no number before it to check: as if taken, and no gap.
      checks.previous = sql`CASE WHEN ${numero} > ${sequence.inicio} THEN ${exists(sql`d.numero = ${dialect.text(sql`${numero} - 1`)}`)} ELSE 1 END`;
      checks.gap = sql`CASE WHEN ${numero} > ${sequence.inicio} AND ${gapBelow(sql`${numero} - 1`)} THEN 1 ELSE 0 END`;
    }
  }
  // Customer invoices keep date order (checkInvoiceChronology): for the highest number, only an invoice dated later breaks it.
  if (type.name === 'FacturaCliente') checks.later = exists(sql`d.fecha > ${input.fecha}`);
  return checks;
}

const is = (expected: number) => (value: RawBuilder<unknown>) => sql`${value} = ${sql.lit(expected)}`;
/**
 * What each of `numberChecks` must read for `checkClaim` to take the number as claimed, as SQL on
 * the value read (a commit with the batch fails its read when one does not hold).
 */
export const NUMBER_PASSES: Readonly<Record<string, (value: RawBuilder<unknown>) => RawBuilder<unknown>>> = { taken: is(0), previous: is(1), gap: is(0), later: is(0) };

/** Checks a claimed number from what `numberChecks` read: the slow path, or the chronology's refusal. */
export function checkClaim(claimed: ClaimedNumber, read: (name: string) => unknown, fecha: string): void {
  const yes = (name: string) => Number(read(name) ?? 0) === 1;
  if (yes('taken') || yes('gap') || (read('previous') !== undefined && !yes('previous'))) throw new SlowNumbering(`number ${claimed.numero} cannot be given as claimed`);
  if (yes('later')) throw new AppError('invoice-date-order', { reason: 'later-invoice-before', fecha });
}
