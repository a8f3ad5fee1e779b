import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { dec } from '../../models/round.ts';
import { entryRefusal, isBalanced, unbalanced, writeEntry, type NewEntry, type NewEntryLine } from '../accounting/index.ts';
import { SELF_ASSESSED, storedBreakdown, type Calculation, type DocumentReference, type DocumentType, type Row } from '../documents/index.ts';
import { serieIn, type SerieInfo } from '../fiscal/index.ts';
import { chartOfYear, chartView } from './chart.ts';
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

/** What an invoice's entry posts to, besides its subject's sub-account (`invoiceAccounts`). */
export interface InvoiceAccounts {
  vatGroups: VatGroup[];
  irpf?: Account;
  suplidos?: Account;
  goods: Array<{ account: Account; net: number }>;
}

/** Where a posting finds sub-accounts: a chart read for it (`chartView`) or the cached year (`yearChart`). */
interface ChartLookup {
  byCode(code: string | null | undefined): Account | undefined;
  first(role: string): Account | undefined;
}

/** The codes an invoice's entry may name (its subject's, the retention's, the products', the taxes'), to look up at once. */
export function invoiceCodes(side: 'sales' | 'purchase', subject: Row, retentionCode: string | null, productCodes: ReadonlyMap<number, string>, taxes: ReadonlyMap<string, Row>): Array<string | null> {
  const rules = SIDES[side];
  return [
    textValue(subject.codsubcuenta), retentionCode, ...productCodes.values(),
    ...[...taxes.values()].flatMap((tax) => [rules.vat, rules.surcharge, 'codsubcuentarepintra', 'codsubcuentasopintra'].map((field) => textValue(tax[field]))),
  ];
}

/** The roles an invoice's entry may fall back on. */
function invoiceRoles(side: 'sales' | 'purchase'): [string, ...string[]] {
  return ['SUPLI', ...Object.values(SIDES[side].roles), INTRA_ROLES.input, INTRA_ROLES.output];
}

/** The field of products and families that names an invoice line's goods sub-account. */
export const goodsField = (side: 'sales' | 'purchase') => SIDES[side].goods;

/**
 * The sub-accounts of an invoice's entry but its subject's (pure, given what was read): per VAT
 * group its VAT, surcharge and (reverse charge) self-assessed pair, IRPF, suplidos, and the goods
 * by product, family or role; a `NotPosted` naming what is missing.
 */
export function invoiceAccounts(args: {
  type: DocumentType; invoice: Row; lines: Row[]; groups: Calculation['groups']; taxes: ReadonlyMap<string, Row>; chart: ChartLookup;
  productCodes: ReadonlyMap<number, string>; retentionCode: string | null; decimals: number;
}): InvoiceAccounts {
  const { type, invoice, lines, chart, taxes } = args;
  const rules = SIDES[type.side];
  const irpfRate = Number(invoice.irpf ?? 0);
  const selfAssessed = type.side === 'purchase' && typeof invoice.operacion === 'string' && SELF_ASSESSED.has(invoice.operacion);
  const vatGroups = args.groups.map((group): VatGroup => {
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
    ? required(chart.byCode(args.retentionCode) ?? chart.first(rules.roles.irpf), 'irpf-subaccount-not-found', { irpf: irpfRate })
    : undefined;
  const suplidos = Number(invoice.totalsuplidos ?? 0) !== 0 ? required(chart.first('SUPLI'), 'supplied-subaccount-not-found', {}) : undefined;
  const goods = goodsOf(chart, rules, invoice, lines, args.productCodes, args.decimals);
  return { vatGroups, ...(irpf ? { irpf } : {}), ...(suplidos ? { suplidos } : {}), goods };
}

/** An invoice's entry (its header and lines, balanced) from its numbered header and its accounts: pure. */
function invoiceEntry(args: {
  type: DocumentType; invoice: Row; accounts: InvoiceAccounts; subject: Account; series: SerieInfo; decimals: number; english: boolean;
}): { entry: NewEntry; lines: NewEntryLine[] } {
  const entry = invoiceEntryHeader(args);
  return { entry, lines: invoiceEntryLinesOf({ ...args, entry }) };
}

/** The header of an invoice's entry (its concept names the invoice's code): pure. */
export function invoiceEntryHeader(args: { type: DocumentType; invoice: Row; series: SerieInfo; english: boolean }): NewEntry {
  const { type, invoice } = args;
  const name = String((type.side === 'sales' ? invoice.nombrecliente : invoice.nombre) ?? '');
  const second = textValue(type.side === 'sales' ? invoice.numero2 : invoice.numproveedor);
  const label = type.side === 'sales' ? (args.english ? 'Customer invoice' : 'Factura de Cliente') : (args.english ? 'Supplier invoice' : 'Factura de Proveedor');
  const concepto = `${label} ${invoice.codigo}${second ? ` (${second})` : ''} - ${name}`.slice(0, 255);
  return {
    codejercicio: String(invoice.codejercicio), idempresa: Number(invoice.idempresa), fecha: String(invoice.fechadevengo || invoice.fecha), concepto, documento: String(invoice.codigo),
    importe: Number(invoice.total ?? 0), canal: args.series.canal, iddiario: args.series.iddiario,
  };
}

/**
 * The lines of an invoice's entry, balanced: pure. An entry that would not balance refuses the
 * whole operation: it can only come from a fault, and the books must never hold one.
 */
export function invoiceEntryLinesOf(args: { type: DocumentType; invoice: Row; accounts: InvoiceAccounts; subject: Account; decimals: number; entry: NewEntry }): NewEntryLine[] {
  const { type, invoice, accounts } = args;
  const lines = invoiceEntryLines({
    side: type.side, decimals: args.decimals, total: Number(invoice.total ?? 0), totalirpf: Number(invoice.totalirpf ?? 0), totalsuplidos: Number(invoice.totalsuplidos ?? 0),
    subject: args.subject, groups: accounts.vatGroups, ...(accounts.irpf ? { irpf: accounts.irpf } : {}), ...(accounts.suplidos ? { suplidos: accounts.suplidos } : {}), goods: accounts.goods,
    concepto: args.entry.concepto, documento: String(invoice.codigo), cifnif: textValue(invoice.cifnif), codserie: textValue(invoice.codserie), factura: textValue(String(invoice.numero ?? '')),
  });
  if (!isBalanced(lines, args.decimals)) throw unbalanced('invoice', Number(invoice[type.key] ?? 0), lines);
  return lines;
}

/** The retention's sub-account code of an invoice with IRPF (the retention of its rate), or NotPosted. */
export function retentionCodeOf(side: 'sales' | 'purchase', invoice: Row, retention: Row | undefined): string | null {
  if (Number(invoice.totalirpf ?? 0) === 0) return null;
  if (!retention) throw new NotPosted('irpf-record-not-found', { irpf: Number(invoice.irpf ?? 0) });
  return textValue(retention[SIDES[side].retention]);
}

/**
 * Posts an invoice's entry (docs/accounting.md) in the caller's transaction, a statement at a
 * time, and stores its `idasiento`: nothing for a zero total or a year without chart; a
 * `NotPosted` when something the entry needs is missing (thrown before anything of it is written,
 * but the subject's new sub-account, which stays, as in the reference). For a changed invoice; a
 * new one's entry is written with it (invoice-part.ts).
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
  const retention = Number(invoice.totalirpf ?? 0) !== 0
    ? await db.selectFrom('retenciones').select(['codsubcuentaret', 'codsubcuentaacr']).where('porcentaje', '=', Number(invoice.irpf ?? 0)).orderBy('codretencion').executeTakeFirst()
    : undefined;
  const retentionCode = retentionCodeOf(type.side, invoice, retention);
  const chart = await chartView(db, codejercicio, year.longsubcuenta, invoiceRoles(type.side), invoiceCodes(type.side, subject, retentionCode, productCodes, taxes));

  const refusal = await entryRefusal(db, dialect, codejercicio, String(invoice.fechadevengo || invoice.fecha));
  if (refusal) throw new NotPosted(refusal);
  const subjectSub = await subjectAccount(ctx, db, chart, type.side, subject);
  const accounts = invoiceAccounts({ type, invoice, lines, groups, taxes, chart, productCodes, retentionCode, decimals });
  const series = ref.series.get(String(invoice.codserie)) ?? await serieIn(db, String(invoice.codserie));
  const { entry, lines: entryLines } = invoiceEntry({ type, invoice, accounts, subject: subjectSub, series, decimals, english: ref.settings.langcode.startsWith('en') });
  const idasiento = await writeEntry(db, dialect, entry, entryLines);
  await db.updateTable(type.header.table).set({ idasiento }).where(type.key, '=', Number(invoice[type.key])).execute();
}

/** The goods' sub-accounts: a credit note's go to the returns account when the chart has one; else product, family, default. */
function goodsOf(chart: ChartLookup, rules: (typeof SIDES)[keyof typeof SIDES], invoice: Row, lines: Row[], codes: ReadonlyMap<number, string>, decimals: number) {
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
