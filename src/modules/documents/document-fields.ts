import { currentTime, f, now, today, RATE_RANGE, zero, type Fields } from '../../models/fields.ts';

/**
 * Column maps of the business documents (facturascripts-model.md 2.5 and 2.6). The reference lists
 * the columns a family shares and then each table's own; a model joins both, and `sortedFields`
 * restores the reference's (alphabetical) column order.
 */
export type DocumentFamily = 'sales' | 'purchase';

/** Header columns of all eight documents; defaults of the reference's `clear()` as `initial`. */
function sharedHeaderFields(): Fields {
  return {
    apartado: f.string(10),
    ciudad: f.string(100),
    codalmacen: f.string(4, { references: f.ref('almacenes', 'codalmacen', 'RESTRICT') }),
    codejercicio: f.string(4, { notNull: true, readOnly: true, references: f.ref('ejercicios', 'codejercicio', 'RESTRICT') }),
    codigo: f.string(20, { notNull: true, readOnly: true }),
    coddivisa: f.string(3, { notNull: true, references: f.ref('divisas', 'coddivisa', 'RESTRICT') }),
    codpais: f.string(20),
    codpostal: f.string(10),
    codserie: f.string(4, { notNull: true, references: f.ref('series', 'codserie', 'RESTRICT') }),
    creationdate: f.timestamp({ initial: now, readOnly: true }),
    dtopor1: f.percent({ initial: zero }),
    dtopor2: f.percent({ initial: zero }),
    direccion: f.string(200, { initial: () => '' }),
    editable: f.boolean({ readOnly: true }),
    fecha: f.date({ notNull: true, initial: today }),
    femail: f.date(),
    hora: f.time({ initial: currentTime }),
    idempresa: f.integer({ references: f.ref('empresas', 'idempresa', 'CASCADE') }),
    idestado: f.integer({ references: f.ref('estados_documentos', 'idestado', 'RESTRICT') }),
    idestado_ant: f.integer({ references: f.ref('estados_documentos', 'idestado', 'SET NULL') }),
    irpf: f.percent({ initial: zero }),
    neto: f.double({ readOnly: true }),
    netosindto: f.double({ default: 0, readOnly: true }),
    nick: f.string(50, { references: f.ref('users', 'nick', 'SET NULL') }),
    numdocs: f.integer({ default: 0 }),
    numero: f.string(12, { notNull: true, readOnly: true }),
    observaciones: f.text(),
    operacion: f.string(30),
    provincia: f.string(100),
    tasaconv: f.double({ ...RATE_RANGE }),
    total: f.double({ readOnly: true }),
    totaleuros: f.double({ readOnly: true }),
    totalirpf: f.double({ readOnly: true }),
    totaliva: f.double({ readOnly: true }),
    totalrecargo: f.double({ readOnly: true }),
    totalsuplidos: f.double({ default: 0, readOnly: true }),
  };
}

/** Header columns shared by `presupuestoscli`, `pedidoscli`, `albaranescli` and `facturascli`. */
export function salesHeaderFields(): Fields {
  return {
    ...sharedHeaderFields(),
    codagente: f.string(10, { references: f.ref('agentes', 'codagente', 'SET NULL') }),
    codcliente: f.string(10, { references: f.ref('clientes', 'codcliente', 'RESTRICT') }),
    codigoenv: f.string(200),
    codpago: f.string(10, { notNull: true, references: f.ref('formaspago', 'codpago', 'RESTRICT') }),
    codtrans: f.string(8, { references: f.ref('agenciastrans', 'codtrans', 'SET NULL') }),
    idcontactoenv: f.integer(),
    idcontactofact: f.integer(),
    numero2: f.string(50),
    totalbeneficio: f.double({ readOnly: true }),
    totalcoste: f.double({ readOnly: true }),
  };
}

/** Header columns shared by `presupuestosprov`, `pedidosprov`, `albaranesprov` and `facturasprov`. */
export function purchaseHeaderFields(): Fields {
  return {
    ...sharedHeaderFields(),
    cifnif: f.string(30, { notNull: true }),
    codproveedor: f.string(10, { references: f.ref('proveedores', 'codproveedor', 'RESTRICT') }),
    numproveedor: f.string(50),
  };
}

/** Columns only invoices have; `table` is the invoice table a refund points back to. */
export function invoiceFields(table: string): Fields {
  return {
    codigorect: f.string(20, { readOnly: true }),
    fechadevengo: f.date(),
    // The invoice's accounting entry, written by the posting module (docs/accounting.md); no foreign
    // key: an entry deleted through its own resource clears it (posting module).
    idasiento: f.integer(),
    idfactura: f.serial(),
    idfacturarect: f.integer({ readOnly: true, references: f.ref(table, 'idfactura', 'RESTRICT') }),
    pagada: f.boolean({ default: false }),
    vencida: f.boolean({ default: false, readOnly: true }),
  };
}

/** Line columns of all eight line tables. */
function sharedLineFields(): Fields {
  return {
    cantidad: f.double({ notNull: true, initial: () => 1 }),
    codimpuesto: f.string(10, { references: f.ref('impuestos', 'codimpuesto', 'RESTRICT') }),
    descripcion: f.text({ initial: () => '' }),
    dtopor: f.percent({ notNull: true, default: 0 }),
    dtopor2: f.percent({ notNull: true, default: 0 }),
    excepcioniva: f.string(20),
    idlinea: f.serial(),
    idproducto: f.integer({ references: f.ref('productos', 'idproducto', 'SET NULL') }),
    irpf: f.percent({ initial: zero }),
    // A rate, or an amount per unit for fixed-amount taxes: never negative.
    iva: f.double({ notNull: true, min: 0 }),
    orden: f.integer({ default: 0 }),
    pvpsindto: f.double({ notNull: true, initial: zero, readOnly: true }),
    pvptotal: f.double({ notNull: true, initial: zero, readOnly: true }),
    pvpunitario: f.double({ notNull: true, initial: zero }),
    recargo: f.double({ notNull: true, min: 0 }),
    referencia: f.string(30),
    servido: f.double({ notNull: true, default: 0, readOnly: true }),
    suplido: f.boolean({ default: false }),
  };
}

/** Line columns shared by the four sales line tables. */
export function salesLineFields(): Fields {
  return {
    ...sharedLineFields(),
    coste: f.double({ initial: zero }),
    mostrar_cantidad: f.boolean({ default: true }),
    mostrar_precio: f.boolean({ default: true }),
    salto_pagina: f.boolean({ default: false }),
  };
}

/** Line columns shared by the four purchase line tables. */
export function purchaseLineFields(): Fields {
  return sharedLineFields();
}
