import type { Model } from '../models/define-model.ts';
import { apiAccessModel, apiKeyModel } from './auth/auth-models.ts';
import { incidentModel, stateVersionModel } from './auth/internal-models.ts';
import { fabricanteModel, familiaModel, productoProveedorModel, stockModel, tarifaModel, varianteModel } from './catalogue/catalogue-models.ts';
import { almacenModel, empresaModel, estadoDocumentoModel, secuenciaDocumentoModel } from './company/company-models.ts';
import { agenciaTransporteModel, agenteModel, contactoModel, grupoClientesModel, proveedorModel } from './contacts/contact-models.ts';
import { customerModel } from './customers/customer-model.ts';
import { docTransformationModel } from './documents/doc-transformation-model.ts';
import { DOCUMENT_TYPES } from './documents/document-types.ts';
import { attachedFileModel, attachedFileRelationModel } from './files/file-models.ts';
import { cuentaBancoModel, divisaModel, formaPagoModel } from './finance/finance-models.ts';
import { ejercicioModel, serieModel } from './fiscal/fiscal-models.ts';
import { paisModel, provinciaModel } from './geography/geography-models.ts';
import { logMessageModel } from './logs/log-model.ts';
import { customerPaymentModel, supplierPaymentModel } from './payments/payment-models.ts';
import { customerReceiptModel, supplierReceiptModel } from './payments/receipt-models.ts';
import { productModel } from './products/product-model.ts';
import { settingsModel } from './settings/settings-model.ts';
import { identificadorFiscalModel, impuestoModel, impuestoZonaModel, retencionModel } from './taxes/tax-models.ts';
import { userModel } from './users/user-model.ts';

/**
 * Every model of the core installation (the reference's core and supporting models), referenced
 * tables before the tables that reference them.
 */
export function coreModels(): Model[] {
  return [
    // configuration, access, service bookkeeping
    settingsModel, attachedFileModel, empresaModel, almacenModel, serieModel, ejercicioModel,
    secuenciaDocumentoModel, estadoDocumentoModel, userModel, apiKeyModel, apiAccessModel, incidentModel, stateVersionModel,
    // geography, taxes, money
    paisModel, provinciaModel, impuestoModel, impuestoZonaModel, retencionModel, divisaModel, cuentaBancoModel,
    formaPagoModel, identificadorFiscalModel,
    // catalogue and contacts
    tarifaModel, grupoClientesModel, fabricanteModel, familiaModel, productModel, agenteModel, customerModel,
    proveedorModel, contactoModel, agenciaTransporteModel, varianteModel, stockModel, productoProveedorModel,
    // documents, then their lines
    ...DOCUMENT_TYPES.map((type) => type.header),
    ...DOCUMENT_TYPES.map((type) => type.line),
    // receipts, payments, relations, files, logs
    customerReceiptModel, supplierReceiptModel, customerPaymentModel, supplierPaymentModel, docTransformationModel,
    attachedFileRelationModel, logMessageModel,
  ];
}
