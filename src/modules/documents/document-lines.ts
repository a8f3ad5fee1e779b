import type { DbExecutor } from '../../db/database.ts';
import { AppError, validationError, fieldErrors } from '../../errors.ts';
import { coerceValue } from '../../models/coerce.ts';
import { withinDepth } from '../../models/json-depth.ts';
import type { Values } from '../../models/define-model.ts';
import type { FieldValue } from '../../models/fields.ts';
import type { DocumentType } from './document-types.ts';
import type { Settings } from '../../settings.ts';
import { applyRate, productsForLines, rateOf, supplierPricesFor, type LineProduct, type Rate, type SupplierPrice } from '../catalogue/index.ts';
import { groupRateOf } from '../contacts/index.ts';
import type { TaxReference } from '../taxes/index.ts';

/** Line fields a client may send (the reference's line fields; `idlinea` only when editing). */
const LINE_INPUT = [
  'referencia', 'descripcion', 'cantidad', 'pvpunitario', 'dtopor', 'dtopor2', 'irpf', 'orden', 'coste',
  'codimpuesto', 'excepcioniva', 'suplido', 'mostrar_cantidad', 'mostrar_precio', 'salto_pagina', 'iva', 'recargo', 'idlinea',
];

/**
 * `lineas` as sent: an array, or a string holding a JSON array (form bodies), of objects.
 * Anything else is 400 `invalid-lines`; an absent `lineas` is an empty list.
 */
export function parseLines(raw: unknown): Array<Record<string, unknown>> {
  if (raw === undefined || raw === null || raw === '') return [];
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch {
      throw new AppError('invalid-lines');
    }
  }
  if (!Array.isArray(value) || !withinDepth(value) || !value.every((line) => line !== null && typeof line === 'object' && !Array.isArray(line))) {
    throw new AppError('invalid-lines');
  }
  return value as Array<Record<string, unknown>>;
}

/** Typed values of one line, or 422 naming `lineas[i].field` for every bad field. */
export function readLine(type: DocumentType, line: Record<string, unknown>, index: number, editing: boolean): Values {
  const values: Values = {};
  const errors = fieldErrors();
  for (const [name, raw] of Object.entries(line)) {
    const field = type.line.fields[name];
    const key = `lineas[${index}].${name}`;
    if (!field || !LINE_INPUT.includes(name) || (name === 'idlinea' && !editing)) {
      errors[key] = 'unknown-field';
      continue;
    }
    // `codimpuesto`/`excepcioniva` "null" mean none, as in the reference.
    const coerced = coerceValue(field, raw, name === 'codimpuesto' || name === 'excepcioniva' ? 'form' : 'json');
    if (!coerced.ok) errors[key] = coerced.reason;
    else values[name] = coerced.value;
  }
  if (Object.keys(errors).length) throw validationError(errors);
  return values;
}

export interface LineDefaults {
  /** The status' stock mode. */
  actualizastock: number;
  /** Default tax code (settings `codimpuesto`). */
  codimpuesto: string | null;
  /** The document's IRPF (from the subject's retention), inherited by lines that do not send one. */
  irpf: number;
  subject: Record<string, unknown>;
  coddivisa: string | null;
}

/** What a new line of a document starts with: its status' stock mode, the default tax, its IRPF. */
export function lineDefaults(settings: Settings, actualizastock: number, subject: Record<string, unknown>, doc: Record<string, unknown>): LineDefaults {
  return {
    actualizastock,
    codimpuesto: settings.codimpuesto,
    irpf: Number(doc.irpf ?? 0),
    subject,
    coddivisa: (doc.coddivisa as string | null) ?? null,
  };
}

/** A tax's code and rates, from the cached taxes; an unknown code is refused naming `field`. */
function taxValues(taxes: TaxReference, code: FieldValue | undefined, field = 'codimpuesto'): Values {
  if (code === null || code === undefined || code === '') return { codimpuesto: null, iva: 0, recargo: 0 };
  const tax = taxes.taxes.get(String(code));
  if (!tax) throw validationError({ [field]: 'not-found' });
  return { codimpuesto: tax.codimpuesto, iva: tax.iva, recargo: tax.recargo };
}

/**
 * The product part of new lines (getNewProductLine) for every reference they name, with as few
 * queries as the document needs: the variants and products at once, the customer's rate once, the
 * supplier's prices at once. A reference that names no variant has no product part.
 */
export async function productParts(
  db: DbExecutor, taxes: TaxReference, type: DocumentType, codes: string[], defaults: LineDefaults, productTypes?: Map<number, string | null>, found?: Map<string, LineProduct>,
  known?: Map<string, LineProduct>,
): Promise<Map<string, Values>> {
  const parts = new Map<string, Values>();
  const products = known ?? await productsForLines(db, [...new Set(codes)]);
  for (const [code, product] of products) found?.set(code, product);
  for (const product of products.values()) productTypes?.set(product.idproducto, product.tipo);
  if (!products.size) return parts;
  let rate: Rate | undefined;
  let supplierPrices = new Map<string, SupplierPrice>();
  if (type.side === 'sales') {
    const customer = defaults.subject;
    let codtarifa = customer.codtarifa as string | null;
    if (!codtarifa && customer.codgrupo) codtarifa = await groupRateOf(db, String(customer.codgrupo));
    rate = codtarifa ? await rateOf(db, codtarifa) : undefined;
  } else {
    supplierPrices = await supplierPricesFor(db, String(defaults.subject.codproveedor), [...new Set([...products.values()].map((p) => p.referencia))], defaults.coddivisa);
  }
  for (const [code, product] of products) {
    const values: Values = {
      idproducto: product.idproducto,
      referencia: product.referencia,
      descripcion: product.descripcion,
      excepcioniva: product.excepcioniva ?? (defaults.subject.excepcioniva as string | null) ?? null,
      ...(product.codimpuesto ? taxValues(taxes, product.codimpuesto) : {}),
    };
    if (type.side === 'sales') {
      values.coste = product.coste;
      values.pvpunitario = rate ? applyRate(rate, product.coste, product.precio) : product.precio;
    } else {
      values.pvpunitario = product.coste;
      const price = supplierPrices.get(product.referencia);
      if (price) Object.assign(values, { pvpunitario: price.precio, dtopor: price.dtopor, dtopor2: price.dtopor2 });
    }
    parts.set(code, values);
  }
  return parts;
}

/** The distinct product codes (`referencia`) that lines given by a client name, in their order. */
export function lineCodes(inputs: Values[]): string[] {
  return [...new Set(inputs.map((input) => input.referencia).filter((code): code is string => typeof code === 'string' && code !== ''))];
}

/**
 * New lines from client input (getNewLine + getNewProductLine + the API's field assignment): status
 * stock mode, default tax, inherited IRPF, then the product's data when `referencia` is a known
 * variant or barcode, then the fields the client sent. An unknown reference stays as text. The
 * products' `tipo` comes along (the calculation reads it), and the products read, by the code
 * asked for, into `products` when given (a new document's commit reads their stock flags).
 */
export async function buildLines(
  db: DbExecutor, taxes: TaxReference, type: DocumentType, inputs: Values[], defaults: LineDefaults, indexes = inputs.map((_, index) => index), products?: Map<string, LineProduct>,
  known?: Map<string, LineProduct>,
): Promise<{ lines: Values[]; productTypes: Map<number, string | null> }> {
  const productTypes = new Map<number, string | null>();
  const parts = await productParts(db, taxes, type, lineCodes(inputs), defaults, productTypes, products, known);
  const lines = inputs.map((input, offset) => {
    const line: Values = {
      actualizastock: defaults.actualizastock,
      cantidad: 1,
      descripcion: '',
      dtopor: 0,
      dtopor2: 0,
      irpf: defaults.irpf,
      orden: 0,
      pvpunitario: 0,
      servido: 0,
      suplido: false,
      excepcioniva: (defaults.subject.excepcioniva as string | null) ?? null,
      ...taxValues(taxes, defaults.codimpuesto),
      ...(type.side === 'sales' ? { coste: 0, mostrar_cantidad: true, mostrar_precio: true, salto_pagina: false } : {}),
    };
    if (typeof input.referencia === 'string' && input.referencia !== '') {
      Object.assign(line, parts.get(input.referencia) ?? { referencia: input.referencia, idproducto: null });
    }
    const { idlinea: _ignored, iva, recargo, codimpuesto, ...rest } = input;
    if (codimpuesto !== undefined) Object.assign(line, taxValues(taxes, codimpuesto, `lineas[${indexes[offset]}].codimpuesto`));
    Object.assign(line, rest);
    if (iva !== undefined) line.iva = iva;
    if (recargo !== undefined) line.recargo = recargo;
    return line;
  });
  return { lines, productTypes };
}
