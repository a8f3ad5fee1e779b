import { defineModel, type SaveContext, type Values } from '../../models/define-model.ts';
import { f, sortedFields, today, type Fields } from '../../models/fields.ts';
import { current } from '../../models/record-rules.ts';

/** Receipt columns of both tables (facturascripts-model.md 2.7); the subject and `gastos` differ. */
function receiptFields(): Fields {
  return {
    coddivisa: f.string(3, { references: f.ref('divisas', 'coddivisa', 'RESTRICT') }),
    codigofactura: f.string(20),
    codpago: f.string(10),
    fecha: f.date({ notNull: true, initial: today }),
    fechapago: f.date(),
    idempresa: f.integer({ notNull: true }),
    idrecibo: f.serial(),
    importe: f.double({ default: 0 }),
    liquidado: f.double({ default: 0 }),
    nick: f.string(50),
    numero: f.integer({ initial: () => 1 }),
    observaciones: f.text(),
    pagado: f.boolean({ default: false }),
    vencido: f.boolean({ default: false }),
    vencimiento: f.date(),
  };
}

/** The reference's receipt save rules: payment date follows `pagado`, due date not before `fecha`, `vencido` derived. */
function receiptBeforeSave({ values, existing, clock }: SaveContext): void {
  const { pagado, fechapago, fecha, vencimiento } = current(values, existing);
  const paid = pagado === true;
  if (!paid) values.fechapago = null;
  else if (!fechapago) values.fechapago = today(clock);
  let due = vencimiento;
  if (typeof fecha === 'string' && (typeof due !== 'string' || due === '' || due < fecha)) due = values.vencimiento = fecha;
  // Overdue from the day after the due date (the same rule as the invoice flags).
  values.vencido = !paid && typeof due === 'string' && due < today(clock);
}

/** The amount of a receipt that was already paid cannot change. */
function validateReceipt(values: Values, existing: Record<string, unknown> | undefined): Record<string, string> | undefined {
  if (existing?.pagado === true && values.importe !== undefined && values.importe !== existing.importe) return { importe: 'read-only' };
  return undefined;
}

/** Customer receipts (`recibospagoscli`): instalments of a customer invoice. */
export const customerReceiptModel = defineModel({
  name: 'ReciboCliente',
  table: 'recibospagoscli',
  fields: sortedFields({
    ...receiptFields(),
    codcliente: f.string(10, { notNull: true, references: f.ref('clientes', 'codcliente', 'RESTRICT') }),
    gastos: f.double({ default: 0 }),
    idfactura: f.integer({ references: f.ref('facturascli', 'idfactura', 'CASCADE') }),
  }),
  validate: validateReceipt,
  hooks: { beforeSave: receiptBeforeSave },
});

/** Supplier receipts (`recibospagosprov`): instalments of a supplier invoice. */
export const supplierReceiptModel = defineModel({
  name: 'ReciboProveedor',
  table: 'recibospagosprov',
  fields: sortedFields({
    ...receiptFields(),
    codproveedor: f.string(10, { notNull: true, references: f.ref('proveedores', 'codproveedor', 'RESTRICT') }),
    idfactura: f.integer({ references: f.ref('facturasprov', 'idfactura', 'CASCADE') }),
  }),
  validate: validateReceipt,
  hooks: { beforeSave: receiptBeforeSave },
});
