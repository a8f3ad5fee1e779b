/**
 * The one document VERI*FACTU records: an invoice a company issues to its customer (purchase
 * invoices and the other documents get no record).
 */
export const RECORDED_TYPE = 'FacturaCliente';
