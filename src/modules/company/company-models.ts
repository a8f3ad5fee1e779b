import { defineModel } from '../../models/define-model.ts';
import { f, today } from '../../models/fields.ts';
import { AppError } from '../../errors.ts';
import { checkCode, checkEmail, checkFilled, checkUrl, codeOf, current, hasText, type Errors } from '../../models/record-rules.ts';
import { fillDefaults, refuseDeletingDefault } from '../settings/index.ts';

const INVOICE_TYPES = new Set(['FacturaCliente', 'FacturaProveedor']);

const MONTHS = ['enero', 'febrero', 'marzo', 'abril', 'mayo', 'junio', 'julio', 'agosto', 'septiembre', 'octubre', 'noviembre', 'diciembre'];

/** The longest code a sequence can give with its own values (section 3.8 tokens), to check its length. */
function sampleCode(sequence: Record<string, unknown>): string {
  // September has the longest month name, the 30th a two-digit day.
  const [year, month, day] = ['2000', '09', '30'];
  const exercise = hasText(sequence.codejercicio) ? sequence.codejercicio : year;
  const serie = String(sequence.codserie ?? '');
  const number = String(sequence.numero ?? 1);
  const date = `${day}-${month}-${year}`;
  const tokens: Record<string, string> = {
    '{EJE}': exercise,
    '{EJE2}': exercise.slice(-2),
    '{SERIE}': serie,
    '{0SERIE}': serie.padStart(2, '0'),
    '{NUM}': number,
    '{0NUM}': number.padStart(Number(sequence.longnumero ?? 1), '0'),
    '{ANYO}': year,
    '{ANYO2}': year.slice(-2),
    '{MES}': month,
    '{DIA}': day,
    '{FECHA}': date,
    '{HORA}': '00:00:00',
    '{FECHAHORA}': `${date} 00:00:00`,
    '{NOMBREMES}': MONTHS[Number(month) - 1]!,
  };
  const pattern = String(sequence.patron ?? '').replace(/\|[A-Za-z]$/, '');
  return pattern.replace(/\{[0-9A-Z]+\}/g, (token) => tokens[token] ?? token);
}

/** Companies (table `empresas`), facturascripts-model.md 2.1. */
export const empresaModel = defineModel({
  name: 'Empresa',
  table: 'empresas',
  fields: {
    administrador: f.string(100),
    apartado: f.string(10),
    cifnif: f.string(30),
    ciudad: f.string(100),
    codpais: f.string(20),
    codpostal: f.string(10),
    direccion: f.string(200),
    email: f.string(100),
    fax: f.string(30),
    fechaalta: f.date({ initial: today }),
    idempresa: f.serial(),
    idlogo: f.integer({ references: f.ref('attached_files', 'idfile', 'SET NULL') }),
    nombre: f.string(100, { notNull: true }),
    nombrecorto: f.string(32),
    observaciones: f.text(),
    personafisica: f.boolean({ default: false }),
    provincia: f.string(100),
    regimeniva: f.string(50, { initial: () => 'General' }),
    telefono1: f.string(30),
    telefono2: f.string(30),
    tipoidfiscal: f.string(25),
    web: f.string(100),
  },
  validate(values) {
    const errors: Errors = {};
    checkEmail(errors, values);
    checkUrl(errors, values);
    return errors;
  },
  hooks: {
    async beforeSave({ db, values, existing }) {
      // The reference: a new company's country and fiscal id type are the installation's.
      if (!existing) await fillDefaults(db, values, ['codpais', 'tipoidfiscal']);
    },
    async beforeDelete({ db, existing }) {
      await refuseDeletingDefault(db, ['idempresa'], existing.idempresa);
    },
  },
});

/** Warehouses (table `almacenes`), facturascripts-model.md 2.1. */
export const almacenModel = defineModel({
  name: 'Almacen',
  table: 'almacenes',
  fields: {
    activo: f.boolean({ default: true }),
    apartado: f.string(10),
    ciudad: f.string(100),
    codalmacen: f.string(4, { primary: true, generatedCode: true }),
    codpais: f.string(20),
    codpostal: f.string(10),
    direccion: f.string(200),
    idempresa: f.integer({ references: f.ref('empresas', 'idempresa', 'CASCADE') }),
    nombre: f.string(100, { notNull: true }),
    provincia: f.string(100),
    telefono: f.string(30),
  },
  validate(values, existing) {
    const errors: Errors = {};
    checkCode(errors, values, existing, 'codalmacen', codeOf(4));
    return errors;
  },
  hooks: {
    async beforeSave({ db, values, existing }) {
      // The reference: a warehouse without company belongs to the default one, in the default country.
      if (!existing) await fillDefaults(db, values, ['idempresa', 'codpais']);
    },
    async beforeDelete({ db, existing }) {
      await refuseDeletingDefault(db, ['codalmacen'], existing.codalmacen);
    },
  },
});

/** Document numbering sequences (table `secuencias_documentos`), facturascripts-model.md 2.1 and 3.8. */
export const secuenciaDocumentoModel = defineModel({
  name: 'SecuenciaDocumento',
  table: 'secuencias_documentos',
  fields: {
    codejercicio: f.string(4, { references: f.ref('ejercicios', 'codejercicio', 'CASCADE') }),
    codserie: f.string(4, { notNull: true, references: f.ref('series', 'codserie', 'CASCADE') }),
    idempresa: f.integer({ notNull: true, references: f.ref('empresas', 'idempresa', 'CASCADE') }),
    idsecuencia: f.serial(),
    inicio: f.integer({ initial: () => 1 }),
    longnumero: f.integer({ notNull: true, initial: () => 6 }),
    mantenerfecha: f.boolean({ notNull: true, default: false }),
    numero: f.integer({ notNull: true, initial: () => 1 }),
    patron: f.string(50, { notNull: true, initial: () => '{EJE}{SERIE}{0NUM}' }),
    tipodoc: f.string(30, { notNull: true }),
    usarhuecos: f.boolean({ notNull: true, default: false }),
  },
  validate(values, existing) {
    const errors: Errors = {};
    const sequence = current(values, existing);
    const length = sequence.longnumero;
    if (typeof length === 'number' && (length < 1 || length > 10)) errors.longnumero = 'out-of-range';
    const pattern = sequence.patron;
    if (typeof pattern === 'string' && (!/\{0?NUM\}/.test(pattern) || sampleCode(sequence).length > 20)) errors.patron = 'invalid-pattern';
    return errors;
  },
  hooks: {
    beforeSave({ values, existing }) {
      // The reference: inicio is at least 1, numero never below inicio, invoices never keep the date.
      const sequence = current(values, existing);
      const start = typeof sequence.inicio === 'number' && sequence.inicio >= 1 ? sequence.inicio : 1;
      if (sequence.inicio !== start) values.inicio = start;
      if (typeof sequence.numero === 'number' && sequence.numero < start) values.numero = start;
      if (sequence.mantenerfecha === true && INVOICE_TYPES.has(String(sequence.tipodoc))) values.mantenerfecha = false;
    },
  },
});

/** Document statuses per document type (table `estados_documentos`), facturascripts-model.md 2.1 and 3.9. */
export const estadoDocumentoModel = defineModel({
  name: 'EstadoDocumento',
  table: 'estados_documentos',
  fields: {
    activo: f.boolean({ default: true }),
    actualizastock: f.integer({ initial: () => 0 }),
    bloquear: f.boolean({ initial: () => false }),
    color: f.string(15),
    editable: f.boolean({ initial: () => true }),
    generadoc: f.string(30),
    icon: f.string(50),
    idestado: f.serial(),
    nombre: f.string(30, { notNull: true }),
    predeterminado: f.boolean({ initial: () => false }),
    tipodoc: f.string(30, { notNull: true }),
  },
  validate(values, existing) {
    const errors: Errors = {};
    const status = current(values, existing);
    const changed = Object.entries(values).some(([name, value]) => value !== undefined && value !== existing?.[name]);
    if (existing?.bloquear === true && status.bloquear !== false && changed) return { bloquear: 'locked' };
    checkFilled(errors, values, 'nombre', 'tipodoc');
    if (status.predeterminado === true && status.activo === false) errors.predeterminado = 'invalid-value';
    if (status.predeterminado === true && status.editable === false) errors.editable = 'invalid-value';
    if (hasText(status.generadoc)) {
      if (INVOICE_TYPES.has(String(status.tipodoc))) errors.generadoc = 'invalid-value';
      if (typeof status.actualizastock === 'number' && status.actualizastock !== 0) errors.actualizastock = 'invalid-value';
    }
    return errors;
  },
  hooks: {
    beforeSave({ values, existing }) {
      // The reference: a status that generates another document is never editable.
      const status = current(values, existing);
      if (hasText(status.generadoc) && status.editable !== false) values.editable = false;
    },
    beforeDelete({ existing }) {
      // The reference: a locked status (the installation's own) can be neither changed nor deleted.
      if (existing.bloquear === true) throw new AppError('record-locked');
    },
  },
});
