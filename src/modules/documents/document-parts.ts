import type { RawBuilder } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import type { StatementBatch } from '../../db/statement-batch.ts';
import { hookPoint } from '../../hooks.ts';
import type { CachedExercise } from '../fiscal/index.ts';
import type { Calculation } from './calculation/types.ts';
import type { LineProduct } from '../catalogue/index.ts';
import type { DocumentReference } from './document-reference.ts';
import type { Row } from './document-repository.ts';
import type { DocumentType } from './document-types.ts';

/**
 * How a new document is written (docs/performance.md): *prepared* first, holding no lock (its
 * customer, products and reference data read once, lines and totals computed), then *committed*
 * in rounds, each sent to the database as one batch (src/db/statement-batch.ts):
 * 1. its number claimed (the sequence's lock, first);
 * 2. the other shared locks, in `LOCK_ORDER`, each with the writes that need only it, and one
 *    read of what must be checked under them;
 * 3. what must precede the header, the header, its lines, and what names it (receipts, records),
 *    by its unique code in SQL (`idReference`): nothing waits for its id to come back.
 * Then its events and the commit. Rounds 2 and 3 go as one batch (`together`) unless a part needs
 * round 2's answer to write its part of round 3: what is checked after the locks only refuses, and
 * a refusal rolls back whatever went with it. Round 1 goes with them too where the database may
 * place the number (late-number.ts): until round 2 is answered the header's `numero` and `codigo`
 * are then placeholders, which a part may carry as text into its statements but must not compute
 * on (a hash, a length) before its `afterLocks`.
 * Each module that takes part (documents' own risk, stock and receipts; posting; VERI*FACTU) is a
 * `DocumentPart`, made for each attempt of the transaction from what it prepared.
 */

/**
 * The shared locks of document writes, in the one order every writer takes them (after the
 * sequence's): the customer's row, the document's own row (an existing one), the stock rows by
 * warehouse and reference, the year's entry counter, the company's fiscal chain.
 */
export const LOCK_ORDER = ['customer', 'document', 'stock', 'entries', 'chain'] as const;
export type LockSlot = (typeof LOCK_ORDER)[number];

/** A new document as its commit completes it: what the parts read and add to. */
export interface DocumentInWriting {
  ctx: AppContext;
  /** The transaction. */
  db: DbExecutor;
  /** The round being built: statements added here go to the database with the round. */
  batch: StatementBatch;
  ref: DocumentReference;
  type: DocumentType;
  /** The customer or supplier row, as read when preparing. */
  subject: Row;
  /**
   * The header as it will be stored: numbered (`numero`, `codigo`, its date) from round 2 on, the
   * number's placeholders until round 2 is answered where the database places it (late-number.ts).
   */
  header: Row;
  /** The lines as they will be stored, with their amounts (their ids come with round 3). */
  lines: Row[];
  /**
   * The header's id as SQL, from round 3 on: it reads the header by its unique code, for the
   * statements sent with its insert. `id` itself once round 3 is answered.
   */
  idReference?: RawBuilder<number>;
  id?: number;
  /** Set by a part that changed the stored document after round 3 (in `finish`) (its answer is then read back). */
  changed?: boolean;
  /** Payments recorded on creation (an invoice paid at once): the receipts paid and how many payments. */
  payments?: { recorded: number; paid: Row[] };
  /**
   * Whether round 3 goes with round 2, in the same batch (the usual case). A part whose round-3
   * statements need what round 2 answers sets it false in `lockAndWrite`; a part that learns after
   * the locks that it needs them apart (its statements already sent) throws `WriteInRounds`.
   */
  together: boolean;
  /**
   * Whether the COMMIT goes in the batch of rounds 1 to 3 (commit-guard in docs/performance.md):
   * decided when the read after the locks is built, from what the parts said by then. A part that
   * writes in round 3 what may refuse there (a conditional insert) makes it fail its statement
   * instead (`failUnless`), so that the batch never reaches its COMMIT.
   */
  commitsWithBatch: boolean;
  /**
   * Adds an expression to the read that ends round 2 (after every lock); its value is
   * `readValue(name)`, once answered (`afterLocks` on). `passes` is the condition in SQL, on that
   * value, under which the part's `afterLocks` and `finish` neither refuse, nor ask for rounds
   * apart, nor write: with it for every read (and every part `guarded`), the read fails the
   * transaction itself when one does not hold, and the COMMIT may go with the batch.
   */
  readAfterLocks(name: string, expression: RawBuilder<unknown>, passes?: (value: RawBuilder<unknown>) => RawBuilder<unknown>): void;
  readValue(name: string): unknown;
}

/** Thrown by a part's `afterLocks` in a commit whose rounds went together: the commit runs again with them apart. */
export class WriteInRounds extends Error {
  override name = 'WriteInRounds';
}

/** A module's part in writing a new document (see above); every method is optional. */
export interface DocumentPart {
  /** Where its lock goes in `LOCK_ORDER`; a part without one writes in rounds 3 and 4 only. */
  lock?: LockSlot;
  /**
   * True when, its reads passing (`readAfterLocks`' `passes`), its `afterLocks` and `finish` only
   * take what was answered: no refusal, no rounds apart, no statement. A part with either and
   * without this keeps its commit in rounds (the COMMIT after the answer).
   */
  guarded?: boolean;
  /** Round 2: statements that take its lock, and writes that need nothing else. */
  lockAndWrite?(doc: DocumentInWriting): void;
  /** After round 2: what its statements and reads answered; may refuse (an AppError) or set header values (`idasiento`). */
  afterLocks?(doc: DocumentInWriting): void | Promise<void>;
  /** Round 3: statements the header's row must follow (before `afterLocks` when together). */
  beforeHeader?(doc: DocumentInWriting): void;
  /**
   * Round 3, after the header's and the lines' inserts: statements that name the header by
   * `idReference` (computed in memory: awaited, but no round trip of its own; before `afterLocks`
   * when together).
   */
  afterHeader?(doc: DocumentInWriting): void | Promise<void>;
  /** After round 3: work done a statement at a time, `id` known (the rare paths: a payment on creation, a signed record). */
  finish?(doc: DocumentInWriting): Promise<void>;
}

/** What a module sees of a document being prepared (no lock held, no transaction). */
export interface PreparingDocument {
  ctx: AppContext;
  ref: DocumentReference;
  type: DocumentType;
  /** The header without its number (`numero`, `codigo`): its totals, date, exercise, company ... */
  header: Row;
  lines: Row[];
  subject: Row;
  /** The variants and products the lines name, by the reference or barcode asked for. */
  products: ReadonlyMap<string, LineProduct>;
  /** The type (`tipo`) of every product a line names, as the document's calculation read it. */
  productTypes: ReadonlyMap<number, string | null>;
  exercise: CachedExercise;
  /**
   * The document's tax breakdown as stored (`storedBreakdown` of this header and these lines),
   * computed once for every module that asks (posting, tax rows, VERI*FACTU).
   */
  breakdown(): Promise<Calculation>;
}

/** Makes a module's part for one attempt of the commit (each attempt starts from scratch). */
export type PartMaker = () => DocumentPart;

/**
 * Asked while a new document is prepared, before any lock: a module answers how it takes part in
 * the commit (posting: the invoice's entry; VERI*FACTU: its record), having read what it needs.
 * A refusal here (an AppError) refuses the document.
 */
export const documentPreparing = hookPoint<PreparingDocument, PartMaker>('documents.preparing');
