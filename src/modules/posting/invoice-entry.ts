import type { Decimal } from 'decimal.js';
import { dec, roundNumber } from '../../models/round.ts';
import type { NewEntryLine } from '../accounting/index.ts';
import { entryLine, type Account, type EntrySide } from './entry-line.ts';

/** One VAT group of the invoice (rate + surcharge rate), its amounts as rounded in the totals. */
export interface VatGroup {
  neto: number;
  iva: number;
  recargo: number;
  totaliva: number;
  totalrecargo: number;
  vat: Account;
  surcharge: Account;
  /** Reverse charge on a purchase: the VAT self-assessed, input (D) and output (H). */
  selfAssessed?: { input: Account; output: Account };
}

/** Everything an invoice's entry is made of, accounts resolved. */
export interface InvoiceEntryInput {
  side: 'sales' | 'purchase';
  decimals: number;
  total: number;
  totalirpf: number;
  totalsuplidos: number;
  subject: Account;
  groups: VatGroup[];
  irpf?: Account;
  suplidos?: Account;
  /** Net per goods sub-account, already rounded and reconciled to the invoice's `neto`. */
  goods: Array<{ account: Account; net: number }>;
  concepto: string;
  documento: string;
  cifnif: string | null;
  codserie: string | null;
  factura: string | null;
}

/**
 * The lines of an invoice's entry (docs/accounting.md, the reference's worked examples): the
 * subject, per VAT group its VAT (and surcharge) line, IRPF, suplidos, then the goods. On a sale
 * the customer is debited and the rest credited (IRPF debited); a purchase mirrors it. A negative
 * amount (a credit note) goes, as its absolute value, to the other side.
 */
export function invoiceEntryLines(input: InvoiceEntryInput): NewEntryLine[] {
  const sales = input.side === 'sales';
  const r = (value: number | Decimal) => roundNumber(value, input.decimals);
  const common = { concepto: input.concepto, documento: input.documento };
  const counterpart = { idcontrapartida: input.subject.idsubcuenta, codcontrapartida: input.subject.codsubcuenta };
  const line = (account: Account, amount: number, natural: EntrySide, extra: Partial<NewEntryLine> = {}) => entryLine(account, amount, natural, input.decimals, common, extra);
  const out: EntrySide = sales ? 'H' : 'D';
  const back: EntrySide = sales ? 'D' : 'H';
  const lines = [line(input.subject, input.total, back)];
  const vatFields = { cifnif: input.cifnif, codserie: input.codserie, factura: input.factura, ...counterpart };
  for (const group of input.groups) {
    // A self-assessed group's VAT is the pair below, not an ordinary (zero) VAT line.
    if (!group.selfAssessed) lines.push(line(group.vat, group.totaliva, out, { ...vatFields, baseimponible: group.neto, iva: group.iva, recargo: 0 }));
    if (group.recargo > 0 || group.totalrecargo !== 0) {
      lines.push(line(group.surcharge, group.totalrecargo, out, { ...vatFields, baseimponible: group.neto, iva: 0, recargo: group.recargo }));
    }
    if (group.selfAssessed && group.iva > 0) {
      const cuota = r(dec(group.neto).times(group.iva).div(100));
      lines.push(line(group.selfAssessed.input, cuota, 'D', { ...vatFields, baseimponible: group.neto, iva: group.iva, recargo: 0 }));
      lines.push(line(group.selfAssessed.output, cuota, 'H', { ...vatFields, baseimponible: group.neto, iva: group.iva, recargo: 0 }));
    }
  }
  if (input.totalirpf !== 0 && input.irpf) lines.push(line(input.irpf, input.totalirpf, back, counterpart));
  if (input.totalsuplidos !== 0 && input.suplidos) lines.push(line(input.suplidos, input.totalsuplidos, out));
  for (const goods of input.goods) if (goods.net !== 0) lines.push(line(goods.account, goods.net, out, counterpart));
  return lines;
}

/**
 * The goods' net per sub-account: each line's net (after the document's discounts) summed per
 * account code and rounded; the cent difference against the invoice's `neto` goes to `fallback`.
 */
export function goodsByAccount(lines: ReadonlyArray<{ account: Account; net: Decimal }>, neto: number, fallback: Account, decimals: number): Array<{ account: Account; net: number }> {
  const sums = new Map<string, { account: Account; net: Decimal }>();
  for (const { account, net } of lines) {
    const found = sums.get(account.codsubcuenta);
    sums.set(account.codsubcuenta, { account, net: (found?.net ?? dec(0)).plus(net) });
  }
  const goods = [...sums.values()].map(({ account, net }) => ({ account, net: roundNumber(net, decimals) }));
  const difference = roundNumber(dec(neto).minus(goods.reduce((sum, g) => sum.plus(g.net), dec(0))), decimals);
  if (difference !== 0) {
    const target = goods.find((g) => g.account.codsubcuenta === fallback.codsubcuenta);
    if (target) target.net = roundNumber(dec(target.net).plus(difference), decimals);
    else goods.push({ account: fallback, net: difference });
  }
  return goods;
}
