import { defineModel } from '../../models/define-model.ts';
import { f } from '../../models/fields.ts';

/**
 * An invoice's VAT as the tax forms read it (internal, docs/tax-forms.md): one row per tax group of
 * the invoice (rate and surcharge), in euros, as the calculation engine summed it when the invoice
 * was written, kept in the same transaction by every write of the invoice. The forms are then SQL
 * sums over these rows and the invoices' headers, whatever the number of invoices.
 */
export const invoiceTaxModel = defineModel({
  name: 'ImpuestoFactura',
  table: 'facturas_impuestos',
  internal: true,
  fields: {
    id: f.serial(),
    /** The sales invoice, or the purchase invoice (one of them). */
    idfacturacli: f.integer({ references: f.ref('facturascli', 'idfactura', 'CASCADE') }),
    idfacturaprov: f.integer({ references: f.ref('facturasprov', 'idfactura', 'CASCADE') }),
    codimpuesto: f.string(10),
    iva: f.double({ notNull: true, default: 0 }),
    recargo: f.double({ notNull: true, default: 0 }),
    /** The group's taxable base, in euros (signed: a credit note's is negative). */
    base: f.double({ notNull: true, default: 0 }),
    /** Its VAT in euros: as invoiced, or self-assessed (base x rate) when `autoliquidada`. */
    cuota: f.double({ notNull: true, default: 0 }),
    cuotarecargo: f.double({ notNull: true, default: 0 }),
    /** A purchase whose VAT the buyer self-assesses (intra-EU acquisition, reverse charge): its invoice charges none. */
    autoliquidada: f.boolean({ notNull: true, default: false }),
  },
});
