import type { CalcContext, CalcDocument, CalcLine, Side } from './types.ts';

/** The tax part of a line, as the rules leave it. */
export interface LineTax {
  codimpuesto: string | null;
  iva: number;
  recargo: number;
  excepcioniva: string | null;
}

const REGIME_SURCHARGE = 'Recargo';
const NO_TAX = 'IVA0';

/** Operation keys (Core/Lib/InvoiceOperation.php) and their effect per side (Spain mod rule 1). */
const OPERATIONS: Record<string, Partial<Record<Side, { zero: boolean; excepcioniva: string | null }>>> = {
  intracomunitaria: { sales: { zero: true, excepcioniva: 'ES_25' }, purchase: { zero: false, excepcioniva: 'ES_84' } },
  'intracom-servicios': { sales: { zero: true, excepcioniva: 'ES_68_70' }, purchase: { zero: false, excepcioniva: 'ES_84' } },
  'inv-sujeto-pasivo': { sales: { zero: true, excepcioniva: 'ES_84' }, purchase: { zero: false, excepcioniva: 'ES_84' } },
  exportacion: { sales: { zero: true, excepcioniva: 'ES_21' } },
  importacion: { purchase: { zero: true, excepcioniva: null } },
};

/** Purchase operations whose VAT is self-assessed: the groups keep `iva` and `neto` but charge none. */
export const SELF_ASSESSED = new Set(['intracomunitaria', 'intracom-servicios', 'inv-sujeto-pasivo']);

function withTax(ctx: CalcContext, code: string | null): Pick<LineTax, 'codimpuesto' | 'iva' | 'recargo'> {
  const tax = code ? ctx.taxes.get(code) : undefined;
  return { codimpuesto: tax ? tax.codimpuesto : null, iva: tax?.iva ?? 0, recargo: tax?.recargo ?? 0 };
}

/** Does the surcharge (recargo de equivalencia) apply? Sales: the customer's regime; purchases: company's or supplier's. */
export function surchargeApplies(side: Side, ctx: CalcContext): boolean {
  if (ctx.subject.regimeniva === REGIME_SURCHARGE) return true;
  return side === 'purchase' && ctx.company.regimeniva === REGIME_SURCHARGE;
}

/** Zones matching the document's country and province, highest priority first (core rule b). */
function matchingZones(doc: CalcDocument, ctx: CalcContext) {
  return ctx.zones
    .filter((zone) => (zone.codpais === null || zone.codpais === doc.codpais) &&
      (zone.provincia === null || zone.provincia.toLowerCase() === (doc.provincia ?? '').toLowerCase()))
    .sort((a, b) => b.prioridad - a.prioridad);
}

/**
 * Tax determination of one line (Calculator `apply` plus the Spain mod when the company is in
 * ESP). A line's own `iva` is used as sent unless a rule replaces it (the reference does not
 * re-derive it from `codimpuesto`).
 */
export function applyTaxes(doc: CalcDocument, line: CalcLine, ctx: CalcContext, zones = matchingZones(doc, ctx)): LineTax {
  let tax: LineTax = { codimpuesto: line.codimpuesto, iva: line.iva, recargo: line.recargo, excepcioniva: line.excepcioniva };

  // Core a: tax-free serie or exempt subject.
  if (ctx.serie.siniva || ctx.subject.regimeniva === 'Exento') {
    tax = { ...withTax(ctx, NO_TAX), iva: 0, recargo: 0, excepcioniva: ctx.subject.excepcioniva };
  } else {
    // Core b: tax zones, sales only.
    if (doc.side === 'sales') {
      const zone = zones.find((candidate) => candidate.codimpuesto === tax.codimpuesto);
      if (zone) tax = { ...withTax(ctx, zone.codimpuestosel), excepcioniva: zone.excepcioniva };
    }
    // Core c: purchase surcharge only in a surcharge regime.
    if (doc.side === 'purchase' && !surchargeApplies('purchase', ctx)) tax = { ...tax, recargo: 0 };
  }

  if (ctx.company.codpais === 'ESP') tax = applySpainRules(doc, line, tax, ctx);
  return tax;
}

/** CalculatorModSpain `apply`: the first matching rule wins. */
function applySpainRules(doc: CalcDocument, line: CalcLine, tax: LineTax, ctx: CalcContext): LineTax {
  const operation = doc.operacion ? OPERATIONS[doc.operacion]?.[doc.side] : undefined;
  if (operation) {
    if (operation.zero) return { ...withTax(ctx, NO_TAX), iva: 0, recargo: 0, excepcioniva: operation.excepcioniva };
    return { ...tax, recargo: 0, excepcioniva: operation.excepcioniva };
  }
  if (ctx.subject.regimeniva === 'Oro') return { codimpuesto: null, iva: 0, recargo: 0, excepcioniva: 'ES_OTHER' };
  if (doc.side === 'purchase' && ctx.subject.regimeniva === 'Agrario') return { ...tax, recargo: 0, excepcioniva: 'ES_OTHER' };
  if (doc.side === 'purchase' && ctx.company.regimeniva === 'Bienes usados' && line.productType === 'Segunda mano') {
    return { ...tax, codimpuesto: null, iva: 0, recargo: 0 };
  }
  return surchargeApplies(doc.side, ctx) ? tax : { ...tax, recargo: 0 };
}

/** Sales under a margin scheme: used goods (second-hand products) or a travel agency (every line). */
export function marginScheme(doc: CalcDocument, line: CalcLine, ctx: CalcContext): boolean {
  if (doc.side !== 'sales' || ctx.company.codpais !== 'ESP') return false;
  if (ctx.company.regimeniva === 'Agencias de viaje') return true;
  return ctx.company.regimeniva === 'Bienes usados' && line.productType === 'Segunda mano';
}
