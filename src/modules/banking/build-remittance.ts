import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import type { SqlDialect } from '../../db/dialect.ts';
import { inTransaction } from '../../db/transaction.ts';
import { validationError } from '../../errors.ts';
import type { Values } from '../../models/define-model.ts';
import { textOf } from '../../models/record-rules.ts';
import { paisModel } from '../geography/index.ts';
import { creditorIdentifier } from './creditor-id.ts';
import { remittanceModel, remittanceReceiptModel } from './remittance-models.ts';
import { batchInput, companyAccount, paymentOf, storeBatch, type ExclusionReason, type Excluded } from './sepa-batch.ts';
import { sepaIdentifier } from './sepa-text.ts';

type Row = Record<string, unknown>;

/**
 * The unpaid customer receipts a remittance into `codcuenta` gathers: of direct-debit payment
 * methods (`domiciliado`) that collect into this account or name none, of its company, due by
 * `hasta`, standing in no other remittance; each with its customer's main bank account.
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

/** A receipt's collection as the remittance keeps it (its payment, the mandate and sequence type), or why it cannot be collected. */
function collectionOf(receipt: Row, usedMandates: Set<string>): Values | ExclusionReason {
  const payment = paymentOf(receipt, textOf(receipt.razonsocial) || textOf(receipt.nombre));
  if (typeof payment === 'string') return payment;
  const mandato = sepaIdentifier(textOf(receipt.mandato), 35, '');
  if (!mandato || !receipt.fmandato) return 'no-mandate';
  return {
    ...payment, codcliente: textOf(receipt.codcliente), mandato, fmandato: textOf(receipt.fmandato),
    // The mandate's first collection is FRST; a later one RCUR (allowed for the first too since
    // the 2016 rulebook; FRST kept for the banks that still expect it).
    secuencia: usedMandates.has(mandato) ? 'RCUR' : 'FRST',
  };
}

/**
 * `POST /api/3/remesasepa`: gathers the receipts, leaves out (and lists) those that cannot be
 * collected, and writes the remittance with its receipts in one transaction. Answers the
 * remittance with `recibos` and `excluidos`; a remittance with no receipt is 422 `no-receipts`.
 */
export async function buildRemittance(ctx: AppContext, body: unknown, source: 'json' | 'form'): Promise<Row> {
  const { values, hasta } = batchInput(remittanceModel, body, source, 'fechacargo');
  const { account, company, idempresa } = await companyAccount(ctx, ctx.database.kysely, textOf(values.codcuenta));
  const taxId = textOf(company.cifnif).replace(/[\s.-]+/g, '');
  if (!/^[A-Z0-9]{5,28}$/i.test(taxId)) throw validationError({ codcuenta: 'company-without-tax-id' });
  // The creditor identifier's country is ISO alpha-2; companies name theirs by the alpha-3 code.
  const country = company.codpais
    ? textOf((await ctx.store.get(paisModel, textOf(company.codpais)))?.codiso) || 'ES'
    : 'ES';
  const identificador = creditorIdentifier(country, taxId, textOf(account.sufijosepa) || '000');
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
    return storeBatch(ctx, trx, { header: remittanceModel, rows: remittanceReceiptModel }, { ...values, vencimientohasta: hasta, idempresa, identificador }, included, excluidos);
  });
}
