import type { AppContext } from '../../app-context.ts';
import type { Module } from '../../module.ts';
import { verifactuEmpresaModel } from './company-switch-model.ts';
import { printInvoiceQr } from './invoice-qr.ts';
import { sealRecordedInvoices } from './invoice-seal.ts';
import { guardIssuerTaxId } from './issuer-tax-id-guard.ts';
import { presentInvoiceRecords } from './invoice-presenter.ts';
import { chainHeadModel, registroVerifactuModel } from './record-models.ts';
import { recordIssuedInvoices } from './record-issued-invoices.ts';
import { declareWritingReference } from './writing-reference.ts';
import { registerVerifactuRoutes } from './verifactu-routes.ts';
import { requerimientoModel, sendQueueModel, verifactuEnvioModel } from './sending/send-models.ts';
import { sendDueRecords } from './sending/send-records.ts';
import { eventoVerifactuModel } from './event-log/event-models.ts';
import { logLeavingNoVerifactu, writeSummaries } from './event-log/operation-events.ts';

export { verifactuEmpresaModel, registroVerifactuModel };
export { declaration, declarationMarkdown } from './declaration.ts';
export { PRODUCER, SYSTEM } from './producer.ts';

/**
 * VERI*FACTU (RD 1007/2023, Orden HAC/1177/2024), per company and off until switched on
 * (`verifactuempresa`): a chained, append-only record for every customer invoice issued and every
 * cancellation, in the invoice's transaction; issued invoices sealed; the QR on their exports; the
 * records read-only through the API, with their XML, the chain check and the producer's
 * declaration. VERI*FACTU mode: the records sent to the AEAT by a background job (sending/), with
 * corrections as subsanaciones. NO VERI*FACTU mode: the records signed (signing/), a signed event
 * log (event-log/), exports, and the AEAT's requests answered. docs/verifactu.md.
 */
export function verifactuModule(): Module {
  let context: AppContext | undefined;
  // Only a serving app (one that ran its jobs) writes the shutdown summary: a CLI command is not operation.
  let serving = false;
  return {
    name: 'verifactu',
    models: [verifactuEmpresaModel, registroVerifactuModel, chainHeadModel, verifactuEnvioModel, sendQueueModel, eventoVerifactuModel, requerimientoModel],
    setup(ctx) {
      context = ctx;
      logLeavingNoVerifactu(ctx);
      declareWritingReference(ctx);
      recordIssuedInvoices(ctx);
      sealRecordedInvoices(ctx);
      printInvoiceQr(ctx);
      presentInvoiceRecords(ctx);
      guardIssuerTaxId(ctx);
    },
    register: registerVerifactuRoutes,
    jobs: [
      { name: 'verifactu-send', intervalMs: (ctx) => ctx.config.verifactu.pollMs, run: sendDueRecords },
      {
        name: 'verifactu-summary',
        intervalMs: () => 600_000,
        run: (ctx) => {
          serving = true;
          return writeSummaries(ctx);
        },
      },
    ],
    async stop() {
      if (serving && context) await writeSummaries(context, true);
    },
  };
}
// What another fiscal system (TicketBAI) builds on: certificates, XAdES signing, sending over mutual
// TLS with back-off, the invoice's tax classification and breakdown, the records' XML values.
export { acceptCertificate, certificateOf, openCertificate, type Certificate } from './certificate.ts';
export { signXml, signingKey, XADES_NAMESPACE, type SignaturePolicy, type SigningKey, type SignOptions } from './signing/sign-record.ts';
export { postOverTls, TransportError, trustedAuthority, type TlsAnswer } from './sending/soap-client.ts';
export { backoffSeconds } from './sending/send-records.ts';
export { breakdownOf, descriptionOf, issuerNif, recipientOf, type KnownFacts } from './invoice-facts.ts';
export { xmlAmount, xmlDate, xmlText, type XmlTree } from './xml-tree.ts';
export { childElements, childText, type Element } from './xml-read.ts';
export { storedSwitchOf } from './company-switch.ts';
export { RECORDED_TYPE } from './recorded-invoices.ts';
