import type { AppContext } from '../../app-context.ts';
import type { Module } from '../../module.ts';
import { keepSystemsExclusive } from './exclusive-systems.ts';
import { markIssuedInvoices } from './invoice-marks.ts';
import { issueInvoiceFiles } from './issue-invoices.ts';
import { chainHeadModel, registroTicketbaiModel, sendQueueModel } from './record-models.ts';
import { sendDueFiles } from './sending/send-files.ts';
import { ticketbaiEmpresaModel } from './switch-model.ts';
import { registerTicketbaiRoutes } from './ticketbai-routes.ts';

export { ticketbaiEmpresaModel, registroTicketbaiModel };
export { crc8, qrAddress, tbaiIdentifier } from './identifier.ts';

/**
 * TicketBAI (Araba/Álava, Bizkaia, Gipuzkoa), per company and off until switched on
 * (`ticketbaiempresa`), never with VERI*FACTU: every customer invoice and credit note issued gets
 * its TicketBAI 1.2.2 file in its own transaction, signed XAdES-EPES under its treasury's policy,
 * chained to the company's previous one, with its TBAI identifier and QR on the invoice; the files
 * sent by a background job (and at issuance) to Araba's and Gipuzkoa's REST services or Bizkaia's
 * LROE, with retries; cancellations, Zuzendu corrections, and resending. Built on what VERI*FACTU
 * has (certificates, signing, sending over mutual TLS, the invoice's tax breakdown). docs/ticketbai.md.
 */
export function ticketbaiModule(): Module {
  return {
    name: 'ticketbai',
    models: [ticketbaiEmpresaModel, registroTicketbaiModel, chainHeadModel, sendQueueModel],
    setup(ctx: AppContext) {
      keepSystemsExclusive(ctx);
      issueInvoiceFiles(ctx);
      markIssuedInvoices(ctx);
    },
    register: registerTicketbaiRoutes,
    jobs: [{ name: 'ticketbai-send', intervalMs: (ctx) => ctx.config.ticketbai.pollMs, run: sendDueFiles }],
  };
}
