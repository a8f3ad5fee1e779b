import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { dec, roundNumber } from '../../models/round.ts';
import { entryRefusal, isBalanced, unbalanced, writeEntry, type NewEntryLine } from '../accounting/index.ts';
import { cuentaBancoModel } from '../finance/index.ts';
import { exerciseCovering, serieIn } from '../fiscal/index.ts';
import type { InvoiceSide } from '../payments/index.ts';
import { chartOfYear, chartView } from './chart.ts';
import { entryLine, type Account } from './entry-line.ts';
import { NotPosted } from './not-posted.ts';
import { subjectAccount } from './subject-account.ts';
import { textValue } from './text-value.ts';

type Row = Record<string, unknown>;

/** The Spanish chart's account for bank charges (626 Servicios bancarios y similares): a return fee's fallback. */
const BANK_SERVICES = '626';

const SIDES = {
  sales: { invoices: 'facturascli', subjects: 'clientes', subject: 'codcliente', name: 'nombrecliente', payments: 'pagoscli', verb: 'Cobro' },
  purchase: { invoices: 'facturasprov', subjects: 'proveedores', subject: 'codproveedor', name: 'nombre', payments: 'pagosprov', verb: 'Pago' },
} as const;


/**
 * Posts a payment movement (docs/accounting.md) in the exercise of its date and stores its
 * `idasiento`: a customer's payment credits the customer and debits the bank (less the fees, which
 * go to the bank's fee sub-account), a supplier's mirrors it without fees; a negative movement (a
 * receipt un-paid) gets the reversing entry. The bank is the sub-account of the bank account the
 * money moved through (`codcuenta`: a remittance's, a statement's), else of the payment method's,
 * else the first of BANCO, else of CAJA. Nothing when the year has no chart.
 */
export async function postPayment(ctx: AppContext, db: DbExecutor, side: InvoiceSide, payment: Row, receipt: Row, idempresa: number, decimals: number, codcuenta?: string): Promise<void> {
  const importe = Number(payment.importe ?? 0);
  if (importe === 0) return;
  const rules = SIDES[side];
  const { dialect } = ctx.database;
  const fecha = String(payment.fecha);
  const year = await exerciseCovering(db, idempresa, fecha);
  if (!year) throw new NotPosted('exercise-not-found', { fecha });
  if (!(await chartOfYear(db, year.codejercicio))) return;
  if (year.estado !== 'ABIERTO') throw new NotPosted('closed-exercise', { fecha });
  const invoice: Row = (await db.selectFrom(rules.invoices).select(['codigo', 'codserie', rules.name, rules.subject]).where('idfactura', '=', Number(receipt.idfactura)).executeTakeFirst()) ?? {};
  const subject = (await db.selectFrom(rules.subjects).selectAll().where(rules.subject, '=', String(invoice[rules.subject] ?? receipt[rules.subject])).executeTakeFirst()) ?? {};
  // The account the money moved through when the caller knows it (a remittance, a bank statement), else the payment method's.
  const bank = codcuenta
    ? await ctx.store.get(cuentaBancoModel, codcuenta, db, 'all')
    : textValue(payment.codpago)
      ? await db.selectFrom('formaspago as f').innerJoin('cuentasbanco as b', 'b.codcuenta', 'f.codcuentabanco')
        .select(['b.codsubcuenta', 'b.codsubcuentagasto']).where('f.codpago', '=', String(payment.codpago)).executeTakeFirst()
      : undefined;
  const bankServices = BANK_SERVICES.padEnd(year.longsubcuenta, '0');
  const chart = await chartView(db, year.codejercicio, year.longsubcuenta, ['BANCO', 'CAJA', 'GTOBAN'], [textValue(subject.codsubcuenta), textValue(bank?.codsubcuenta), textValue(bank?.codsubcuentagasto), bankServices]);
  const refusal = await entryRefusal(db, dialect, year.codejercicio, fecha);
  if (refusal) throw new NotPosted(refusal);
  const subjectSub = await subjectAccount(ctx, db, chart, side, subject);
  const { bank: bankSub, fees: feeSub } = bankAccounts(chart, payment, bank);
  // A return's fee is an expense: the account's fee sub-account, else the chart's bank charges (GTOBAN, else 626 Servicios bancarios).
  const returnFees = chart.byCode(textValue(bank?.codsubcuentagasto)) ?? chart.first('GTOBAN') ?? chart.byCode(bankServices);
  if (Number(payment.gastosdevolucion ?? 0) !== 0 && !returnFees) throw new NotPosted('bank-fee-account-not-found', { codcuenta: codcuenta ?? null });

  const { concepto, documento, lines } = paymentEntryLines({ side, importe, payment, receipt, invoice, subject: subjectSub, bank: bankSub, fees: feeSub, returnFees, decimals });
  const series = await serieIn(db, String(invoice.codserie ?? ''));
  const idasiento = await writeEntry(db, dialect, {
    codejercicio: year.codejercicio, idempresa, fecha, concepto, documento, importe, canal: series.canal, iddiario: null,
  }, lines);
  await db.updateTable(rules.payments).set({ idasiento }).where('idpago', '=', Number(payment.idpago)).execute();
}

/** The bank and fee sub-accounts a payment posts to: its method's bank account's, else the first of BANCO, else of CAJA; or NotPosted. */
export function bankAccounts(chart: { byCode(code: string | null): Account | undefined; first(role: string): Account | undefined }, payment: Row, bank: { codsubcuenta?: unknown; codsubcuentagasto?: unknown } | undefined): { bank: Account; fees: Account } {
  const bankSub = textValue(bank?.codsubcuenta) ? chart.byCode(textValue(bank?.codsubcuenta)) : (chart.first('BANCO') ?? chart.first('CAJA'));
  if (!bankSub) throw new NotPosted('payment-method-account-not-found', { codpago: payment.codpago ?? null });
  return { bank: bankSub, fees: chart.byCode(textValue(bank?.codsubcuentagasto)) ?? bankSub };
}

/**
 * A payment movement's entry lines (pure): a customer's payment credits the customer and debits
 * the bank (less the fees, which go to the fee sub-account); a supplier's mirrors it without fees;
 * a negative movement reverses. Balanced, or the operation is refused (a fault).
 */
export function paymentEntryLines(args: {
  side: InvoiceSide; importe: number; payment: Row; receipt: Row; invoice: Row; subject: Account; bank: Account; fees: Account; returnFees?: Account; decimals: number;
}): { concepto: string; documento: string | null; lines: NewEntryLine[] } {
  const { side, importe, payment, receipt, invoice, decimals } = args;
  const { concepto, documento, codigo } = paymentText(side, importe, receipt, invoice);
  const text2 = { concepto, documento };
  // The fees follow the movement: a reversal takes them back from the fee account too.
  const fees = side === 'sales' ? Math.sign(importe) * Math.abs(Number(payment.gastos ?? 0)) : 0;
  // A direct debit returned by the bank: the bank also takes its fee for the return, an expense.
  const returnFee = side === 'sales' && importe < 0 ? Math.abs(Number(payment.gastosdevolucion ?? 0)) : 0;
  const lines = side === 'sales'
    ? [
      entryLine(args.subject, importe, 'H', decimals, text2),
      entryLine(args.bank, roundNumber(dec(importe).minus(fees).minus(returnFee), decimals), 'D', decimals, text2),
      ...(fees !== 0 ? [entryLine(args.fees, fees, 'D', decimals, { concepto: `Gastos en el recibo ${codigo}`, documento })] : []),
      ...(returnFee !== 0 ? [entryLine(args.returnFees ?? args.fees, returnFee, 'D', decimals, { concepto: `Gastos de devolución del recibo ${codigo}`, documento })] : []),
    ]
    : [entryLine(args.subject, importe, 'D', decimals, text2), entryLine(args.bank, importe, 'H', decimals, text2)];
  if (!isBalanced(lines, decimals)) throw unbalanced('payment', Number(payment.idpago ?? 0), lines);
  return { concepto, documento, lines };
}

/** A payment movement's entry's concept and document: the receipt it moves, of which invoice, whose. */
export function paymentText(side: InvoiceSide, importe: number, receipt: Row, invoice: Row): { concepto: string; documento: string | null; codigo: string } {
  const rules = SIDES[side];
  const codigo = String(invoice.codigo ?? receipt.codigofactura ?? '');
  const verb = importe < 0 ? 'Devolución' : rules.verb;
  const concepto = `${verb} del recibo ${codigo}-${receipt.numero ?? 1} - ${String(invoice[rules.name] ?? '')}`.slice(0, 255);
  return { concepto, documento: codigo || null, codigo };
}
