import type { Decimal } from 'decimal.js';
import { applyTaxes, marginScheme, SELF_ASSESSED, type LineTax } from './apply-taxes.ts';
import { dec, Dec, round } from '../../../models/round.ts';
import type { CalcContext, CalcDocument, CalcLine, Calculation, DocumentTotals, LineAmounts, TaxGroup } from './types.ts';

const HUNDRED = new Dec(100);

/** `pvpsindto` and `pvptotal` of a line: never rounded (Calculator `calculateLine`). */
export function lineAmounts(line: Pick<CalcLine, 'cantidad' | 'pvpunitario' | 'dtopor' | 'dtopor2'>): { pvpsindto: Decimal; pvptotal: Decimal } {
  const pvpsindto = dec(line.cantidad).times(dec(line.pvpunitario));
  const pvptotal = pvpsindto.times(HUNDRED.minus(dec(line.dtopor))).div(HUNDRED).times(HUNDRED.minus(dec(line.dtopor2))).div(HUNDRED);
  return { pvpsindto, pvptotal };
}

/** How a line's tax is found: the rules (`applyTaxes`), or the line's stored tax (`storedTax`). */
export type TaxRule = (doc: CalcDocument, line: CalcLine, ctx: CalcContext) => LineTax;

/** The tax a stored line already carries: re-summing a document as it was written, whatever the rules say today. */
export const storedTax: TaxRule = (_doc, line) => ({ codimpuesto: line.codimpuesto, iva: line.iva, recargo: line.recargo, excepcioniva: line.excepcioniva });

interface GroupSum {
  codimpuesto: string | null;
  iva: number;
  recargo: number;
  neto: Decimal;
  netosindto: Decimal;
  totaliva: Decimal;
  totalrecargo: Decimal;
}

/**
 * The whole calculation of a document (facturascripts-model.md 3.4, with the Spain mod of 3.5):
 * tax rules per line, line amounts, VAT groups, then rounding at the reference's points only:
 * each group's amounts, their sums, IRPF and suplidos from raw sums, and the total.
 */
export function calculateDocument(doc: CalcDocument, lines: readonly CalcLine[], ctx: CalcContext, taxOf: TaxRule = applyTaxes): Calculation {
  const { decimals } = ctx;
  const r = (value: Decimal) => round(value, decimals);
  const eud = HUNDRED.minus(dec(doc.dtopor1)).div(HUNDRED).times(HUNDRED.minus(dec(doc.dtopor2)).div(HUNDRED));
  const groups = new Map<string, GroupSum>();
  const group = (codimpuesto: string | null, iva: number, recargo: number): GroupSum => {
    const key = `${iva}|${recargo}`;
    let found = groups.get(key);
    if (!found) groups.set(key, (found = { codimpuesto, iva, recargo, neto: new Dec(0), netosindto: new Dec(0), totaliva: new Dec(0), totalrecargo: new Dec(0) }));
    return found;
  };
  let totalcoste = new Dec(0);
  let totalirpf = new Dec(0);
  let totalsuplidos = new Dec(0);
  let irpf = 0;
  const results: LineAmounts[] = [];

  for (const line of lines) {
    const tax = taxOf(doc, line, ctx);
    const { pvpsindto, pvptotal } = lineAmounts(line);
    results.push({ ...tax, pvpsindto: pvpsindto.toNumber() || 0, pvptotal: pvptotal.toNumber() || 0 });

    const cost = dec(line.cantidad).times(dec(line.coste));
    if (doc.side === 'sales') totalcoste = totalcoste.plus(cost);
    if (pvptotal.isZero()) continue;
    const net = pvptotal.times(eud);
    if (line.suplido) {
      totalsuplidos = totalsuplidos.plus(net);
      continue;
    }
    irpf = Math.max(irpf, line.irpf);
    totalirpf = totalirpf.plus(net.times(dec(line.irpf)).div(HUNDRED));

    const taxInfo = tax.codimpuesto ? ctx.taxes.get(tax.codimpuesto) : undefined;
    const fixed = taxInfo?.tipo === 2;
    const target = group(tax.codimpuesto, tax.iva, tax.recargo);
    let taxable = net;
    if (marginScheme(doc, line, ctx)) {
      // Margin scheme: the cost is untaxed (group 0|0); VAT only on the margin, and only when it is
      // positive or the serie rectifies (a refund takes back the VAT charged).
      const untaxed = group(null, 0, 0);
      untaxed.neto = untaxed.neto.plus(cost);
      untaxed.netosindto = untaxed.netosindto.plus(cost);
      taxable = net.minus(cost);
      target.neto = target.neto.plus(taxable);
      target.netosindto = target.netosindto.plus(pvptotal.minus(cost));
      if (!(taxable.greaterThan(0) || ctx.serie.tipo === 'R')) continue;
    } else {
      target.neto = target.neto.plus(net);
      target.netosindto = target.netosindto.plus(pvptotal);
    }
    if (tax.iva > 0) {
      if (fixed) {
        target.totaliva = target.totaliva.plus(dec(line.cantidad).times(dec(tax.iva)));
      } else if (ctx.method === 'price-adjusted') {
        const withTax = round(dec(line.pvpunitario).times(HUNDRED.plus(dec(tax.iva))).div(HUNDRED), decimals);
        const gross = dec(line.cantidad).times(withTax)
          .times(HUNDRED.minus(dec(line.dtopor)).div(HUNDRED)).times(HUNDRED.minus(dec(line.dtopor2)).div(HUNDRED)).times(eud);
        target.totaliva = target.totaliva.plus(r(gross).minus(r(taxable)));
      } else {
        target.totaliva = target.totaliva.plus(taxable.times(dec(tax.iva)).div(HUNDRED));
      }
    }
    if (tax.recargo > 0) {
      const surcharge = fixed ? dec(line.cantidad).times(dec(tax.recargo)) : taxable.times(dec(tax.recargo)).div(HUNDRED);
      target.totalrecargo = target.totalrecargo.plus(surcharge);
    }
  }

  const selfAssessed = doc.side === 'purchase' && ctx.company.codpais === 'ESP' && doc.operacion !== null && SELF_ASSESSED.has(doc.operacion);
  const rounded: TaxGroup[] = [...groups.entries()].map(([key, g]) => ({
    key,
    codimpuesto: g.codimpuesto,
    iva: g.iva,
    recargo: g.recargo,
    neto: r(g.neto).toNumber() || 0,
    netosindto: r(g.netosindto).toNumber() || 0,
    totaliva: selfAssessed ? 0 : r(g.totaliva).toNumber() || 0,
    totalrecargo: selfAssessed ? 0 : r(g.totalrecargo).toNumber() || 0,
  }));
  const sum = (pick: (g: TaxGroup) => number) => r(rounded.reduce((acc, g) => acc.plus(dec(pick(g))), new Dec(0)));
  const neto = sum((g) => g.neto);
  const totaliva = sum((g) => g.totaliva);
  const totalrecargo = sum((g) => g.totalrecargo);
  const irpfTotal = r(totalirpf);
  const suplidos = r(totalsuplidos);
  const totals: DocumentTotals = {
    irpf,
    neto: neto.toNumber() || 0,
    netosindto: sum((g) => g.netosindto).toNumber() || 0,
    totaliva: totaliva.toNumber() || 0,
    totalrecargo: totalrecargo.toNumber() || 0,
    totalirpf: irpfTotal.toNumber() || 0,
    totalsuplidos: suplidos.toNumber() || 0,
    total: r(neto.plus(suplidos).plus(totaliva).plus(totalrecargo).minus(irpfTotal)).toNumber() || 0,
    totalcoste: doc.side === 'sales' ? totalcoste.toNumber() || 0 : 0,
    totalbeneficio: doc.side === 'sales' ? r(neto.minus(totalcoste)).toNumber() || 0 : 0,
  };
  return { lines: results, groups: rounded, totals };
}
