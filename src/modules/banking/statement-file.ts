/**
 * Bank statement files as the bank sends them (../shared/reference/sepa.md, "AEB Cuaderno 43"):
 * AEB Norma 43 text or ISO 20022 camt.053 XML, read into the same accounts and movements (the types
 * and small helpers both parsers share; parse-statement.ts picks the parser). Pure:
 * nothing here knows the database; identifying a movement again (hashing) is the importer's job.
 */

/** One booked entry of a statement. */
export interface StatementMovement {
  /** Booking date, YYYY-MM-DD. */
  fecha: string;
  /** Value date (for interest), YYYY-MM-DD. */
  fechavalor: string;
  /** Signed euros, money in positive, from the file's integer cents. */
  importe: number;
  /** Norma 43 common concept code `01`..`99` (sepa.md section 7); camt.053 maps its bank transaction code. */
  concepto: string;
  /** The bank's own concept: Norma 43's 3 digits, camt.053's `BkTxCd/Prtry/Cd`, or ''. */
  conceptopropio: string;
  /** Norma 43's document number and references 1 and 2, trimmed; '' for camt.053. */
  documento: string;
  referencia1: string;
  referencia2: string;
  /** The free text of the entry, white space collapsed. */
  texto: string;
  /** The end-to-end ids the entry settles (our pain.008/pain.001 ids for a match), `NOTPROVIDED` left out. */
  endtoend: string[];
  /** SEPA direct debit: the mandate reference and the creditor identifier. */
  mandato: string | null;
  acreedor: string | null;
  /** The other party's name and IBAN, when the file gives them. */
  contraparte: string | null;
  ibancontraparte: string | null;
  /** camt.053's `AcctSvcrRef` (the bank's reference, unique across its statements); null otherwise. */
  referenciabanco: string | null;
  /** 1-based line of the entry in the file (Norma 43 record 22, camt.053 `Ntry`). */
  linea: number;
}

/** One account's statement: its period, balances and movements. */
export interface StatementAccount {
  /** The account's IBAN, compact. */
  iban: string;
  /** ISO 4217 alphabetic code (a numeric code Norma 43 does not list stays as the file gives it). */
  divisa: string;
  /** The period, YYYY-MM-DD, when the file gives it. */
  desde: string | null;
  hasta: string | null;
  /** Signed balances, a debit (overdrawn) balance negative. */
  saldoinicial: number;
  saldofinal: number;
  /** 1-based line of the account's header (Norma 43 record 11, camt.053 `Stmt`). */
  linea: number;
  movimientos: StatementMovement[];
}

/** Why a statement file is refused. */
export type StatementProblem =
  | 'empty' | 'unknown-record' | 'out-of-sequence' | 'invalid-account' | 'invalid-date' | 'invalid-amount' | 'truncated'
  | 'account-mismatch' | 'totals-mismatch' | 'balance-mismatch' | 'record-count'
  | 'invalid-xml' | 'unsupported-format' | 'no-iban';

/** A statement file refused: where (1-based line), why, and the account concerned when known. */
export class StatementError extends Error {
  linea: number;
  motivo: StatementProblem;
  cuenta: string | null;

  constructor(linea: number, motivo: StatementProblem, cuenta: string | null = null) {
    super(`${motivo} at line ${linea}${cuenta ? ` (${cuenta})` : ''}`);
    this.name = 'StatementError';
    this.linea = linea;
    this.motivo = motivo;
    this.cuenta = cuenta;
  }
}

/** Euros from integer cents (`+ 0` turns a zero debit's -0 into 0). */
export const euros = (cents: number): number => cents / 100 + 0;

/** `YYYY-MM-DD` when the day exists in the calendar, else null. */
export function isoDate(year: number, month: number, day: number): string | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** Pieces of free text as one line: trimmed, runs of white space collapsed, empty pieces dropped. */
export const joinText = (pieces: string[]): string => pieces.map((piece) => piece.replace(/\s+/g, ' ').trim()).filter(Boolean).join(' ');

/** An identifier as given, or null when absent or the SEPA placeholder `NOTPROVIDED`. */
export function givenId(id: string): string | null {
  const trimmed = id.trim();
  return trimmed && trimmed.toUpperCase() !== 'NOTPROVIDED' ? trimmed : null;
}

/**
 * Whether the other party of a movement is the payment's creditor (else its debtor): money out
 * means we paid, so the other party was paid; a return (concept 14) undoes a payment, so the
 * sides swap (our collection returned leaves our account, naming the debtor).
 */
export const counterpartyIsCreditor = (moneyOut: boolean, concepto: string): boolean => moneyOut !== (concepto === '14');
