import type { DbExecutor } from '../../db/database.ts';
import { AppError, validationError, fieldErrors } from '../../errors.ts';
import { coerceValue } from '../../models/coerce.ts';
import { withinDepth } from '../../models/json-depth.ts';
import type { Values } from '../../models/define-model.ts';
import type { FieldValue } from '../../models/fields.ts';
import { dec, roundNumber } from '../../models/round.ts';
import type { DocumentType } from './document-types.ts';
import { dbBoolean } from '../../db/row-codec.ts';
import type { Settings } from '../../settings.ts';

/** Quantities and prices beyond this are refused: their products would overflow a double's cents. */
const MAX_AMOUNT = 1e12;

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
    else if (typeof coerced.value === 'number' && Math.abs(coerced.value) > MAX_AMOUNT) errors[key] = 'out-of-range';
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

async function taxValues(db: DbExecutor, code: FieldValue | undefined, field = 'codimpuesto'): Promise<Values> {
  if (code === null || code === undefined || code === '') return { codimpuesto: null, iva: 0, recargo: 0 };
  const tax = await db.selectFrom('impuestos').select(['codimpuesto', 'iva', 'recargo']).where('codimpuesto', '=', code).executeTakeFirst();
  if (!tax) throw validationError({ [field]: 'not-found' });
  return { codimpuesto: tax.codimpuesto, iva: Number(tax.iva), recargo: Number(tax.recargo) };
}

/** Price rate formula (Tarifa::apply, facturascripts-model.md 3.3). */
export function applyRate(rate: Record<string, unknown>, coste: number, precio: number): number {
  const x = Number(rate.valorx ?? 0);
  const y = Number(rate.valory ?? 0);
  let price = rate.aplicar === 'coste'
    ? dec(coste).plus(dec(coste).times(x).div(100)).plus(y)
    : dec(precio).minus(dec(precio).times(x).div(100)).minus(y);
  if (dbBoolean(rate.maxpvp) && price.greaterThan(precio)) price = dec(precio);
  if (dbBoolean(rate.mincoste) && price.lessThan(coste)) price = dec(coste);
  return roundNumber(price, 5);
}

/** The product part of a new line (getNewProductLine): description, tax, cost and price. */
export async function productLine(db: DbExecutor, type: DocumentType, referencia: string, defaults: LineDefaults): Promise<Values | undefined> {
  const variant = await db.selectFrom('variantes').selectAll().where((eb) => eb.or([eb('referencia', '=', referencia), eb('codbarras', '=', referencia)])).executeTakeFirst();
  if (!variant) return undefined;
  const product = await db.selectFrom('productos').selectAll().where('idproducto', '=', variant.idproducto).executeTakeFirstOrThrow();
  const coste = Number(variant.coste ?? 0);
  const precio = Number(variant.precio ?? 0);
  const values: Values = {
    idproducto: Number(product.idproducto),
    referencia: String(variant.referencia),
    descripcion: (product.descripcion as string | null) ?? '',
    excepcioniva: (product.excepcioniva as string | null) ?? (defaults.subject.excepcioniva as string | null) ?? null,
    ...(product.codimpuesto ? await taxValues(db, product.codimpuesto as string) : {}),
  };
  if (type.side === 'sales') {
    values.coste = coste;
    const customer = defaults.subject;
    let codtarifa = customer.codtarifa as string | null;
    if (!codtarifa && customer.codgrupo) {
      codtarifa = ((await db.selectFrom('gruposclientes').select('codtarifa').where('codgrupo', '=', customer.codgrupo).executeTakeFirst())?.codtarifa as string | null) ?? null;
    }
    const rate = codtarifa ? await db.selectFrom('tarifas').selectAll().where('codtarifa', '=', codtarifa).executeTakeFirst() : undefined;
    values.pvpunitario = rate ? applyRate(rate, coste, precio) : precio;
  } else {
    values.pvpunitario = coste;
    const prices = await db.selectFrom('productosprov').selectAll()
      .where('codproveedor', '=', defaults.subject.codproveedor).where('referencia', '=', values.referencia).where('precio', '>', 0)
      .orderBy('coddivisa', 'desc').execute();
    const price = prices.find((p) => p.coddivisa === null || p.coddivisa === defaults.coddivisa);
    if (price) Object.assign(values, { pvpunitario: Number(price.precio), dtopor: Number(price.dtopor ?? 0), dtopor2: Number(price.dtopor2 ?? 0) });
  }
  return values;
}

/**
 * A new line from client input (getNewLine + getNewProductLine + the API's field assignment):
 * status stock mode, default tax, inherited IRPF, then the product's data when `referencia` is a
 * known variant or barcode, then the fields the client sent. An unknown reference stays as text.
 */
export async function buildLine(db: DbExecutor, type: DocumentType, input: Values, defaults: LineDefaults, index: number): Promise<Values> {
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
    ...(await taxValues(db, defaults.codimpuesto)),
    ...(type.side === 'sales' ? { coste: 0, mostrar_cantidad: true, mostrar_precio: true, salto_pagina: false } : {}),
  };
  if (typeof input.referencia === 'string' && input.referencia !== '') {
    Object.assign(line, (await productLine(db, type, input.referencia, defaults)) ?? { referencia: input.referencia, idproducto: null });
  }
  const { idlinea: _ignored, iva, recargo, codimpuesto, ...rest } = input;
  if (codimpuesto !== undefined) Object.assign(line, await taxValues(db, codimpuesto, `lineas[${index}].codimpuesto`));
  Object.assign(line, rest);
  if (iva !== undefined) line.iva = iva;
  if (recargo !== undefined) line.recargo = recargo;
  return line;
}
