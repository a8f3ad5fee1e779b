import type { AppContext } from '../../app-context.ts';
import { beforeCommit } from '../../db/transaction.ts';
import { documentCreated } from '../documents/index.ts';
import { appendRecord } from './chain.ts';
import { activeSwitchOf } from './company-switch.ts';
import { altaFactsOf } from './invoice-facts.ts';
import { altaRecord } from './record-content.ts';
import { RECORDED_TYPE } from './recorded-invoices.ts';

/**
 * Every customer invoice of a company whose VERI*FACTU switch is on gets its alta in the
 * transaction that writes it (RD 1007/2023 art. 8: no invoice without its record, no record
 * without its invoice): created, generated from a delivery note, or a refund. What the record
 * says is read and checked at once (a 422 refuses the invoice); its place in the chain is taken
 * last, in the transaction's before-commit work (db/transaction.ts), so that the chain's lock is
 * held as briefly as possible.
 */
export function recordIssuedInvoices(ctx: AppContext): void {
  ctx.hooks.on(documentCreated, async ({ db, ref, type, id, header, lines }) => {
    if (type.name !== RECORDED_TYPE) return;
    const company = await activeSwitchOf(db, Number(header.idempresa));
    if (!company) return;
    const { facts, territory } = await altaFactsOf(ctx, db, ref, type, header, lines);
    const append = async () => {
      await appendRecord(ctx, db, company, {
        tipo: 'alta',
        idfactura: id,
        invoice: facts.id,
        alta: { tipofactura: facts.TipoFactura, cuotatotal: facts.CuotaTotal, importetotal: facts.ImporteTotal },
        territory,
        severalTaxpayers: ref.company.companies.size > 1,
        build: (previous, system, timestamp) => altaRecord(facts, previous, system, timestamp),
      });
    };
    if (!beforeCommit(db, append)) await append();
  });
}
