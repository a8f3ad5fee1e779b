import { isOperationNodeSource, sql, type QueryResult, type RawBuilder } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { rowReader } from '../../db/row-codec.ts';
import { failUnless, GuardFailed } from '../../db/guard-sql.ts';
import { IdStandIns } from '../../db/id-stand-ins.ts';
import { StatementBatch } from '../../db/statement-batch.ts';
import { commitTail, inTransaction, warningsOf } from '../../db/transaction.ts';
import { isRetryable } from '../../db/translate-error.ts';
import { AppError } from '../../errors.ts';
import { publish, queueEventsInto, type PublishedEvent } from '../../event-log.ts';
import type { Values } from '../../models/define-model.ts';
import type { CachedExercise } from '../fiscal/index.ts';
import { documentEvent } from './document-events.ts';
import { LOCK_ORDER, WriteInRounds, type DocumentInWriting, type DocumentPart, type PartMaker } from './document-parts.ts';
import type { DocumentReference } from './document-reference.ts';
import { documentResult, visible, type DocumentResult, type Row } from './document-repository.ts';
import type { DocumentType } from './document-types.ts';
import { forgetClaim, lateNumber, rememberClaim } from './late-number.ts';
import { checkClaim, NUMBER_PASSES, numberChecks, queueClaim, SlowNumbering, type ClaimedNumber } from './number-claim.ts';
import { assignNumber, checkInvoiceChronology, lockNumbering, type NumberingInput } from './numbering.ts';

/** A new document as `prepareDocument` (or a refund) left it: everything read and computed, nothing locked. */
export interface PreparedDocument {
  type: DocumentType;
  ref: DocumentReference;
  subject: Row;
  /** The header to store but for its number and id (`fecha`, `hora`, `codejercicio` set). */
  header: Row;
  /** The lines to store (through `prepareNew`), with their amounts, without the header's id. */
  lines: Row[];
  exercise: CachedExercise;
  /** The parts of the commit: the documents module's own and those the hook answered. */
  makers: PartMaker[];
  /** More events to publish with `document.created`, once the document is written. */
  events?: (doc: DocumentInWriting) => PublishedEvent[];
}

/**
 * Writes a prepared document in its own transaction (shared with concurrent creations where the
 * database groups commits), in the rounds of document-parts.ts, and answers it as written (not
 * read back). A sequence that is not as the fast claim needs it (number-claim.ts) runs the
 * transaction again on the slow path; an attempt whose writes went with the locks' read and that
 * read asks for rounds apart (`WriteInRounds`) runs again with them apart; any other failure
 * leaves nothing behind.
 */
export async function writeDocument(ctx: AppContext, prepared: PreparedDocument): Promise<DocumentResult> {
  let mode: CommitMode = ctx.database.engine === 'sqlite' ? 'together' : 'guarded';
  for (;;) {
    try {
      return await inTransaction(ctx.database, (trx) => commitDocument(ctx, trx, prepared, mode), { shared: true });
    } catch (error) {
      if (error instanceof GuardFailed && mode === 'guarded') mode = 'together';
      else if (error instanceof SlowNumbering && mode !== 'slow') mode = 'slow';
      else if (error instanceof WriteInRounds && (mode === 'together' || mode === 'guarded')) mode = 'apart';
      else throw error;
    }
  }
}

/**
 * How a commit sends its rounds (document-parts.ts): `together`, the writes with the locks' read
 * (unless a part needs that read's answer first); `guarded`, as together, and where every check
 * after the locks is also a condition in SQL, the COMMIT in the same batch, the read failing it
 * when one does not hold (`GuardFailed`: then together, whose checks give the exact refusal);
 * `apart`, the writes after the read; `slow`, the number assigned a statement at a time under the
 * numbering lock, the writes apart.
 */
export type CommitMode = 'guarded' | 'together' | 'apart' | 'slow';

/**
 * The parts' `afterLocks`, in order. A refusal (any other error) outranks a part's wish to write
 * in rounds apart (`WriteInRounds`): the others still run, and the commit is not tried again for
 * a document that would be refused anyway.
 */
async function afterLocks(parts: DocumentPart[], doc: DocumentInWriting): Promise<void> {
  let apart: WriteInRounds | undefined;
  for (const part of parts) {
    try {
      await part.afterLocks?.(doc);
    } catch (error) {
      if (!(error instanceof WriteInRounds)) throw error;
      apart ??= error;
    }
  }
  if (apart) throw apart;
}

const rank = (part: DocumentPart) => (part.lock ? LOCK_ORDER.indexOf(part.lock) : LOCK_ORDER.length);

/** Round 3's inserts: the header's and the lines', and their answers once flushed. */
interface Written {
  headerInsert: ReturnType<AppContext['store']['insertStatement']>;
  insertedHeader: Array<Promise<QueryResult<Row>>>;
  lineInsert?: ReturnType<AppContext['store']['insertStatement']>;
  insertedLines?: Array<Promise<QueryResult<Row>>>;
}

/** The rounds of document-parts.ts, in the caller's transaction. */
export async function commitDocument(ctx: AppContext, trx: DbExecutor, prepared: PreparedDocument, mode: CommitMode): Promise<DocumentResult> {
  const { dialect, engine } = ctx.database;
  const { type, ref } = prepared;
  const batch = new StatementBatch(trx, engine);
  const reads = new Map<string, RawBuilder<unknown>>();
  const passes = new Map<string, (value: RawBuilder<unknown>) => RawBuilder<unknown>>();
  let values: Row | undefined;
  const slow = mode === 'slow';
  const together = mode === 'together' || mode === 'guarded';
  const doc: DocumentInWriting = {
    ctx, db: trx, batch, ref, type, subject: prepared.subject,
    header: { ...prepared.header },
    lines: prepared.lines.map((line) => ({ ...line })),
    together,
    commitsWithBatch: false,
    readAfterLocks: (name, expression, pass) => {
      reads.set(name, expression);
      if (pass) passes.set(name, pass);
    },
    readValue: (name) => {
      if (!values) throw new Error(`${name} read before the read after the locks was answered`);
      return values[name];
    },
  };
  // Each attempt makes its parts afresh, sorted by the lock order (stable: ties keep their order).
  const parts = prepared.makers.map((make) => make()).map((part, index) => ({ part, index }))
    .sort((a, b) => rank(a.part) - rank(b.part) || a.index - b.index).map(({ part }) => part);
  const { header } = doc;
  const input: NumberingInput = {
    codserie: String(header.codserie), idempresa: Number(header.idempresa), codejercicio: String(header.codejercicio), fecha: String(header.fecha), hora: String(header.hora),
  };

  // 1. The number, under the sequence's lock: claimed in a round of its own, or, where it may be
  // (late-number.ts), in the batch of round 2 with placeholders that the database replaces.
  const late = together ? lateNumber(ctx.database, dialect, type, input, [header, ...doc.lines]) : undefined;
  const claim = slow ? undefined : queueClaim(batch, trx, dialect, type, input);
  /** The number as claimed, in the header (and remembered for the next late number). */
  const take = (number: ClaimedNumber) => {
    rememberClaim(ctx.database, type, input, number);
    Object.assign(header, { numero: String(number.numero), codigo: number.codigo });
  };
  let claimed: ClaimedNumber | undefined;
  if (late) {
    batch.rewrite = late.bind;
    Object.assign(header, { numero: late.numero, codigo: late.codigo });
  } else if (claim) {
    await batch.flush();
    claimed = await claim();
    if (claimed) take(claimed);
  }
  const checked = late ? { sequence: late.sequence, numero: late.claimed } : claimed;
  if (checked) {
    const passing = NUMBER_PASSES;
    for (const [name, check] of Object.entries(numberChecks(type, input, dialect, checked.sequence, checked.numero))) doc.readAfterLocks(`number.${name}`, check, passing[name]);
    // The sequence as the placeholders assumed it, which the claim's answer is checked against once answered (late-number.ts).
    if (late && mode === 'guarded') doc.readAfterLocks('number.sequence', late.sequenceCheck(dialect, type, input), (value) => sql`${value} = 1`);
  } else {
    // The slow path (or no sequence of the exercise's own yet): `assignNumber` under the numbering lock.
    await lockNumbering(trx, dialect, type, input);
    const assigned = await assignNumber(trx, dialect, type, input);
    Object.assign(header, { numero: String(assigned.numero), codigo: assigned.codigo, fecha: assigned.fecha ?? input.fecha, hora: assigned.hora ?? input.hora });
    await checkInvoiceChronology(trx, dialect, type, { ...input, numero: assigned.numero, fecha: String(header.fecha), highest: assigned.highest });
  }

  // 2. The other locks, in order, with what needs only them; then one read of what they guard.
  for (const part of parts) part.lockAndWrite?.(doc);
  const names = [...reads.keys()];
  // The COMMIT goes with the batch where every check after the locks is a condition in SQL too, and
  // the transaction's commit is its own (docs/performance.md, "Committing with the batch").
  doc.commitsWithBatch = mode === 'guarded' && late !== undefined && doc.together && commitTail(trx)
    && names.every((name) => passes.has(name)) && parts.every((part) => part.guarded || (!part.afterLocks && !part.finish));
  const columns = names.map((name, index) => sql`${reads.get(name)!} AS ${sql.ref(`r${index}`)}`);
  // Guarded, the read fails the transaction itself when a check does not hold: on the values it
  // answers, so that what the parts decide from them is what the guard decided. (The LIMIT keeps
  // the inner read from being merged into the outer one, which would read each value twice.)
  const read = !names.length ? undefined : doc.commitsWithBatch
    ? batch.add(sql`SELECT r.*, ${failUnless(sql.join(names.map((name, index) => passes.get(name)!(sql.ref(`r.r${index}`))), sql` AND `))} AS guard FROM (SELECT ${sql.join(columns)} LIMIT 1) r`)
    : batch.add(sql`SELECT ${sql.join(columns)}`);
  const answered = async () => {
    const row = (read ? ((await read).rows[0] ?? {}) : {}) as Row;
    values = Object.fromEntries(names.map((name, index) => [name, row[`r${index}`]]));
    if (claimed) checkClaim(claimed, (name) => values![`number.${name}`], String(header.fecha));
  };

  // 3. What the header follows, the header, its lines, and what names it: by its unique code, in
  // SQL, so that nothing waits for its id to come back. With the read of round 2 when together.
  const writeHeader = async (): Promise<Written> => {
    for (const part of parts) part.beforeHeader?.(doc);
    const headerInsert = ctx.store.insertStatement(type.header, [header as Values], trx);
    const insertedHeader = headerInsert.statements.map((statement) => batch.add(statement));
    doc.idReference = sql<number>`(SELECT ${sql.ref(`h.${type.key}`)} FROM ${sql.table(type.header.table)} h WHERE h.codigo = ${String(header.codigo)} AND h.idempresa = ${Number(header.idempresa)})`;
    const lineInsert = doc.lines.length ? ctx.store.insertStatement(type.line, doc.lines.map((line) => ({ ...line, [type.key]: doc.idReference })) as Values[], trx) : undefined;
    const insertedLines = lineInsert ? lineInsert.statements.map((statement) => batch.add(statement)) : undefined;
    for (const part of parts) await part.afterHeader?.(doc);
    return { headerInsert, insertedHeader, lineInsert, insertedLines };
  };
  // A part that throws while its writes are built has sent nothing: the transaction rolls back.
  let written = doc.together ? await writeHeader() : undefined;
  // Committed with the batch: its events too, their ids stood in for (id-stand-ins.ts), then the COMMIT.
  const standIns = doc.commitsWithBatch && written ? await eventsInBatch(written) : undefined;
  let failure: { error: unknown } | undefined;
  try {
    await batch.flush();
  } catch (error) {
    failure = { error };
  }
  // A deadlock is the transaction's to run again (and to count).
  if (failure && isRetryable(failure.error)) throw failure.error;
  // Nothing of a guarded batch that failed was committed: together, its checks say why.
  if (failure && standIns) throw new GuardFailed('a batch with its commit failed', { cause: failure.error });
  // What follows the batch's answer. Committed with the batch, its checks cannot refuse any more
  // (the guard held): a failure here is a defect, told as one, not as a refusal of what is committed.
  const settle = async (): Promise<DocumentResult> => {
    if (late) {
      try {
        // A claim that failed with its batch went unanswered: the commit runs again, the number claimed first.
        const answer = await claim!().catch((error: unknown) => {
          if (error instanceof SlowNumbering || error instanceof AppError) throw error;
          return undefined;
        });
        claimed = late.settle(answer);
        // Any other failure of the batch too: whatever it was (a number taken, text the database
        // could not take with a placeholder in it), the commit with the number claimed first tells.
        if (failure) throw new WriteInRounds('a batch with a late number failed', { cause: failure.error });
      } catch (error) {
        forgetClaim(ctx.database, type, input);
        throw error;
      }
      take(claimed);
    }
    if (failure) {
      // A write that failed beside the read (the claimed number's unique key, say): what the read
      // says comes first, as it would have in rounds apart. Where the read went unanswered with it
      // (MariaDB ends a multi-statement query at its first failure), the commit runs again apart.
      if (!doc.together) throw failure.error;
      if (read && !(await read.then(() => true, () => false))) throw new WriteInRounds('a write failed beside the read after the locks', { cause: failure.error });
      await answered();
      await afterLocks(parts, doc);
      throw failure.error;
    }
    await answered();
    await afterLocks(parts, doc);
    if (!written) {
      written = await writeHeader();
      await batch.flush();
    }
    const { headerInsert, insertedHeader, lineInsert, insertedLines } = written;
    const id = headerInsert.ids(await Promise.all(insertedHeader))[0]!;
    doc.id = id;
    header[type.key] = id;
    for (const line of doc.lines) line[type.key] = id;
    if (lineInsert) lineInsert.ids(await Promise.all(insertedLines!)).forEach((lineId, index) => (doc.lines[index]!.idlinea = lineId));
    for (const part of parts) await part.finish?.(doc);

    // The answer, as written (typed as a read would type it), and its events at the commit (with
    // the batch's, where it carried the commit: they are written already).
    const records = recordsOf(written, id, doc.lines.map((line) => Number(line.idlinea)), (name) => header[name], late ? (value) => late.resolved(value) : (value) => value);
    if (!standIns) await announce(records);
    // A rare path that changed the document after its insert (a payment on creation) reads it back.
    const result = doc.changed ? await documentResult(trx, type, id) : records.result;
    if (!standIns) {
      await publish(trx, ctx,
        documentEvent(type, 'document.created', id, { type: type.name, doc: result.doc, lines: result.lines }),
        ...(prepared.events?.(doc) ?? []));
    }
    const warnings = warningsOf(trx);
    return { doc: result.doc, lines: result.lines, ...(warnings.length ? { warnings } : {}) };
  };
  if (!standIns) return settle();
  try {
    return await settle();
  } catch (error) {
    throw new Error(`${type.name} ${String(header.codigo)} was committed with its batch, then its answer failed`, { cause: error });
  }

  /**
   * The header and lines as stored, from their inserts' rows: the ids given, a value written as SQL
   * (an id read by the database in the same round) as `sqlValue` says, placeholders as `resolve`.
   */
  function recordsOf(w: Written, headerId: number, lineIds: number[], sqlValue: (name: string) => unknown, resolve: (value: unknown) => unknown) {
    const asWritten = Object.fromEntries(Object.entries(w.headerInsert.rows[0]!).map(([name, value]) => [name, isOperationNodeSource(value) ? sqlValue(name) : resolve(value)]));
    const stored = rowReader(type.header)({ ...asWritten, [type.key]: headerId });
    // A line holds no placeholder (late-number.ts refuses a document whose own values would).
    const lines = w.lineInsert ? w.lineInsert.rows.map((row, index) => rowReader(type.line)({ ...row, [type.key]: headerId, idlinea: lineIds[index] })) : [];
    return { stored, lines, result: { doc: visible(type.header, stored), lines: lines.map((line) => visible(type.line, line)) } };
  }

  /** Tells the store of the new header and lines (their `model.save` events). */
  async function announce(records: ReturnType<typeof recordsOf>): Promise<void> {
    await ctx.store.announceInserted(type.header, [records.stored], trx, true);
    if (records.lines.length) await ctx.store.announceInserted(type.line, records.lines, trx, false);
  }

  /**
   * For a commit with the batch: the document's events added to the batch before its COMMIT, as
   * they will be once answered, the ids the batch gives stood in for and put in by SQL.
   */
  async function eventsInBatch(w: Written): Promise<IdStandIns> {
    const standIns = new IdStandIns(dialect);
    const idReference = doc.idReference!;
    const headerId = standIns.add(idReference, () => doc.id);
    const lineIds = doc.lines.map((_, index) => standIns.add(
      sql`(SELECT l.idlinea FROM ${sql.table(type.line.table)} l WHERE ${sql.ref(`l.${type.key}`)} = ${idReference} ORDER BY l.idlinea LIMIT 1 OFFSET ${sql.lit(index)})`,
      () => doc.lines[index]!.idlinea,
    ));
    const fromSql = new Map<string, number>();
    const sqlValue = (name: string) => {
      let value = fromSql.get(name);
      if (value === undefined) {
        value = standIns.add(sql`(SELECT ${sql.ref(`h.${name}`)} FROM ${sql.table(type.header.table)} h WHERE h.codigo = ${String(header.codigo)} AND h.idempresa = ${Number(header.idempresa)})`, () => header[name]);
        fromSql.set(name, value);
      }
      return value;
    };
    const records = recordsOf(w, headerId, lineIds, sqlValue, (value) => value);
    await announce(records);
    await publish(trx, ctx,
      documentEvent(type, 'document.created', headerId, { type: type.name, doc: records.result.doc, lines: records.result.lines }),
      ...(prepared.events?.(doc) ?? []));
    queueEventsInto(trx, (statement) => void batch.add(statement), {
      insert: (db, model, rows) => standIns.insert(db, model, rows),
      answered: (text) => (late ? late.resolve(standIns.answered(text)) : standIns.answered(text)),
    });
    batch.commit();
    return standIns;
  }
}
