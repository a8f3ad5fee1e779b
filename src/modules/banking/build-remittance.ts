import type { AppContext, RecordWriter } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, validationError } from '../../errors.ts';
import { readInput } from '../../models/read-input.ts';
import { compactIban, isIban, isSwift, textOf } from '../../models/record-rules.ts';
import type { Values } from '../../models/define-model.ts';
import { companyOf } from '../company/index.ts';
import { cuentaBancoModel } from '../finance/index.ts';
import { creditorIdentifier } from './creditor-id.ts';
import { remittanceModel, remittanceReceiptModel } from './remittance-models.ts';
import { sepaIdentifier, sepaText } from './sepa-text.ts';

type Row = Record<string, unknown>;

/** A receipt left out of a remittance, and why (it is listed, never dropped silently). */
export interface Excluded {
  idrecibo: number;
  codcliente: string;
  motivo: 'no-bank-account' | 'invalid-iban' | 'no-mandate' | 'not-euro' | 'invalid-amount';
}


/** The company bank account collecting, checked: it exists, has a valid IBAN, and its company a tax id for the creditor identifier. */
async function collectingAccount(ctx: AppContext, db: DbExecutor, codcuenta: string, defaultCompany: number): Promise<{ idempresa: number; identifier: string }> {
  const account = await ctx.store.get(cuentaBancoModel, codcuenta, db, 'all');
  if (!account) throw validationError({ codcuenta: 'not-found' });
  if (!account.iban || !isIban(String(account.iban))) throw validationError({ codcuenta: 'invalid-iban' });
  const idempresa = account.idempresa === null || account.idempresa === undefined ? defaultCompany : Number(account.idempresa);
  const company = await companyOf(db, idempresa);
  const taxId = textOf(company?.cifnif).replace(/[\s.-]+/g, '');
  if (!company || !/^[A-Z0-9]{5,28}$/i.test(taxId)) throw validationError({ codcuenta: 'company-without-tax-id' });
  return { idempresa, identifier: creditorIdentifier(textOf(company.codpais) === 'ESP' || !company.codpais ? 'ES' : textOf(company.codpais).slice(0, 2), taxId, textOf(account.sufijosepa) || '000') };
}

/**
 * The unpaid customer receipts a remittance into `codcuenta` gathers: of direct-debit payment
 * methods (`domiciliado`) that collect into this account or name none, of its company, due by
 * `hasta`, in no other remittance; each with its customer's main bank account.
 */
function candidates(db: DbExecutor, dialect: SqlDialect, codcuenta: string, idempresa: number, hasta: string) {
  return db.selectFrom('recibospagoscli as r')
    .innerJoin('formaspago as f', 'f.codpago', 'r.codpago')
    .innerJoin('clientes as c', 'c.codcliente', 'r.codcliente')
    .leftJoin('cuentasbcocli as b', (join) => join.onRef('b.codcliente', '=', 'r.codcliente').on('b.principal', '=', dialect.boolean(true) as never))
    .leftJoin('remesassepa_recibos as x', (join) => join.onRef('x.idrecibo', '=', 'r.idrecibo').on('x.vigente', '=', dialect.boolean(true) as never))
    .select(['r.idrecibo', 'r.codcliente', 'r.importe', 'r.vencimiento', 'r.numero', 'r.codigofactura', 'r.coddivisa', 'c.nombre', 'c.razonsocial', 'b.iban', 'b.swift', 'b.mandato', 'b.fmandato'])
    .where('f.domiciliado', '=', dialect.boolean(true) as never).where('r.pagado', '=', dialect.boolean(false) as never).where('r.idempresa', '=', idempresa)
    .where('r.vencimiento', '<=', hasta).where('x.idrecibo', 'is', null)
    .where((eb) => eb.or([eb('f.codcuentabanco', '=', codcuenta), eb('f.codcuentabanco', 'is', null)]))
    .orderBy('r.vencimiento').orderBy('r.idrecibo');
}

/** A receipt's collection as the remittance keeps it, or why it cannot be collected. */
function collectionOf(receipt: Row, usedMandates: Set<string>): Values | Excluded['motivo'] {
  if (textOf(receipt.coddivisa || 'EUR') !== 'EUR') return 'not-euro';
  const importe = Number(receipt.importe);
  if (!(importe >= 0.01 && importe <= 999_999_999.99)) return 'invalid-amount';
  if (!receipt.iban) return 'no-bank-account';
  if (!isIban(textOf(receipt.iban))) return 'invalid-iban';
  const mandato = sepaIdentifier(textOf(receipt.mandato), 35, '');
  if (!mandato || !receipt.fmandato) return 'no-mandate';
  const invoice = textOf(receipt.codigofactura);
  return {
    idrecibo: Number(receipt.idrecibo), codcliente: textOf(receipt.codcliente), nombre: sepaText(textOf(receipt.razonsocial) || textOf(receipt.nombre), 70),
    importe: Math.round(importe * 100) / 100, vencimiento: textOf(receipt.vencimiento), iban: compactIban(textOf(receipt.iban)),
    bic: receipt.swift && isSwift(textOf(receipt.swift)) ? textOf(receipt.swift).trim().toUpperCase() : null,
    mandato, fmandato: textOf(receipt.fmandato),
    // The mandate's first collection is FRST; a later one RCUR (allowed for the first too since
    // the 2016 rulebook; FRST kept for the banks that still expect it).
    secuencia: usedMandates.has(mandato) ? 'RCUR' : 'FRST',
    endtoend: sepaIdentifier(`${invoice || 'R'}-${textOf(receipt.numero) || receipt.idrecibo}`),
    concepto: sepaText(`Factura ${invoice} recibo ${textOf(receipt.numero)}`, 140),
  };
}

/**
 * `POST /api/3/remesasepa`: gathers the receipts, leaves out (and lists) those that cannot be
 * collected, and writes the remittance with its receipts in one transaction. Answers the
 * remittance with `recibos` and `excluidos`; a remittance with no receipt is 422 `no-receipts`.
 */
export async function buildRemittance(ctx: AppContext, body: unknown, source: 'json' | 'form'): Promise<Row> {
  const values = readInput(remittanceModel, body, source, 'create');
  for (const field of ['codcuenta', 'fechacargo']) if (values[field] === undefined || values[field] === null || values[field] === '') throw validationError({ [field]: 'required' });
  const hasta = textOf(values.vencimientohasta ?? values.fechacargo);
  if (hasta > textOf(values.fechacargo) && values.vencimientohasta !== undefined) {
    // Receipts due after the collection date would be collected before they are due.
    throw validationError({ vencimientohasta: 'after-collection-date' });
  }
  const db = ctx.database.kysely;
  const { idempresa, identifier } = await collectingAccount(ctx, db, textOf(values.codcuenta), (await ctx.settings()).idempresa);
  return inTransaction(ctx.database, async (trx) => {
    const found = await candidates(trx, ctx.database.dialect, textOf(values.codcuenta), idempresa, hasta).execute();
    const mandates = found.map((receipt) => textOf(receipt.mandato)).filter(Boolean);
    const used = new Set(mandates.length ? (await trx.selectFrom('remesassepa_recibos').select('mandato').distinct().where('mandato', 'in', mandates).execute()).map((row) => textOf(row.mandato)) : []);
    const included: Values[] = [];
    const excluidos: Excluded[] = [];
    for (const receipt of found) {
      const collection = collectionOf(receipt, used);
      if (typeof collection === 'string') excluidos.push({ idrecibo: Number(receipt.idrecibo), codcliente: textOf(receipt.codcliente), motivo: collection });
      else {
        included.push(collection);
        used.add(textOf(collection.mandato));
      }
    }
    if (!included.length) throw new AppError('validation-failed', { fields: { vencimientohasta: 'no-receipts' }, excluidos });
    const total = Math.round(included.reduce((sum, row) => sum + Number(row.importe) * 100, 0)) / 100;
    const { record } = await ctx.store.create(remittanceModel, { ...values, vencimientohasta: hasta, idempresa, identificador: identifier, total, numrecibos: included.length }, trx);
    await ctx.store.insertMany(remittanceReceiptModel, included.map((row) => ({ ...row, idremesa: record.idremesa })), trx);
    const recibos = await trx.selectFrom('remesassepa_recibos').selectAll().where('idremesa', '=', Number(record.idremesa)).orderBy('id').execute();
    return { ...record, recibos, excluidos };
  });
}

/** The remittance resource's writes: creation builds it; changes follow its states (docs/banking.md). */
export function remittanceWriter(ctx: AppContext): RecordWriter {
  return {
    create: (body, source) => buildRemittance(ctx, body, source),
    async update(id, body, source) {
      const values = readInput(remittanceModel, body, source, 'update', id);
      const existing = await ctx.store.get(remittanceModel, id);
      if (!existing) throw new AppError('record-not-found');
      // Once its file was made, what it collects and from where no longer changes: only its state and description.
      const frozen = Object.keys(values).find((name) => !['estado', 'descripcion'].includes(name));
      if (frozen && existing.estado !== 'borrador') throw validationError({ [frozen]: 'read-only' });
      // Collected: its receipts were paid from it; returns go receipt by receipt (devolverReciboRemesa).
      if (values.estado !== undefined && existing.estado === 'cobrada' && values.estado !== 'cobrada') throw validationError({ estado: 'collected' });
      if (values.estado === 'cobrada') throw validationError({ estado: 'use-cobrarRemesa' });
      return ctx.store.update(remittanceModel, id, values);
    },
    async remove(id) {
      const existing = await ctx.store.get(remittanceModel, id);
      if (existing && existing.estado !== 'borrador' && existing.estado !== 'generada') throw validationError({ estado: 'sent-remittance' });
      return ctx.store.remove(remittanceModel, id);
    },
  };
}
