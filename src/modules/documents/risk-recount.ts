import { inTransaction } from '../../db/transaction.ts';
import { storedAndCountedRisks } from '../customers/index.ts';
import type { Job } from '../../module.ts';
import { lockCustomer, reachedRisk, settleCustomerRisk } from './customer-risk.ts';

/** Customers checked per run: a run is a few indexed sums per customer, well under a second. */
const BATCH = 500;

/**
 * The check behind the risk kept by difference (creations and invoice payments, customer-risk.ts):
 * each run counts the risk of the next `BATCH` customers again over all their documents, in one
 * read, and a customer whose stored `riesgoalcanzado` differs is counted again under its lock and
 * stored, with a warning (a write that changed its documents without keeping its risk, a value
 * written through the API, or books imported around the service). The whole customer list is gone
 * through in turn, then again.
 */
export function customerRiskJob(): Job {
  let after = '';
  return {
    name: 'customer-risk',
    intervalMs: () => 60_000,
    async run(ctx) {
      const { decimals } = await ctx.settings();
      const { dialect } = ctx.database;
      const rows = await storedAndCountedRisks(ctx.database.kysely, after, BATCH, (codcliente) => reachedRisk(dialect, codcliente, decimals));
      after = rows.length < BATCH ? '' : rows[rows.length - 1]!.codcliente;
      for (const { codcliente, stored, counted } of rows) {
        if (stored === counted) continue;
        await inTransaction(ctx.database, async (trx) => settleCustomerRisk(trx, dialect, decimals, await lockCustomer(trx, dialect, codcliente)));
        ctx.log.warn({ codcliente, stored, counted }, 'customer risk corrected');
      }
    },
  };
}
