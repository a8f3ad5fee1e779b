import { sql } from 'kysely';
import type { AppContext } from '../../app-context.ts';
import { afterCommit, beforeCommit } from '../../db/transaction.ts';
import { documentCreated, documentPreparing, type DocumentInWriting } from '../documents/index.ts';
import { RECORDED_TYPE } from '../verifactu/index.ts';
import { isOn, switchOf } from './company-switch.ts';
import { issueInvoiceFile } from './issue-file.ts';
import { sendAfterCommit } from './sending/send-files.ts';

/**
 * Every customer invoice (and credit note) of a company whose TicketBAI switch is on gets its
 * signed, chained file in the transaction that writes it: created, a refund, or generated from a
 * delivery note. The switch is read with the other reads after the invoice's locks (no statement of
 * its own; one turned on a moment ago on another instance is never missed); the file is made last,
 * once the invoice is numbered and stored, under its chain's lock. Once committed, the file is sent
 * at once where the treasury asks for it at issuance (sending/send-files.ts).
 */
export function issueInvoiceFiles(ctx: AppContext): void {
  /** Companies whose last invoice here found the switch on (a hint for the next one: write-document.ts's guard). */
  const switchedOn = new Set<number>();
  ctx.hooks.on(documentPreparing, (p) => {
    if (p.type.name !== RECORDED_TYPE) return undefined;
    const idempresa = Number(p.header.idempresa);
    const given = { customer: p.subject, productTypes: p.productTypes, breakdown: p.breakdown };
    const off = ctx.database.dialect.boolean(false);
    return () => ({
      lock: 'chain' as const,
      // The switch read off, `finish` has nothing to do: the COMMIT may go with the batch, which
      // fails if the switch is on. For a company whose last invoice here found it on, the file is
      // appended after the answer from the start (no batch sent only to fail).
      guarded: !switchedOn.has(idempresa),
      lockAndWrite(doc: DocumentInWriting) {
        doc.readAfterLocks('ticketbai.activo', sql`(SELECT activo FROM ticketbai_empresas WHERE idempresa = ${idempresa})`, (value) => sql`COALESCE(${value}, ${off}) = ${off}`);
      },
      async finish(doc: DocumentInWriting) {
        const on = isOn(doc.readValue('ticketbai.activo'));
        afterCommit(doc.db, () => void (on ? switchedOn.add(idempresa) : switchedOn.delete(idempresa)));
        if (!on) return;
        const company = await switchOf(doc.db, idempresa);
        if (!company?.activo) return;
        await issueInvoiceFile(ctx, doc.db, company, doc.ref, doc.type, doc.id!, doc.header, doc.lines, given);
        sendAfterCommit(ctx, doc.db, idempresa, company.territorio);
      },
    });
  });
  ctx.hooks.on(documentCreated, async ({ db, ref, type, id, header, lines, productTypes }) => {
    if (type.name !== RECORDED_TYPE) return;
    const company = await switchOf(db, Number(header.idempresa));
    if (!company?.activo) return;
    // Last in the transaction, as the chain's lock is last of the fixed order (docs/performance.md).
    const issue = async () => {
      await issueInvoiceFile(ctx, db, company, ref, type, id, header, lines, productTypes ? { productTypes } : {});
      sendAfterCommit(ctx, db, company.idempresa, company.territorio);
    };
    if (!beforeCommit(db, issue)) await issue();
  });
}
