import { sql } from 'kysely';
import { AppError } from '../../errors.ts';
import { addToRiskStatement, reachedRiskRead } from '../customers/index.ts';
import type { PartMaker } from './document-parts.ts';

/**
 * A new sales document's part in its customer's risk (customer-risk.ts), under the customer's
 * lock (the first after the sequence's): what the document adds (`delta`: an unpaid invoice's
 * total, a pending delivery note's or order's; 0 for a quote or a paid invoice) is added to the
 * stored risk by the database, and read back with the other reads after the locks. As in the
 * reference, a document with a total is refused (422 `customer-reached-maximum-risk`) while the
 * customer's risk is above its `riesgomax` (none when 0): the risk this document leads to.
 */
export function riskPart(customer: { codcliente: string; riesgomax: number }, delta: number, total: number, decimals: number): PartMaker | undefined {
  const limited = customer.riesgomax > 0 && total !== 0;
  if (!delta && !limited) return undefined;
  return () => ({
    lock: 'customer',
    guarded: true,
    lockAndWrite(doc) {
      if (delta) doc.batch.add(addToRiskStatement(doc.db, customer.codcliente, delta, decimals));
      // Refused as below: a risk reached above the maximum, unless this document lowered it.
      if (limited) doc.readAfterLocks('risk.reached', reachedRiskRead(customer.codcliente), (value) => (delta < 0 ? sql`1 = 1` : sql`COALESCE(${value}, 0) <= ${customer.riesgomax}`));
    },
    afterLocks(doc) {
      if (!limited) return;
      const reached = Number(doc.readValue('risk.reached') ?? 0);
      // Unless this document lowered it (it never does: a new document adds to it or nothing).
      if (reached > customer.riesgomax && delta >= 0) {
        throw new AppError('customer-reached-maximum-risk', { riesgomax: customer.riesgomax, riesgoalcanzado: reached });
      }
    },
  });
}
