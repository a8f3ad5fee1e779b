import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { dec } from '../../models/round.ts';
import { entryRefusal, isBalanced, unbalanced, writeEntry } from '../accounting/index.ts';
import { SELF_ASSESSED, storedBreakdown, type DocumentReference, type DocumentType, type Row } from '../documents/index.ts';
import { serieIn } from '../fiscal/index.ts';
import { chartOfYear, chartView, type ChartView } from './chart.ts';
import type { Account } from './entry-line.ts';
import { goodsByAccount, invoiceEntryLines, type VatGroup } from './invoice-entry.ts';
import { NotPosted } from './not-posted.ts';
import { subjectAccount } from './subject-account.ts';
import { textValue } from './text-value.ts';

/** What each side posts to: its sub-account fields and the roles it falls back on. */
const SIDES = {
  sales: {
    subjects: 'clientes', vat: 'codsubcuentarep', surcharge: 'codsubcuentarepre', goods: 'codsubcuentaven', retention: 'codsubcuentaret',
    roles: { vat: 'IVAREP', surcharge: 'IVARRE', goods: 'VENTAS', returns: 'DEVVEN', irpf: 'IRPF' },
    notFound: { vat: 'ivarep-subaccount-not-found', goods: 'sales-subaccount-not-found' },
  },
  purchase: {
    subjects: 'proveedores', vat: 'codsubcuentasop', surcharge: 'codsubcuentasopre', goods: 'codsubcuentacom', retention: 'codsubcuentaacr',
    roles: { vat: 'IVASOP', surcharge: 'IVASOP', goods: 'COMPRA', returns: 'DEVCOM', irpf: 'IRPFPR' },
    notFound: { vat: 'ivasop-account-not-found', goods: 'purchases-subaccount-not-found' },
  },
} as const;

const INTRA_ROLES = { input: 'IVASUE', output: 'IVARUE' } as const;

/** The sub-account codes products (and their families, walking up) give the lines, by product id. */
async function goodsCodes(db: DbExecutor, field: string, lines: Row[]): Promise<Map<number, string>> {
  const ids = [...new Set(lines.map((line) => line.idproducto).filter((id) => id !== null && id !== undefined).map(Number))];
  const codes = new Map<number, string>();
  if (!ids.length) return codes;
  const products = await db.selectFrom('productos').select(['idproducto', 'codfamilia', field]).where('idproducto', 'in', ids).execute();
  const waiting = new Map<number, string>();
  for (const product of products) {
    const own = textValue(product[field]);
    if (own) codes.set(Number(product.idproducto), own);
    else if (textValue(product.codfamilia)) waiting.set(Number(product.idproducto), String(product.codfamilia));
  }
  // Families, one level of the tree per read (a tree made circular by hand stops after ten).
  const families = new Map<string, { code: string | null; madre: string | null }>();
  for (let depth = 0; depth < 10 && waiting.size; depth++) {
    const unknown = [...new Set(waiting.values())].filter((code) => !families.has(code));
    if (unknown.length) {
      for (const row of await db.selectFrom('familias').select(['codfamilia', 'madre', field]).where('codfamilia', 'in', unknown).execute()) {
        families.set(String(row.codfamilia), { code: textValue(row[field]), madre: textValue(row.madre) });
      }
    }
    for (const [id, codfamilia] of waiting) {
      const family = families.get(codfamilia);
      if (family?.code) codes.set(id, family.code);
      if (family?.code || !family?.madre) waiting.delete(id);
      else waiting.set(id, family.madre);
    }
  }
  return codes;
}

const required = (account: Account | undefined, code: string, detail: Record<string, unknown>): Account => {
  if (!account) throw new NotPosted(code, detail);
  return account;
};

/**
 * Posts an invoice's entry (docs/accounting.md) in the caller's transaction and stores its
 * `idasiento`: nothing for a zero total or a year without chart; a `NotPosted` when something the
 * entry needs is missing (thrown before anything of it is written, but the subject's new
 * sub-account, which stays, as in the reference). An entry that would not balance refuses the
 * whole operation: it can only come from a fault, and the books must never hold one.
 */
export async function postInvoice(ctx: AppContext, db: DbExecutor, ref: DocumentReference, type: DocumentType, invoice: Row, lines: Row[]): Promise<void> {
  const total = Number(invoice.total ?? 0);
  if (total === 0) return;
  const { dialect } = ctx.database;
  const rules = SIDES[type.side];
  const decimals = ref.settings.decimals;
  const codejercicio = String(invoice.codejercicio);
  const year = await chartOfYear(db, codejercicio);
  if (!year) return;
  const subject = (await db.selectFrom(rules.subjects).selectAll().where(type.subject, '=', String(invoice[type.subject])).executeTakeFirst()) ?? {};
  const { groups } = await storedBreakdown(db, ref, type, invoice, lines, subject);
  const taxIds = [...new Set(groups.map((group) => group.codimpuesto).filter((code): code is string => code !== null))];
  const taxes = new Map(taxIds.length
    ? (await db.selectFrom('impuestos').selectAll().where('codimpuesto', 'in', taxIds).execute()).map((row) => [String(row.codimpuesto), row as Row])
    : []);
  const productCodes = await goodsCodes(db, rules.goods, lines.filter((line) => !line.suplido));
  const irpfRate = Number(invoice.irpf ?? 0);
  let retentionCode: string | null = null;
  if (Number(invoice.totalirpf ?? 0) !== 0) {
    const retention = await db.selectFrom('retenciones').select(['codsubcuentaret', 'codsubcuentaacr']).where('porcentaje', '=', irpfRate)
      .orderBy('codretencion').executeTakeFirst();
    if (!retention) throw new NotPosted('irpf-record-not-found', { irpf: irpfRate });
    retentionCode = textValue(retention[rules.retention]);
  }
  const codes = [
    textValue(subject.codsubcuenta), retentionCode, ...productCodes.values(),
    ...[...taxes.values()].flatMap((tax) => [rules.vat, rules.surcharge, 'codsubcuentarepintra', 'codsubcuentasopintra'].map((field) => textValue(tax[field]))),
  ];
  const roles: [string, ...string[]] = ['SUPLI', ...Object.values(rules.roles), INTRA_ROLES.input, INTRA_ROLES.output];
  const chart = await chartView(db, codejercicio, year.longsubcuenta, roles, codes);

  const refusal = await entryRefusal(db, dialect, codejercicio, String(invoice.fechadevengo || invoice.fecha));
  if (refusal) throw new NotPosted(refusal);
  const subjectSub = await subjectAccount(db, dialect, chart, type.side, subject);
  const selfAssessed = type.side === 'purchase' && typeof invoice.operacion === 'string' && SELF_ASSESSED.has(invoice.operacion);
  const vatGroups = groups.map((group): VatGroup => {
    const tax = group.codimpuesto ? taxes.get(group.codimpuesto) : undefined;
    const vat = required(chart.byCode(textValue(tax?.[rules.vat])) ?? chart.first(rules.roles.vat), rules.notFound.vat, { codimpuesto: group.codimpuesto });
    const surcharge = chart.byCode(textValue(tax?.[rules.surcharge])) ?? (type.side === 'sales' ? chart.first(rules.roles.surcharge) : undefined) ?? vat;
    const intra = selfAssessed && group.totaliva === 0 && group.iva > 0
      ? {
        input: required(chart.byCode(textValue(tax?.codsubcuentasopintra)) ?? chart.first(INTRA_ROLES.input), 'ivasop-account-not-found', { codimpuesto: group.codimpuesto }),
        output: required(chart.byCode(textValue(tax?.codsubcuentarepintra)) ?? chart.first(INTRA_ROLES.output), 'ivarep-subaccount-not-found', { codimpuesto: group.codimpuesto }),
      }
      : undefined;
    return { neto: group.neto, iva: group.iva, recargo: group.recargo, totaliva: group.totaliva, totalrecargo: group.totalrecargo, vat, surcharge, ...(intra ? { selfAssessed: intra } : {}) };
  });
  const irpf = Number(invoice.totalirpf ?? 0) !== 0
    ? required(chart.byCode(retentionCode) ?? chart.first(rules.roles.irpf), 'irpf-subaccount-not-found', { irpf: irpfRate })
    : undefined;
  const suplidos = Number(invoice.totalsuplidos ?? 0) !== 0 ? required(chart.first('SUPLI'), 'supplied-subaccount-not-found', {}) : undefined;
  const goods = goodsOf(chart, rules, invoice, lines, productCodes, decimals);

  const series = ref.series.get(String(invoice.codserie)) ?? await serieIn(db, String(invoice.codserie));
  const name = String((type.side === 'sales' ? invoice.nombrecliente : invoice.nombre) ?? '');
  const second = textValue(type.side === 'sales' ? invoice.numero2 : invoice.numproveedor);
  const english = ref.settings.langcode.startsWith('en');
  const label = type.side === 'sales' ? (english ? 'Customer invoice' : 'Factura de Cliente') : (english ? 'Supplier invoice' : 'Factura de Proveedor');
  const concepto = `${label} ${invoice.codigo}${second ? ` (${second})` : ''} - ${name}`.slice(0, 255);
  const entryLines = invoiceEntryLines({
    side: type.side, decimals, total, totalirpf: Number(invoice.totalirpf ?? 0), totalsuplidos: Number(invoice.totalsuplidos ?? 0),
    subject: subjectSub, groups: vatGroups, ...(irpf ? { irpf } : {}), ...(suplidos ? { suplidos } : {}), goods,
    concepto, documento: String(invoice.codigo), cifnif: textValue(invoice.cifnif), codserie: textValue(invoice.codserie), factura: textValue(String(invoice.numero ?? '')),
  });
  if (!isBalanced(entryLines, decimals)) throw unbalanced('invoice', Number(invoice[type.key]), entryLines);
  const idasiento = await writeEntry(db, dialect, {
    codejercicio, idempresa: Number(invoice.idempresa), fecha: String(invoice.fechadevengo || invoice.fecha), concepto, documento: String(invoice.codigo),
    importe: total, canal: series.canal, iddiario: series.iddiario,
  }, entryLines);
  await db.updateTable(type.header.table).set({ idasiento }).where(type.key, '=', Number(invoice[type.key])).execute();
}

/** The goods' sub-accounts: a credit note's go to the returns account when the chart has one; else product, family, default. */
function goodsOf(chart: ChartView, rules: (typeof SIDES)[keyof typeof SIDES], invoice: Row, lines: Row[], codes: Map<number, string>, decimals: number) {
  const fallback = required(chart.first(rules.roles.goods), 'special-account-subaccount-not-found', { role: rules.roles.goods });
  const returns = invoice.idfacturarect !== null && invoice.idfacturarect !== undefined ? chart.first(rules.roles.returns) : undefined;
  const discount = dec(100).minus(dec(Number(invoice.dtopor1 ?? 0))).div(100).times(dec(100).minus(dec(Number(invoice.dtopor2 ?? 0))).div(100));
  const nets = lines.filter((line) => !line.suplido).map((line) => {
    const code = line.idproducto === null || line.idproducto === undefined ? undefined : codes.get(Number(line.idproducto));
    const account = returns ?? (code ? required(chart.byCode(code), rules.notFound.goods, { codsubcuenta: code }) : fallback);
    return { account, net: dec(Number(line.pvptotal ?? 0)).times(discount) };
  });
  return goodsByAccount(nets, Number(invoice.neto ?? 0), returns ?? fallback, decimals);
}
