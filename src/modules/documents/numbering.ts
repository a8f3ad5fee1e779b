import { sql } from 'kysely';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { AppError } from '../../errors.ts';
import { expandPattern } from './code-patterns.ts';
import type { DocumentType } from './document-types.ts';
import { dbBoolean } from '../../db/row-codec.ts';

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

/**
 * Serialises numbering of one serie across transactions and instances: a row lock on the serie
 * (SQLite's single writer needs none). Taken first in the document's transaction, so that numbers
 * are read and written under it and a rollback gives the number back.
 */
export async function lockSerie(db: DbExecutor, dialect: SqlDialect, codserie: string): Promise<void> {
  const query = db.selectFrom('series').select('codserie').where('codserie', '=', codserie);
  const row = await dialect.locking(query).executeTakeFirst();
  if (!row) throw new AppError('validation-failed', { fields: { codserie: 'not-found' } });
}

interface Sequence {
  idsecuencia: number;
  codejercicio: string | null;
  inicio: number;
  numero: number;
  longnumero: number;
  patron: string;
  usarhuecos: boolean;
  mantenerfecha: boolean;
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
  const read = (row: Record<string, unknown>): Sequence => ({
    idsecuencia: Number(row.idsecuencia),
    codejercicio: row.codejercicio === null ? null : String(row.codejercicio),
    inicio: Math.max(1, Number(row.inicio ?? 1)),
    numero: Number(row.numero),
    longnumero: Number(row.longnumero),
    patron: String(row.patron),
    usarhuecos: dbBoolean(row.usarhuecos),
    mantenerfecha: dbBoolean(row.mantenerfecha) && !type.invoice,
  });
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

/**
 * `numero` and `codigo` for a new document (facturascripts-model.md 3.8, BusinessDocumentCode):
 * the next number of its sequence, or with gap filling (customer invoices) the highest free number
 * below it. Must run under `lockSerie`.
 */
export async function assignNumber(db: DbExecutor, dialect: SqlDialect, type: DocumentType, input: NumberingInput): Promise<Assigned> {
  const sequence = await sequenceFor(db, type, input);
  const table = type.header.table;
  const numberSql = dialect.integer(sql.ref('numero'));
  let query = db
    .selectFrom(table)
    .select([sql<number>`${numberSql}`.as('n'), 'fecha', 'hora', 'codejercicio'])
    .where('codserie', '=', input.codserie)
    .where('idempresa', '=', input.idempresa);
  if (sequence.codejercicio) {
    query = query.where('codejercicio', '=', input.codejercicio);
  } else {
    const own = await db.selectFrom('secuencias_documentos').select('codejercicio').where('tipodoc', '=', type.name)
      .where('codserie', '=', input.codserie).where('idempresa', '=', input.idempresa).where('codejercicio', 'is not', null).execute();
    const excluded = own.map((row) => String(row.codejercicio)).filter(Boolean);
    if (excluded.length) query = query.where('codejercicio', 'not in', excluded);
  }
  // Without a gap (as many numbers as the range they span) the scan below finds nothing: skip it.
  const summary = await query.clearSelect().select([sql<number>`MAX(${numberSql})`.as('max'), sql<number>`COUNT(*)`.as('count'), sql<number>`MIN(${numberSql})`.as('min')]).executeTakeFirst();
  const [max, count, min] = [Number(summary?.max ?? 0), Number(summary?.count ?? 0), Number(summary?.min ?? 0)];
  const gapless = count === 0 || (min <= sequence.inicio && max - min + 1 === count);
  if (!sequence.usarhuecos || gapless) {
    let numero = sequence.numero;
    if (max >= numero || sequence.usarhuecos) numero = count === 0 && sequence.usarhuecos ? sequence.inicio : max + 1;
    await db.updateTable('secuencias_documentos').set({ numero: numero + 1 }).where('idsecuencia', '=', sequence.idsecuencia).execute();
    return { numero, codigo: codeOf(sequence, input, numero), highest: numero > max };
  }
  const previous = (await query.orderBy(sql`${numberSql}`, 'desc').limit(1000).execute()).map((row) => ({
    n: Number(row.n),
    fecha: String(row.fecha),
    hora: row.hora === null ? null : String(row.hora),
    codejercicio: String(row.codejercicio),
  }));
  const highest = previous[0]?.n ?? 0;
  let next = sequence.numero;
  if (highest >= next || sequence.usarhuecos) next = highest + 1;
  let result: Assigned | undefined;
  if (sequence.usarhuecos) {
    if (!previous.length) {
      result = { numero: sequence.inicio, codigo: '', highest: true };
      next = sequence.inicio + 1;
    } else {
      const used = new Set(previous.map((row) => row.n));
      // Below a full window nothing is known: gaps are only looked for among the numbers read.
      const floor = previous.length >= 1000 ? Math.max(sequence.inicio, previous[previous.length - 1]!.n) : sequence.inicio;
      for (let candidate = next - 1; candidate >= floor; candidate--) {
        if (used.has(candidate)) continue;
        // A gap of this exercise (the next number is this exercise's): the document takes the date
        // of that next invoice, so dates stay in number order.
        const after = previous.filter((row) => row.n > candidate).sort((a, b) => a.n - b.n)[0];
        if (after && after.codejercicio !== input.codejercicio) break;
        result = { numero: candidate, codigo: '', highest: !after, ...(after && !sequence.mantenerfecha ? { fecha: after.fecha, hora: after.hora ?? input.hora } : {}) };
        break;
      }
    }
  }
  if (!result) {
    result = { numero: next, codigo: '', highest: next > highest };
    next += 1;
  }
  await db.updateTable('secuencias_documentos').set({ numero: Math.max(next, sequence.numero) }).where('idsecuencia', '=', sequence.idsecuencia).execute();
  result.codigo = codeOf(sequence, { ...input, fecha: result.fecha ?? input.fecha, hora: result.hora ?? input.hora }, result.numero);
  return result;
}

function codeOf(sequence: Sequence, input: NumberingInput, numero: number): string {
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
