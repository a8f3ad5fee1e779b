import { AsyncLocalStorage } from 'node:async_hooks';
import type { AppContext } from '../../app-context.ts';
import { documentPreparing } from '../documents/index.ts';

/** The period a billing run is creating an invoice for (set around `createDocument`). */
export interface BillingPeriod {
  idrecurrente: number;
  periodo: number;
  desde: string;
  hasta: string;
  /** The template sends its invoices by e-mail: the period's `correo` starts `pendiente`. */
  sends: boolean;
}

const billing = new AsyncLocalStorage<BillingPeriod>();

/** Runs `create` (a `createDocument`) as the invoice of `period`: its commit records the period. */
export function asInvoiceOf<T>(period: BillingPeriod, create: () => Promise<T>): Promise<T> {
  return billing.run(period, create);
}

/**
 * The recurring module's part in the commit of an invoice it creates: the period's row, under its
 * unique key, with the invoice's lines. Of two runs billing one period, the second's row collides
 * and its whole invoice rolls back (number included): each period is billed once. Invoices made
 * by anyone else are not touched.
 */
export function recordBilledPeriods(ctx: AppContext): void {
  ctx.hooks.on(documentPreparing, (doc) => {
    const period = billing.getStore();
    if (!period || doc.type.name !== 'FacturaCliente') return undefined;
    return () => ({
      afterHeader(writing) {
        writing.batch.add(writing.db.insertInto('facturasrecurrentes_periodos').values({
          idrecurrente: period.idrecurrente, periodo: period.periodo, desde: period.desde, hasta: period.hasta, estado: 'facturado',
          idfactura: writing.idReference, codigo: String(writing.header.codigo ?? ''), correo: period.sends ? 'pendiente' : null, creado: ctx.clock.timestamp(),
        }));
      },
    });
  });
}
