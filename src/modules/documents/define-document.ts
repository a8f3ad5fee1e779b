import { defineModel, type Model, type SaveContext, type Values } from '../../models/define-model.ts';
import { f, sortedFields, type Fields } from '../../models/fields.ts';
import { current } from '../../models/record-rules.ts';
import {
  invoiceFields,
  purchaseHeaderFields,
  purchaseLineFields,
  salesHeaderFields,
  salesLineFields,
  type DocumentFamily,
} from './document-fields.ts';

const HEADER_FIELDS: Record<DocumentFamily, () => Fields> = { sales: salesHeaderFields, purchase: purchaseHeaderFields };
const LINE_FIELDS: Record<DocumentFamily, () => Fields> = { sales: salesLineFields, purchase: purchaseLineFields };

export interface DocumentSpec {
  name: string;
  table: string;
  /** The table's own columns: its primary key (invoices get theirs from `invoice`) and the columns it declares differently. */
  fields: Fields;
  /** Adds the invoice-only columns and the unique number per exercise, serie and company. */
  invoice?: boolean;
}

/** The record-level checks of the reference's `BusinessDocument::test` and its `idempresa` change rule. */
function validateDocument(values: Values, existing: Record<string, unknown> | undefined): Record<string, string> {
  const errors: Record<string, string> = {};
  const numero = values.numero;
  if (numero !== undefined && numero !== null && !(Number.parseInt(String(numero), 10) >= 1)) errors.numero = 'invalid-number';
  if (existing && values.idempresa !== undefined && values.idempresa !== existing.idempresa) errors.idempresa = 'read-only';
  return errors;
}

function documentBeforeSave({ model, values, existing }: SaveContext): void {
  if (!model.fields.finoferta) return;
  const { finoferta, fecha } = current(values, existing);
  if (typeof finoferta === 'string' && typeof fecha === 'string' && finoferta < fecha) values.finoferta = null;
}

function lineBeforeSave(invoice: boolean) {
  return ({ values, existing }: SaveContext): void => {
    const { codimpuesto, servido, cantidad } = current(values, existing);
    if (codimpuesto === undefined || codimpuesto === null || codimpuesto === '') {
      Object.assign(values, { codimpuesto: null, iva: 0, recargo: 0 });
    }
    if (invoice) {
      values.servido = 0;
      return;
    }
    if (typeof servido === 'number' && servido < 0 && typeof cantidad === 'number' && cantidad >= 0) values.servido = 0;
  };
}

/** A document header: the family's shared columns plus the table's own, unique `codigo` per company. */
export function defineDocument(family: DocumentFamily, spec: DocumentSpec): Model {
  const unique = [['codigo', 'idempresa']];
  if (spec.invoice) unique.push(['codejercicio', 'codserie', 'idempresa', 'numero']);
  const fields = sortedFields({ ...HEADER_FIELDS[family](), ...(spec.invoice ? invoiceFields(spec.table) : {}), ...spec.fields });
  const key = Object.entries(fields).find(([, field]) => field.primary)![0];
  return defineModel({
    name: spec.name,
    table: spec.table,
    fields,
    unique,
    // Date order (`sort[fecha]` and the key as the list's tiebreak, so that a page reads 50 index
    // entries, not a whole day's: SQLite and InnoDB end every index with the key, PostgreSQL does
    // not), polling on creationdate, a customer's or supplier's documents by date (the same), date
    // order within a series (invoice chronology), and a number's look-up by numbering
    // (numbering.ts; by exercise, the unique key serves).
    indexes: [['fecha', key], ['creationdate'], [family === 'sales' ? 'codcliente' : 'codproveedor', 'fecha', key], ['idempresa', 'codserie', 'codejercicio', 'fecha'], ['codserie', 'numero']],
    validate: validateDocument,
    hooks: { beforeSave: documentBeforeSave },
    // A document's version is its lines' too: a changed line changes the header's ETag.
    versionParts: (db, record) => db.selectFrom(`lineas${spec.table}`).selectAll().where(key, '=', record[key] as number).orderBy('idlinea').execute(),
  });
}

/**
 * The lines of a document, derived from its header: `Linea<Doc>` in `lineas<table>`, linked to the
 * header (deleted with it); invoice lines may point to the line they refund (`idlinearect`) and by
 * default move stock (-1 sales, +1 purchases), other documents' lines do not.
 */
export function defineDocumentLine(family: DocumentFamily, document: Model, invoice: boolean): Model {
  const { table: documentTable, primaryKey: documentKey } = document;
  const table = `lineas${documentTable}`;
  const own: Fields = {
    actualizastock: f.integer({ notNull: true, default: invoice ? (family === 'sales' ? -1 : 1) : 0, readOnly: true }),
    [documentKey]: f.integer({ notNull: true, references: f.ref(documentTable, documentKey, 'CASCADE') }),
  };
  if (invoice) own.idlinearect = f.integer({ references: f.ref(table, 'idlinea', 'SET NULL') });
  return defineModel({
    name: `Linea${document.name}`,
    table,
    fields: sortedFields({ ...LINE_FIELDS[family](), ...own }),
    hooks: { beforeSave: lineBeforeSave(invoice) },
  });
}
