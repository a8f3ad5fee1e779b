import type { AppContext, RecordWriter } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { rowReader } from '../../db/row-codec.ts';
import { inTransaction } from '../../db/transaction.ts';
import { AppError, validationError } from '../../errors.ts';
import type { Model, Values } from '../../models/define-model.ts';
import { readInput } from '../../models/read-input.ts';
import { compactIban, isIban, isSwift, textOf } from '../../models/record-rules.ts';
import { companyOf } from '../company/index.ts';
import { cuentaBancoModel } from '../finance/index.ts';
import { sepaIdentifier, sepaText } from './sepa-text.ts';

/**
 * What direct-debit remittances and transfer orders share (docs/banking.md): the company bank
 * account they go through, the receipts' common checks, the header with its rows written at once,
 * and the states their resource follows.
 */

type Row = Record<string, unknown>;

/** Why a receipt was left out of a batch (it is listed, never dropped silently). */
export type ExclusionReason = 'no-bank-account' | 'invalid-iban' | 'no-mandate' | 'not-euro' | 'invalid-amount';

export interface Excluded {
  idrecibo: number;
  /** The customer's (remittances) or supplier's (transfers) code. */
  codcliente?: string;
  codproveedor?: string;
  motivo: ExclusionReason;
}

/** The company bank account a batch goes through, checked: it exists and has a valid IBAN; with its company. */
export async function companyAccount(ctx: AppContext, db: DbExecutor, codcuenta: string): Promise<{ account: Row; company: Row; idempresa: number }> {
  const account = await ctx.store.get(cuentaBancoModel, codcuenta, db, 'all');
  if (!account) throw validationError({ codcuenta: 'not-found' });
  if (!account.iban || !isIban(String(account.iban))) throw validationError({ codcuenta: 'invalid-iban' });
  const idempresa = account.idempresa === null || account.idempresa === undefined ? (await ctx.settings()).idempresa : Number(account.idempresa);
  const company = await companyOf(db, idempresa);
  if (!company) throw validationError({ codcuenta: 'not-found' });
  return { account, company, idempresa };
}

/**
 * A batch's input (`readInput` of its model): the required members present, and the last due
 * date gathered (`vencimientohasta`, default the batch's own date `dateField`) not after it: later
 * receipts would be settled before they are due.
 */
export function batchInput(model: Model, body: unknown, source: 'json' | 'form', dateField: string): { values: Values; hasta: string } {
  const values = readInput(model, body, source, 'create');
  for (const field of ['codcuenta', dateField]) if (values[field] === undefined || values[field] === null || values[field] === '') throw validationError({ [field]: 'required' });
  const hasta = textOf(values.vencimientohasta ?? values[dateField]);
  if (values.vencimientohasta !== undefined && hasta > textOf(values[dateField])) throw validationError({ vencimientohasta: `after-${dateField === 'fechacargo' ? 'collection' : 'execution'}-date` });
  return { values, hasta };
}

/** A receipt's payment as a batch keeps it (amount, account, bank, references), or why it cannot be made. */
export function paymentOf(receipt: Row, name: string): Values | ExclusionReason {
  if (textOf(receipt.coddivisa || 'EUR') !== 'EUR') return 'not-euro';
  const importe = Number(receipt.importe);
  // SEPA moves 0.01 to 999,999,999.99 EUR.
  if (!(importe >= 0.01 && importe <= 999_999_999.99)) return 'invalid-amount';
  if (!receipt.iban) return 'no-bank-account';
  if (!isIban(textOf(receipt.iban))) return 'invalid-iban';
  const invoice = textOf(receipt.codigofactura);
  return {
    idrecibo: Number(receipt.idrecibo), nombre: sepaText(name, 70),
    importe: Math.round(importe * 100) / 100, vencimiento: textOf(receipt.vencimiento), iban: compactIban(textOf(receipt.iban)),
    bic: receipt.swift && isSwift(textOf(receipt.swift)) ? textOf(receipt.swift).replace(/\s+/g, '').toUpperCase() : null,
    endtoend: sepaIdentifier(`${invoice || 'R'}-${textOf(receipt.numero) || receipt.idrecibo}`),
    concepto: sepaText(`Factura ${invoice} recibo ${textOf(receipt.numero)}`, 140),
  };
}

/**
 * Writes a batch's header and rows (in the caller's transaction) and answers the header with
 * `recibos` (its rows) and `excluidos`; none included is 422 `vencimientohasta: no-receipts`.
 */
export async function storeBatch(
  ctx: AppContext, trx: DbExecutor, models: { header: Model; rows: Model }, header: Values, included: Values[], excluidos: Excluded[],
): Promise<Row> {
  if (!included.length) throw new AppError('validation-failed', { fields: { vencimientohasta: 'no-receipts' }, excluidos });
  const total = included.reduce((sum, row) => sum + Math.round(Number(row.importe) * 100), 0) / 100;
  const { record } = await ctx.store.create(models.header, { ...header, total, numrecibos: included.length }, trx);
  const key = models.header.primaryKey;
  await ctx.store.insertMany(models.rows, included.map((row) => ({ ...row, [key]: record[key] })), trx);
  return { ...record, recibos: await batchRows(trx, models.rows, key, Number(record[key])), excluidos };
}

/** A batch's rows, in the order it was built, typed as their model declares them. */
export async function batchRows(db: DbExecutor, rows: Model, key: string, id: number): Promise<Row[]> {
  return (await db.selectFrom(rows.table).selectAll().where(key, '=', id).orderBy('id').execute()).map(rowReader(rows));
}

/**
 * A batch resource's writes: creation builds it; once past `borrador` only `estado` and
 * `descripcion` change; its final state (`finalState`) is set by its operation (`operation`) and
 * then kept; a batch sent to the bank is not deleted.
 */
export function batchWriter(ctx: AppContext, model: Model, build: (body: unknown, source: 'json' | 'form') => Promise<Row>, finalState: string, operation: string): RecordWriter {
  return {
    create: (body, source) => build(body, source),
    async update(id, body, source, options) {
      const values = readInput(model, body, source, 'update', id, options);
      // Read locked: a settling operation claims the state; a change decided on an older state would undo it.
      return inTransaction(ctx.database, async (trx) => {
        const existing = await ctx.store.get(model, id, trx, 'all', true);
        if (!existing) throw new AppError('record-not-found');
        // Once its file was made, what it moves and from where no longer changes.
        const frozen = Object.keys(values).find((name) => !['estado', 'descripcion'].includes(name));
        if (frozen && existing.estado !== 'borrador') throw validationError({ [frozen]: 'read-only' });
        if (values.estado === finalState) throw validationError({ estado: `use-${operation}` });
        if (values.estado !== undefined && existing.estado === finalState) throw validationError({ estado: finalState === 'cobrada' ? 'collected' : 'paid' });
        return ctx.store.update(model, id, values, trx);
      });
    },
    remove: (id) => inTransaction(ctx.database, async (trx) => {
      const existing = await ctx.store.get(model, id, trx, 'all', true);
      if (existing && existing.estado !== 'borrador' && existing.estado !== 'generada') throw validationError({ estado: 'sent' });
      return ctx.store.remove(model, id, trx);
    }),
  };
}
