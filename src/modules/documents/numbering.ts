import { sql } from 'kysely';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { AppError } from '../../errors.ts';
import { expandPattern } from './code-patterns.ts';
import type { DocumentType } from './document-types.ts';
import { dbBoolean } from '../../db/row-codec.ts';
import { namedLock } from '../../db/code-counter.ts';
import { forgetGap, highestGap, lowerTop, recordGaps } from './number-gaps.ts';

export interface NumberingInput {
  codserie: string;
  idempresa: number;
  codejercicio: string;
  fecha: string;
  hora: string;
}

export interface Assigned {
  numero: number;
  codigo: string;
  /** Above every number the serie has (no gap was filled): every other document comes before it. */
  highest: boolean;
  /** Set when a gap was filled: the document takes the date of the next-higher one (invoices). */
  fecha?: string;
  hora?: string;
}

/** The sequence rows a document's number may come from: its exercise's own, or the serie's shared one. */
export interface NumberingScope {
  codserie: string;
  idempresa: number;
  codejercicio: string;
}

/**
 * Takes the numbering lock of a document type in a serie, company and exercise, for the rest of
 * the transaction: the rows of the sequences its number may come from (its exercise's own, the
 * shared one), in id order. When there is none yet (the first document: `assignNumber` creates
 * one), a named lock serialises the creation, and the rows are locked once it is held (another
 * transaction may have created one meanwhile). Never the serie's row: every document's insert
 * shares it (its foreign key), so a writer holding a sequence row while inserting its document
 * would wait for one that held the serie and waited for that sequence row. The fast claim of a new
 * document (number-claim.ts) locks its own sequence row by updating it.
 */
export async function lockNumbering(db: DbExecutor, dialect: SqlDialect, type: DocumentType, scope: NumberingScope): Promise<void> {
  const lockRows = () => dialect.locking(db.selectFrom('secuencias_documentos').select('idsecuencia')
    .where('tipodoc', '=', type.name).where('codserie', '=', scope.codserie).where('idempresa', '=', scope.idempresa)
    .where((eb) => eb.or([eb('codejercicio', '=', scope.codejercicio), eb('codejercicio', 'is', null), eb('codejercicio', '=', '')]))
    .orderBy('idsecuencia')).execute();
  if ((await lockRows()).length) return;
  if (!(await db.selectFrom('series').select('codserie').where('codserie', '=', scope.codserie).executeTakeFirst())) {
    throw new AppError('validation-failed', { fields: { codserie: 'not-found' } });
  }
  await namedLock(db, dialect.engine, `numbering:${type.name}:${scope.codserie}:${scope.idempresa}`);
  await lockRows();
}

/** A numbering sequence as stored (`secuencias_documentos`), typed. */
export interface Sequence {
  idsecuencia: number;
  codejercicio: string | null;
  inicio: number;
  numero: number;
  longnumero: number;
  patron: string;
  usarhuecos: boolean;
  mantenerfecha: boolean;
}

/** A sequence row as read, typed; `mantenerfecha` never holds for invoices. */
export function sequenceOf(type: DocumentType, row: Record<string, unknown>): Sequence {
  return {
    idsecuencia: Number(row.idsecuencia),
    codejercicio: row.codejercicio === null ? null : String(row.codejercicio),
    inicio: Math.max(1, Number(row.inicio ?? 1)),
    numero: Number(row.numero),
    longnumero: Number(row.longnumero),
    patron: String(row.patron),
    usarhuecos: dbBoolean(row.usarhuecos),
    mantenerfecha: dbBoolean(row.mantenerfecha) && !type.invoice,
  };
}

async function sequenceFor(db: DbExecutor, type: DocumentType, input: NumberingInput): Promise<Sequence> {
  const rows = await db
    .selectFrom('secuencias_documentos')
    .selectAll()
    .where('tipodoc', '=', type.name)
    .where('codserie', '=', input.codserie)
    .where('idempresa', '=', input.idempresa)
    .orderBy('idsecuencia', 'asc')
    .execute();
  const read = (row: Record<string, unknown>) => sequenceOf(type, row);
  const own = rows.find((row) => row.codejercicio === input.codejercicio) ?? rows.find((row) => row.codejercicio === null || row.codejercicio === '');
  if (own) return read(own);
  // A new per-exercise sequence, patterned on another exercise's (a literal year becomes {ANYO}).
  const model = rows[0];
  const values = {
    tipodoc: type.name,
    codserie: input.codserie,
    idempresa: input.idempresa,
    codejercicio: input.codejercicio,
    patron: model ? String(model.patron).replace(/20\d\d/g, '{ANYO}') : type.pattern,
    longnumero: model ? Number(model.longnumero) : 6,
    inicio: 1,
    numero: 1,
    usarhuecos: type.name === 'FacturaCliente',
    mantenerfecha: false,
  };
  await db.insertInto('secuencias_documentos').values({ ...values, usarhuecos: values.usarhuecos ? 1 : 0, mantenerfecha: 0 }).execute();
  return sequenceFor(db, type, input);
}

/** The documents a sequence numbers: its serie and company, in its exercise or in those without a sequence of their own. */
async function scopeOf(db: DbExecutor, type: DocumentType, input: NumberingInput, sequence: Sequence) {
  let query = db.selectFrom(type.header.table).where('codserie', '=', input.codserie).where('idempresa', '=', input.idempresa);
  if (sequence.codejercicio) return query.where('codejercicio', '=', input.codejercicio);
  const own = await db.selectFrom('secuencias_documentos').select('codejercicio').where('tipodoc', '=', type.name)
    .where('codserie', '=', input.codserie).where('idempresa', '=', input.idempresa).where('codejercicio', 'is not', null).execute();
  const excluded = own.map((row) => String(row.codejercicio)).filter(Boolean);
  if (excluded.length) query = query.where('codejercicio', 'not in', excluded);
  return query;
}

type Scope = Awaited<ReturnType<typeof scopeOf>>;

/** The document numbered `numero` in the scope (an indexed look-up: `numero` is compared as stored). */
function documentAt(scope: Scope, numero: number) {
  return scope.select(['fecha', 'hora', 'codejercicio']).where('numero', '=', String(numero)).limit(1).executeTakeFirst();
}

/**
 * `numero` and `codigo` for a new document (facturascripts-model.md 3.8, BusinessDocumentCode):
 * the next number of its sequence, or with gap filling (customer invoices) the highest free number
 * below it. Must run under `lockNumbering`.
 *
 * In O(1): the sequence row says the next number and the recorded gaps (number-gaps.ts) the free
 * ones; a few indexed look-ups check that the sequence is right (the number is free and, when
 * gaps are filled, the one before it is taken). A sequence that is not (edited by hand, or rows
 * written around the API) is repaired by one scan of the serie, which also records its gaps.
 */
export async function assignNumber(db: DbExecutor, dialect: SqlDialect, type: DocumentType, input: NumberingInput): Promise<Assigned> {
  const sequence = await sequenceFor(db, type, input);
  const scope = await scopeOf(db, type, input, sequence);
  const assigned = (await fromSequence(db, scope, sequence, input)) ?? (await fromScan(db, dialect, scope, sequence, input));
  assigned.codigo = codeOf(sequence, { ...input, fecha: assigned.fecha ?? input.fecha, hora: assigned.hora ?? input.hora }, assigned.numero);
  return assigned;
}

async function setNext(db: DbExecutor, sequence: Sequence, numero: number): Promise<void> {
  if (numero !== sequence.numero) await db.updateTable('secuencias_documentos').set({ numero }).where('idsecuencia', '=', sequence.idsecuencia).execute();
}

/** The number the sequence row and the recorded gaps give, or undefined when the row cannot be trusted. */
async function fromSequence(db: DbExecutor, scope: Scope, sequence: Sequence, input: NumberingInput): Promise<Assigned | undefined> {
  const next = sequence.numero;
  if (next < sequence.inicio) return undefined;
  // One look at the number to give (it must be free) and the one before it: filling gaps, the
  // sequence stands right above the highest document.
  const around = new Set((await scope.select('numero').where('numero', 'in', [String(next - 1), String(next)]).execute()).map((row) => Number(row.numero)));
  if (around.has(next)) return undefined;
  if (!sequence.usarhuecos) {
    await setNext(db, sequence, next + 1);
    return { numero: next, codigo: '', highest: true };
  }
  if (next > sequence.inicio && !around.has(next - 1)) return undefined;
  const gap = await highestGap(db, sequence.idsecuencia, sequence.inicio, next - 1);
  if (gap !== undefined) {
    const after = await documentAt(scope, gap + 1);
    if (!after || (await documentAt(scope, gap))) return undefined;
    // A gap of another exercise is left to that exercise's documents (reference 5.6).
    if (String(after.codejercicio) === input.codejercicio) {
      await forgetGap(db, sequence.idsecuencia, gap);
      return { numero: gap, codigo: '', highest: false, ...(sequence.mantenerfecha ? {} : { fecha: String(after.fecha), hora: after.hora === null ? input.hora : String(after.hora) }) };
    }
  }
  await setNext(db, sequence, next + 1);
  return { numero: next, codigo: '', highest: true };
}

/** Below a full window of the highest numbers nothing is known: gaps are only looked for among them. */
const SCAN_WINDOW = 1000;

/** The free numbers below the highest of `numbers` (its SCAN_WINDOW highest, in descending order). */
function gapsAmong(numbers: number[], inicio: number): number[] {
  if (!numbers.length) return [];
  const used = new Set(numbers);
  const floor = numbers.length >= SCAN_WINDOW ? Math.max(inicio, numbers[numbers.length - 1]!) : inicio;
  const gaps: number[] = [];
  for (let candidate = numbers[0]! - 1; candidate >= floor; candidate--) if (!used.has(candidate)) gaps.push(candidate);
  return gaps;
}

/**
 * Records the gaps of every sequence that fills them, from one scan of its serie: how an
 * installation numbered before gaps were recorded (or after rows were written around the API)
 * gets them (the documents module's `number-gaps` seed).
 */
export async function recordExistingGaps(db: DbExecutor, dialect: SqlDialect, types: readonly DocumentType[]): Promise<number> {
  const numberSql = dialect.integer(sql.ref('numero'));
  let recorded = 0;
  for (const row of await db.selectFrom('secuencias_documentos').selectAll().execute()) {
    const type = types.find((candidate) => candidate.name === row.tipodoc);
    if (!type || !dbBoolean(row.usarhuecos)) continue;
    const input = { codserie: String(row.codserie), idempresa: Number(row.idempresa), codejercicio: String(row.codejercicio ?? ''), fecha: '', hora: '' };
    const sequence = { idsecuencia: Number(row.idsecuencia), codejercicio: row.codejercicio === null ? null : String(row.codejercicio) || null, inicio: Math.max(1, Number(row.inicio ?? 1)) };
    const scope = await scopeOf(db, type, input, sequence as Sequence);
    const numbers = (await scope.select(sql<number>`${numberSql}`.as('n')).orderBy(sql`${numberSql}`, 'desc').limit(SCAN_WINDOW).execute()).map((found) => Number(found.n));
    const gaps = gapsAmong(numbers, sequence.inicio);
    await recordGaps(db, dialect, sequence.idsecuencia, gaps);
    recorded += gaps.length;
  }
  return recorded;
}

/** The number found by scanning the serie (a sequence out of step): repairs the sequence and records the gaps it saw. */
async function fromScan(db: DbExecutor, dialect: SqlDialect, scope: Scope, sequence: Sequence, input: NumberingInput): Promise<Assigned> {
  const numberSql = dialect.integer(sql.ref('numero'));
  const previous = (await scope.select([sql<number>`${numberSql}`.as('n'), 'fecha', 'hora', 'codejercicio']).orderBy(sql`${numberSql}`, 'desc').limit(SCAN_WINDOW).execute())
    .map((row) => ({ n: Number(row.n), fecha: String(row.fecha), hora: row.hora === null ? null : String(row.hora), codejercicio: String(row.codejercicio) }));
  const highest = previous[0]?.n ?? 0;
  if (!sequence.usarhuecos) {
    const numero = Math.max(sequence.numero, highest + 1);
    await setNext(db, sequence, numero + 1);
    return { numero, codigo: '', highest: true };
  }
  if (!previous.length) {
    await setNext(db, sequence, sequence.inicio + 1);
    return { numero: sequence.inicio, codigo: '', highest: true };
  }
  await recordGaps(db, dialect, sequence.idsecuencia, gapsAmong(previous.map((row) => row.n), sequence.inicio));
  await setNext(db, sequence, highest + 1);
  return (await fromSequence(db, scope, { ...sequence, numero: highest + 1 }, input))!;
}

/**
 * Gives back the number of a document that leaves its sequence (deleted, or moved to another
 * serie or exercise), where gaps are filled: the highest lowers the sequence, any other becomes a
 * recorded gap. Must run under `lockNumbering` of the document's numbering.
 */
export async function releaseNumber(db: DbExecutor, dialect: SqlDialect, type: DocumentType, doc: { codserie: string; idempresa: number; codejercicio: string; numero: number }): Promise<void> {
  const rows = await db.selectFrom('secuencias_documentos').selectAll().where('tipodoc', '=', type.name)
    .where('codserie', '=', doc.codserie).where('idempresa', '=', doc.idempresa).orderBy('idsecuencia', 'asc').execute();
  const row = rows.find((candidate) => candidate.codejercicio === doc.codejercicio) ?? rows.find((candidate) => candidate.codejercicio === null || candidate.codejercicio === '');
  if (!row || !dbBoolean(row.usarhuecos)) return;
  const idsecuencia = Number(row.idsecuencia);
  const next = Number(row.numero);
  const inicio = Math.max(1, Number(row.inicio ?? 1));
  if (doc.numero === next - 1) {
    const top = await lowerTop(db, idsecuencia, doc.numero, inicio);
    await db.updateTable('secuencias_documentos').set({ numero: top }).where('idsecuencia', '=', idsecuencia).execute();
  } else if (doc.numero >= inicio && doc.numero < next - 1) {
    await recordGaps(db, dialect, idsecuencia, [doc.numero]);
  }
}

/** A document's `codigo`: its sequence's pattern expanded; refused when longer than 20. */
export function codeOf(sequence: Pick<Sequence, 'patron' | 'longnumero'>, input: NumberingInput, numero: number): string {
  const codigo = expandPattern(sequence.patron, { ...input, numero, longnumero: sequence.longnumero });
  if (codigo.length > 20) throw new AppError('validation-failed', { fields: { codigo: 'too-long' } });
  return codigo;
}

/**
 * Customer invoices keep date order within a serie and exercise (FacturaCliente::testDate): no
 * lower number with a later date, no higher number with an earlier date.
 */
export async function checkInvoiceChronology(
  db: DbExecutor, dialect: SqlDialect, type: DocumentType,
  doc: { idempresa: number; codserie: string; codejercicio: string; numero: number; fecha: string; id?: number; highest?: boolean },
): Promise<void> {
  if (type.name !== 'FacturaCliente') return;
  const numberSql = dialect.integer(sql.ref('numero'));
  const base = db.selectFrom(type.header.table).select(type.key)
    .where('idempresa', '=', doc.idempresa).where('codserie', '=', doc.codserie).where('codejercicio', '=', doc.codejercicio);
  const scoped = doc.id === undefined ? base : base.where(type.key, '<>', doc.id);
  if (doc.highest) {
    // The highest number: only a document dated later can break the order (an indexed look).
    const later = await scoped.where('fecha', '>', doc.fecha).limit(1).execute();
    if (later.length) throw new AppError('invoice-date-order', { reason: 'later-invoice-before', fecha: doc.fecha });
    return;
  }
  // One look for both breaches: a lower number dated later, or a higher number dated earlier.
  const [breach] = await scoped.clearSelect().select('fecha')
    .where((eb) => eb.or([
      eb.and([eb(numberSql, '<', doc.numero), eb('fecha', '>', doc.fecha)]),
      eb.and([eb(numberSql, '>', doc.numero), eb('fecha', '<', doc.fecha)]),
    ]))
    .limit(1).execute();
  if (breach) {
    const reason = String(breach.fecha) > doc.fecha ? 'later-invoice-before' : 'earlier-invoice-after';
    throw new AppError('invoice-date-order', { reason, fecha: doc.fecha });
  }
}
