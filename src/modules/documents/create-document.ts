import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { afterCommit, inTransaction } from '../../db/transaction.ts';
import type { Settings } from '../../settings.ts';
import { AppError, validationError } from '../../errors.ts';
import type { Values } from '../../models/define-model.ts';
import type { DocumentInput } from './document-input.ts';
import { buildLine, lineDefaults } from './document-lines.ts';
import type { DocumentType } from './document-types.ts';
import { exerciseFor } from './fiscal-year.ts';
import { assignNumber, checkInvoiceChronology, lockSerie } from './numbering.ts';
import { payInvoiceReceipts } from './invoice-receipts.ts';
import { headerOf, linesOf, recalculate, type Row } from './recalculate.ts';
import { moveStock } from '../catalogue/index.ts';
import { dbBoolean } from '../../db/row-codec.ts';

export interface DocumentResult {
  doc: Row;
  lines: Row[];
}

/** Visible fields only: what the API shows of a record. */
export function visible(model: DocumentType['header'], row: Row): Row {
  const out: Row = {};
  for (const name of model.visibleFields) out[name] = row[name];
  return out;
}

export async function documentResult(db: DbExecutor, type: DocumentType, id: unknown): Promise<DocumentResult> {
  const doc = (await headerOf(db, type, id))!;
  return { doc: visible(type.header, doc), lines: (await linesOf(db, type, id)).map((line) => visible(type.line, line)) };
}

/** A status of the document type: the requested one, or the default (first `predeterminado`). */
export async function statusFor(db: DbExecutor, type: DocumentType, idestado?: unknown) {
  const statuses = await db.selectFrom('estados_documentos').selectAll().where('tipodoc', '=', type.name).orderBy('idestado', 'asc').execute();
  const status = idestado !== undefined && idestado !== null
    ? statuses.find((candidate) => Number(candidate.idestado) === Number(idestado))
    : statuses.find((candidate) => dbBoolean(candidate.predeterminado));
  if (!status) throw validationError({ idestado: idestado === undefined || idestado === null ? 'no-default-status' : 'not-found' });
  return {
    idestado: Number(status.idestado),
    editable: dbBoolean(status.editable),
    actualizastock: Number(status.actualizastock ?? 0),
    generadoc: (status.generadoc as string | null) || null,
  };
}

/** Copies of the customer or supplier that a new document takes (facturascripts-model.md 3.2). */
async function subjectDefaults(db: DbExecutor, type: DocumentType, subject: Row): Promise<Values> {
  const values: Values = {
    [type.subject]: subject[type.subject] as string,
    cifnif: (subject.cifnif as string | null) ?? '',
    [type.subjectName]: (subject.razonsocial as string | null) || (subject.nombre as string),
    operacion: (subject.operacion as string | null) ?? null,
  };
  const contactId = type.side === 'sales' ? subject.idcontactofact : subject.idcontacto;
  if (contactId !== null && contactId !== undefined) {
    const contact = await db.selectFrom('contactos').selectAll().where('idcontacto', '=', contactId).executeTakeFirst();
    if (contact) {
      for (const field of ['codpais', 'provincia', 'ciudad', 'direccion', 'codpostal', 'apartado']) values[field] = (contact[field] as string | null) ?? null;
    }
  }
  if (type.side === 'sales') {
    Object.assign(values, { idcontactofact: subject.idcontactofact ?? null, idcontactoenv: subject.idcontactoenv ?? null, codagente: subject.codagente ?? null });
  }
  const retention = subject.codretencion
    ? await db.selectFrom('retenciones').select('porcentaje').where('codretencion', '=', subject.codretencion).executeTakeFirst()
    : undefined;
  values.irpf = Number(retention?.porcentaje ?? 0);
  return values;
}

export interface NewDocument {
  /** Header values: subject, serie, warehouse, currency, status ... (numbering fields are assigned here). */
  header: Values;
  /** Complete line values, without the link to the header. */
  lines: Values[];
  fecha: string;
  hora: string;
  /** The settings snapshot of the use case (taken before its transaction). */
  settings: Settings;
}

/**
 * Writes a new document in the caller's transaction: serie lock, fiscal year, number and code,
 * header, lines, their stock effects, totals and receipts. Shared by creation, generation from a
 * status and refunds. Returns the new id and the number of payments recorded.
 */
export async function insertDocument(ctx: AppContext, trx: DbExecutor, type: DocumentType, doc: NewDocument): Promise<{ id: number; payments: number }> {
  const { header } = doc;
  await lockSerie(trx, ctx.database.dialect, String(header.codserie));
  const codejercicio = await exerciseFor(trx, ctx.database.dialect, Number(header.idempresa), doc.fecha);
  const assigned = await assignNumber(trx, ctx.database.dialect, type, { codserie: String(header.codserie), idempresa: Number(header.idempresa), codejercicio, fecha: doc.fecha, hora: doc.hora });
  Object.assign(header, {
    fecha: assigned.fecha ?? doc.fecha,
    hora: assigned.hora ?? doc.hora,
    codejercicio,
    numero: String(assigned.numero),
    codigo: assigned.codigo,
    neto: 0, netosindto: 0, total: 0, totaleuros: 0, totalirpf: 0, totaliva: 0, totalrecargo: 0, totalsuplidos: 0,
    ...(type.side === 'sales' ? { totalcoste: 0, totalbeneficio: 0 } : {}),
    ...(type.invoice ? { pagada: false, vencida: false } : {}),
  });
  await checkInvoiceChronology(trx, ctx.database.dialect, type, { idempresa: Number(header.idempresa), codserie: String(header.codserie), codejercicio, numero: assigned.numero, fecha: String(header.fecha) });
  const { record } = await ctx.store.create(type.header, header, trx);
  const id = Number(record[type.key]);
  for (const [index, line] of doc.lines.entries()) {
    const { record: stored } = await ctx.store.create(type.line, { ...line, [type.key]: id }, trx);
    await moveStock(trx, ctx.database.dialect, { codalmacen: String(header.codalmacen), referencia: (stored.referencia as string | null) ?? null, before: undefined, after: { mode: Number(stored.actualizastock), cantidad: Number(stored.cantidad), servido: Number(stored.servido) }, line: `lineas[${index}]` });
  }
  return { id, payments: await recalculate(ctx, trx, type, id, doc.settings) };
}

/**
 * Creates a business document with its lines (the `crear<Doc>` endpoints): header defaults from
 * the settings, the customer/supplier and the warehouse, then `insertDocument`. One transaction:
 * everything or nothing, and a rolled back creation consumes no number.
 */
export async function createDocument(ctx: AppContext, type: DocumentType, input: DocumentInput): Promise<DocumentResult> {
  const subjectCode = input.header[type.subject];
  const settings = await ctx.settings();
  const today = ctx.clock.today();
  return inTransaction(ctx.database, async (trx) => {
    const subject = await trx.selectFrom(type.subjectTable).selectAll().where(type.subject, '=', subjectCode).executeTakeFirst();
    if (!subject) throw new AppError(type.side === 'sales' ? 'customer-not-found' : 'supplier-not-found');
    const header: Values = { ...(await subjectDefaults(trx, type, subject)), ...input.header };
    header.codserie ??= (subject.codserie as string | null) ?? settings.codserie;
    header.codalmacen ??= settings.codalmacen;
    const warehouse = await trx.selectFrom('almacenes').select(['idempresa']).where('codalmacen', '=', header.codalmacen).executeTakeFirst();
    if (!warehouse) throw new AppError('warehouse-not-found');
    header.idempresa = Number(warehouse.idempresa ?? settings.idempresa);
    header.codpago ??= (subject.codpago as string | null) ?? settings.codpago;
    header.coddivisa ??= settings.coddivisa;
    header.tasaconv = await conversionRate(trx, type, String(header.coddivisa));
    const status = await statusFor(trx, type, header.idestado);
    if (status.generadoc) throw validationError({ idestado: 'generates-document' });
    Object.assign(header, { idestado: status.idestado, editable: status.editable });

    const defaults = lineDefaults(settings, status.actualizastock, subject, header);
    const lines: Values[] = [];
    for (const [index, lineInput] of (input.lines ?? []).entries()) lines.push(await buildLine(trx, type, lineInput, defaults, index));
    const { id, payments: recorded } = await insertDocument(ctx, trx, type, { header, lines, fecha: input.fecha ?? today.date, hora: input.hora ?? today.time, settings });
    const paid = type.invoice && input.pagada
      ? await payInvoiceReceipts({ db: trx, dialect: ctx.database.dialect, type, invoice: (await headerOf(trx, type, id))!, decimals: settings.decimals, today }, true, today.date)
      : [];
    const payments = recorded + paid.length;
    const result = await documentResult(trx, type, id);
    afterCommit(trx, () => {
      ctx.events.emit('document.created', { type: type.name, doc: result.doc, lines: result.lines });
      for (const receipt of paid) ctx.events.emit('receipt.paid', { type: type.name, receipt, paid: true });
      if (payments) ctx.events.emit('payment.recorded', { type: type.name, idfactura: id, count: payments });
    });
    return result;
  });
}

/** Conversion rate of a currency: sales use `tasaconv`, purchases `tasaconvcompra` when set. */
export async function conversionRate(db: DbExecutor, type: DocumentType, coddivisa: string): Promise<number> {
  const currency = await db.selectFrom('divisas').select(['tasaconv', 'tasaconvcompra']).where('coddivisa', '=', coddivisa).executeTakeFirst();
  if (!currency) throw validationError({ coddivisa: 'not-found' });
  return Number(type.side === 'purchase' && currency.tasaconvcompra !== null ? currency.tasaconvcompra : currency.tasaconv);
}
