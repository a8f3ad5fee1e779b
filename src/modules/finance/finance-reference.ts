import type { AppContext } from '../../app-context.ts';
import type { DbExecutor } from '../../db/database.ts';
import { dbBoolean } from '../../db/row-codec.ts';
import type { PaymentTerms } from './finance-reads.ts';

/** Currencies and payment methods: read on every document, changed rarely. */
export interface FinanceReference {
  currencies: ReadonlyMap<string, { tasaconv: number; tasaconvcompra: number | null }>;
  paymentMethods: ReadonlyMap<string, PaymentTerms>;
}

const CACHE = 'finance';

export function declareFinanceReference(ctx: AppContext): void {
  ctx.shared.cache<FinanceReference>(CACHE, ['divisa', 'formapago'], () => loadFinanceReference(ctx.database.kysely));
}

/** Currencies and payment methods as `db` sees them (the cache's load; a transaction's own view). */
export async function loadFinanceReference(db: DbExecutor): Promise<FinanceReference> {
  const [currencies, methods] = await Promise.all([
    db.selectFrom('divisas').select(['coddivisa', 'tasaconv', 'tasaconvcompra']).execute(),
    db.selectFrom('formaspago').select(['codpago', 'pagado', 'plazovencimiento', 'tipovencimiento']).execute(),
  ]);
  return {
    currencies: new Map(currencies.map((c) => [String(c.coddivisa), { tasaconv: Number(c.tasaconv), tasaconvcompra: c.tasaconvcompra === null ? null : Number(c.tasaconvcompra) }])),
    paymentMethods: new Map(methods.map((m) => [String(m.codpago), {
      pagado: dbBoolean(m.pagado), plazovencimiento: Number(m.plazovencimiento ?? 0), tipovencimiento: String(m.tipovencimiento ?? 'days'),
    }])),
  };
}

/** The current currencies and payment methods (outside a transaction). */
export function financeReference(ctx: AppContext): Promise<FinanceReference> {
  return ctx.shared.named<FinanceReference>(CACHE).read();
}

/** The rate of a currency for a side: sales `tasaconv`, purchases `tasaconvcompra` when set. */
export function rateFor(reference: FinanceReference, coddivisa: string, side: 'sales' | 'purchase'): number | undefined {
  const currency = reference.currencies.get(coddivisa);
  if (!currency) return undefined;
  return side === 'purchase' && currency.tasaconvcompra !== null ? currency.tasaconvcompra : currency.tasaconv;
}
