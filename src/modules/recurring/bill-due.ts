import { dbBoolean } from '../../db/row-codec.ts';
import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { inTransaction } from '../../db/transaction.ts';
import { isUniqueViolation } from '../../db/translate-error.ts';
import { publish } from '../../event-log.ts';
import { AppError, CodedFailure, validationError } from '../../errors.ts';
import { productsForLines } from '../catalogue/index.ts';
import { customerOf } from '../customers/index.ts';
import { createDocument, documentType, readDocumentInput, type DocumentInput } from '../documents/index.ts';
import { asInvoiceOf } from './billing-part.ts';
import { recurringInvoiceModel } from './recurring-models.ts';
import { recurringInvoiceIssued } from './recurring-hooks.ts';
import { changedMirror, templateState, type TemplateState } from './template-state.ts';

type Row = Record<string, unknown>;

/** What a run did: the invoices it created and the periods it could not bill. */
export interface BillingReport {
  created: Array<{ idrecurrente: number; periodo: number; desde: string; idfactura: number; codigo: string }>;
  failed: Array<{ idrecurrente: number; periodo: number; desde: string; code: string; detail: Record<string, unknown> }>;
}

const INVOICE = documentType('FacturaCliente');

/** A period that cannot be billed as things stand: the template keeps why. */
class Refused extends CodedFailure {}

/**
 * The refusal of a template without lines, alike in its preview and its billing: an invoice of
 * nothing is no invoice, and the client's fix is the template's `lineas`.
 */
export const noLines = (): AppError => validationError({ lineas: 'required' });

/** The lines of a template in their order. */
export const templateLines = (db: DbExecutor, idrecurrente: number): Promise<Row[]> =>
  db.selectFrom('lineasfacturasrecurrentes').selectAll().where('idrecurrente', '=', idrecurrente).orderBy('orden').orderBy('idlinea').execute();

/**
 * The invoice of one period, as `crearFacturaCliente` would be asked for it: the template's
 * header, its lines (a product's price of the day where the line gives none), dated `fecha`, the
 * period it covers in its notes.
 */
export function invoiceInput(template: Row, lines: Row[], state: Pick<TemplateState, 'desde' | 'hasta'>, fecha: string, hora?: string): DocumentInput {
  const given = (value: unknown) => value !== null && value !== undefined && value !== '';
  const notes = [template.observaciones, `Periodo facturado: ${state.desde} - ${state.hasta}`].filter(given).join('\n');
  const body: Row = {
    codcliente: template.codcliente, fecha, ...(hora ? { hora } : {}), observaciones: notes,
    ...Object.fromEntries(['codserie', 'codpago', 'coddivisa', 'codalmacen'].filter((key) => given(template[key])).map((key) => [key, template[key]])),
    ...(dbBoolean(template.pagada) ? { pagada: true } : {}),
    lineas: lines.map((line) => Object.fromEntries(['referencia', 'descripcion', 'cantidad', 'pvpunitario', 'dtopor', 'dtopor2', 'codimpuesto']
      .filter((key) => given(line[key])).map((key) => [key, line[key]]))),
  };
  return readDocumentInput(INVOICE, body, 'json', false);
}

/** What the documents would not refuse but a recurring invoice must: no lines, a customer dropped, a product gone. */
async function refusals(db: DbExecutor, template: Row, lines: Row[]): Promise<Refused | AppError | undefined> {
  if (!lines.length) return noLines();
  const customer = await customerOf(db, String(template.codcliente));
  if (!customer) return new Refused('customer-not-found', { codcliente: template.codcliente });
  if (dbBoolean(customer.debaja)) return new Refused('customer-blocked', { codcliente: template.codcliente });
  const codes = lines.map((line) => line.referencia).filter((code): code is string => typeof code === 'string' && code !== '');
  const found = await productsForLines(db, codes);
  const gone = codes.find((code) => !found.has(code));
  return gone ? new Refused('product-not-found', { referencia: gone }) : undefined;
}

/**
 * Records a failure on the template and, when it is news (another period or code: not merely
 * other details, such as a risk that moved), logs `recurring.failed`.
 */
async function recordFailure(ctx: AppContext, template: Row, state: TemplateState, code: string, detail: Record<string, unknown>): Promise<void> {
  const known = `${state.desde}: ${code}`;
  const reason = `${known}${Object.keys(detail).length ? ` ${JSON.stringify(detail)}` : ''}`.slice(0, 500);
  if (reason === template.ultimoerror) return;
  const news = !(String(template.ultimoerror ?? '') === known || String(template.ultimoerror ?? '').startsWith(`${known} `));
  await inTransaction(ctx.database, async (db) => {
    await db.updateTable('facturasrecurrentes').set({ ultimoerror: reason }).where('idrecurrente', '=', Number(template.idrecurrente)).execute();
    if (news) await publish(db, ctx, {
      type: 'recurring.failed', payload: { idrecurrente: Number(template.idrecurrente), periodo: state.next, desde: state.desde, code, detail },
      resource: recurringInvoiceModel.resource, key: template.idrecurrente,
    });
  });
  template.ultimoerror = reason;
}

/**
 * Bills one template's due periods in order, each dated today (invoice numbers stay in date
 * order) and naming its period. A period that cannot be billed stops the template there (the
 * error kept, later periods wait); one billed meanwhile by another instance is passed over.
 */
async function billTemplate(ctx: AppContext, id: number, report: BillingReport): Promise<void> {
  const db = ctx.database.kysely;
  const lines = await templateLines(db, id);
  // What would refuse every period of this run (its customer, its products), read once per run.
  let blocked: Refused | AppError | undefined;
  let collided: number | undefined;
  for (let round = 0; ; round++) {
    // Read again each period: a pause (or a resume's new start) made during the run holds it there.
    const template = await db.selectFrom('facturasrecurrentes').selectAll().where('idrecurrente', '=', id).executeTakeFirst();
    if (!template || template.estado !== 'activa') return;
    const state = await templateState(db, template);
    const mirror = changedMirror(template, state);
    if (mirror) await db.updateTable('facturasrecurrentes').set(mirror).where('idrecurrente', '=', id).execute();
    // The day of each invoice when it is made: a run that crosses midnight dates the next ones on the new day.
    const today = ctx.clock.today();
    if (state.finished || state.desde > today.date) return;
    if (round === 0) blocked = await refusals(db, template, lines);
    const sends = dbBoolean(template.enviaremail);
    try {
      if (blocked) throw blocked;
      const created = await asInvoiceOf({ idrecurrente: id, periodo: state.next, desde: state.desde, hasta: state.hasta, sends },
        () => createDocument(ctx, INVOICE, invoiceInput(template, lines, state, today.date, today.time)));
      report.created.push({ idrecurrente: id, periodo: state.next, desde: state.desde, idfactura: Number(created.doc.idfactura), codigo: String(created.doc.codigo) });
      if (template.ultimoerror) await db.updateTable('facturasrecurrentes').set({ ultimoerror: null }).where('idrecurrente', '=', id).execute();
    } catch (error) {
      // Another instance billed this period first: its row collided with ours and we wrote nothing.
      // Tried once more: a collision that does not move the template on is no rival, but a failure.
      if ((isUniqueViolation(error) || (error instanceof AppError && error.code === 'duplicate-record')) && collided !== state.next) {
        collided = state.next;
        continue;
      }
      const code = error instanceof Refused || error instanceof AppError ? error.code : 'internal-error';
      const detail = error instanceof Refused ? error.detail : error instanceof AppError ? (error.details ?? {}) : { message: String((error as Error).message ?? error) };
      if (code === 'internal-error') ctx.log.error({ err: error, idrecurrente: id }, 'a recurring invoice could not be billed');
      await recordFailure(ctx, template, state, code, detail);
      report.failed.push({ idrecurrente: id, periodo: state.next, desde: state.desde, code, detail });
      return;
    }
  }
}

/**
 * The e-mails of billed periods not yet queued (a run that died between the invoice and its
 * message, or this run's own): each queued once through the `recurringInvoiceIssued` hook point,
 * its mark changed in the message's own transaction. Without a module listening nothing happens.
 */
async function queueEmails(ctx: AppContext, only?: number): Promise<void> {
  const db = ctx.database.kysely;
  let query = db.selectFrom('facturasrecurrentes_periodos').select(['id', 'idfactura']).where('correo', '=', 'pendiente').where('idfactura', 'is not', null);
  if (only !== undefined) query = query.where('idrecurrente', '=', only);
  for (const period of await query.orderBy('id').limit(500).execute()) {
    const claim = async (trx: DbExecutor) =>
      Number((await trx.updateTable('facturasrecurrentes_periodos').set({ correo: 'encolado' }).where('id', '=', Number(period.id)).where('correo', '=', 'pendiente').executeTakeFirst()).numUpdatedRows) === 1;
    try {
      await ctx.hooks.run(recurringInvoiceIssued, { ctx, type: INVOICE, idfactura: Number(period.idfactura), claim });
    } catch (error) {
      const reason = error instanceof AppError ? Object.values((error.details?.fields as Record<string, string> | undefined) ?? {})[0] ?? error.code : 'internal-error';
      if (!(error instanceof AppError)) ctx.log.error({ err: error, period: period.id }, 'a recurring invoice\'s e-mail could not be queued');
      await db.updateTable('facturasrecurrentes_periodos').set({ correo: String(reason).slice(0, 100) }).where('id', '=', Number(period.id)).where('correo', '=', 'pendiente').execute();
    }
  }
}

/** The billing job (and `generarFacturasRecurrentes`): every active template's due periods, then their e-mails. */
export async function billDue(ctx: AppContext, only?: number): Promise<BillingReport> {
  const report: BillingReport = { created: [], failed: [] };
  let query = ctx.database.kysely.selectFrom('facturasrecurrentes').where('estado', '=', 'activa');
  if (only !== undefined) query = query.where('idrecurrente', '=', only);
  for (const { idrecurrente } of await query.select('idrecurrente').orderBy('idrecurrente').execute()) await billTemplate(ctx, Number(idrecurrente), report);
  await queueEmails(ctx, only);
  return report;
}
