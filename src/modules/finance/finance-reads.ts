import type { DbExecutor } from '../../db/database.ts';
import { dbBoolean } from '../../db/row-codec.ts';

/** When a payment method's receipts fall due, and whether it is paid on the spot. */
export interface PaymentTerms {
  pagado: boolean;
  plazovencimiento: number;
  tipovencimiento: string;
}

export async function paymentTermsOf(db: DbExecutor, codpago: string): Promise<PaymentTerms | undefined> {
  const method = await db.selectFrom('formaspago').select(['pagado', 'plazovencimiento', 'tipovencimiento']).where('codpago', '=', codpago).executeTakeFirst();
  return method && { pagado: dbBoolean(method.pagado), plazovencimiento: Number(method.plazovencimiento ?? 0), tipovencimiento: String(method.tipovencimiento ?? 'days') };
}

/** Whether a payment method exists. */
export async function paymentMethodExists(db: DbExecutor, codpago: string): Promise<boolean> {
  return (await db.selectFrom('formaspago').select('codpago').where('codpago', '=', codpago).executeTakeFirst()) !== undefined;
}

/**
 * The conversion rate of a currency for a side of the business: sales use `tasaconv`, purchases
 * `tasaconvcompra` when set. Undefined for an unknown currency.
 */
export async function conversionRateOf(db: DbExecutor, coddivisa: string, side: 'sales' | 'purchase'): Promise<number | undefined> {
  const currency = await db.selectFrom('divisas').select(['tasaconv', 'tasaconvcompra']).where('coddivisa', '=', coddivisa).executeTakeFirst();
  if (!currency) return undefined;
  return Number(side === 'purchase' && currency.tasaconvcompra !== null ? currency.tasaconvcompra : currency.tasaconv);
}
