import type { Module } from '../../module.ts';
import { docTransformationModel } from './doc-transformation-model.ts';
import { registerDocumentRoutes } from './document-routes.ts';
import { DOCUMENT_TYPES } from './document-types.ts';
import { registerDocumentWriters } from './document-writers.ts';
import { registerDocumentExpansions } from './document-expansions.ts';
import { refreshOverdue } from './overdue-refresh.ts';
import { customerRiskJob } from './risk-recount.ts';
import { guardSoldProducts } from './product-use.ts';
import { numberGapModel } from './number-gaps.ts';
import { recordExistingGaps } from './numbering.ts';
import { guardSealedDocuments } from './sealed-guard.ts';

export { DOCUMENT_TYPES, documentType, type DocumentType } from './document-types.ts';
export { docTransformationModel };
export { loadReference, loadReferenceIn, type DocumentReference } from './document-reference.ts';
export { documentIdOf, hasRefunds, headerOf, linesOf, lockDocument, type Row } from './document-repository.ts';
export {
  documentChanged, documentCreated, documentRemoving, documentSeal, type ChangedDocument, type CreatedDocument, type DocumentSeal, type RemovedDocument,
} from './document-hooks.ts';
export { storedBreakdown, storedBreakdowns } from './stored-breakdown.ts';
export { productTypesOf } from './recalculate.ts';
export { rebuildCustomerRisks } from './customer-risk.ts';
export { recordExistingGaps } from './numbering.ts';
export { documentPreparing, WriteInRounds, type DocumentInWriting, type DocumentPart, type PartMaker, type PreparingDocument } from './document-parts.ts';
export { sameValue } from './same-value.ts';
export { createDocument } from './create-document.ts';
export { readDocumentInput, type DocumentInput } from './document-input.ts';
export { previewDocument } from './prepare-document.ts';
export { payReceipts, type ReceiptPaymentRequest } from './receipt-changes.ts';
export type { Calculation, TaxGroup } from './calculation/types.ts';
export { SELF_ASSESSED } from './calculation/apply-taxes.ts';

/**
 * The business documents: quotes, orders, delivery notes and invoices of both sides, their lines
 * and the links between them; the `crear`/`editar`/`pagar` endpoints; generic writes through the
 * document rules; the overdue refresh and the customer-risk check (jobs).
 */
export function documentsModule(): Module {
  return {
    name: 'documents',
    models: [...DOCUMENT_TYPES.map((type) => type.header), ...DOCUMENT_TYPES.map((type) => type.line), docTransformationModel, numberGapModel],
    // Gaps left before they were recorded (an installation upgraded to O(1) numbering) are found once.
    seeds: [{ id: 'number-gaps', run: async (ctx, trx) => (await recordExistingGaps(trx, ctx.database.dialect, DOCUMENT_TYPES)) > 0 }],
    setup(ctx) {
      registerDocumentWriters(ctx);
      registerDocumentExpansions(ctx);
      guardSoldProducts(ctx);
      guardSealedDocuments(ctx);
    },
    register: registerDocumentRoutes,
    jobs: [{ name: 'overdue', intervalMs: () => 60_000, run: refreshOverdue }, customerRiskJob()],
  };
}
