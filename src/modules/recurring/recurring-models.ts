import { defineModel } from '../../models/define-model.ts';
import { f, now } from '../../models/fields.ts';
import { fieldErrors, validationError } from '../../errors.ts';
import { customerOf } from '../customers/index.ts';
import { refreshTemplate, resumedFrom } from './template-state.ts';
import { current } from '../../models/record-rules.ts';
import { PERIODICITIES } from './schedule.ts';

export const RECURRING_STATES = ['activa', 'pausada', 'finalizada'] as const;

/**
 * A recurring invoice (`facturasrecurrentes`): whom to bill, how often, from when until when, and
 * how each invoice goes (paid, sent by e-mail). The service keeps `proximafecha`, `ultimafecha`,
 * `generadas` and `ultimoerror` (docs/recurring.md).
 */
export const recurringInvoiceModel = defineModel({
  name: 'FacturaRecurrente',
  table: 'facturasrecurrentes',
  fields: {
    idrecurrente: f.serial(),
    codcliente: f.string(10, { notNull: true, references: f.ref('clientes', 'codcliente', 'RESTRICT') }),
    codserie: f.string(4, { references: f.ref('series', 'codserie', 'RESTRICT') }),
    codpago: f.string(10, { references: f.ref('formaspago', 'codpago', 'RESTRICT') }),
    coddivisa: f.string(3, { references: f.ref('divisas', 'coddivisa', 'RESTRICT') }),
    codalmacen: f.string(4, { references: f.ref('almacenes', 'codalmacen', 'RESTRICT') }),
    descripcion: f.string(100),
    observaciones: f.text(),
    periodicidad: f.string(10, { notNull: true, default: 'month', values: PERIODICITIES }),
    intervalo: f.integer({ notNull: true, default: 1, min: 1, max: 999 }),
    fechainicio: f.date({ notNull: true }),
    fechafin: f.date(),
    maxfacturas: f.integer({ min: 1 }),
    estado: f.string(10, { notNull: true, default: 'activa', values: RECURRING_STATES }),
    /** Each invoice is marked paid when issued. */
    pagada: f.boolean({ notNull: true, default: false }),
    /** Each invoice is sent to the customer by e-mail when issued (where the mail module is present). */
    enviaremail: f.boolean({ notNull: true, default: false }),
    proximafecha: f.date({ readOnly: true }),
    ultimafecha: f.date({ readOnly: true }),
    generadas: f.integer({ readOnly: true, default: 0 }),
    ultimoerror: f.string(500, { readOnly: true }),
    /** Periods before this one are not billed (a template resumed without its missed periods). */
    desdeperiodo: f.integer({ readOnly: true, default: 0 }),
    creationdate: f.timestamp({ initial: now, readOnly: true }),
  },
  indexes: [['estado', 'proximafecha']],
  validate(values, existing) {
    const errors = fieldErrors();
    const record = current(values, existing);
    if (record.fechafin && record.fechainicio && String(record.fechafin) < String(record.fechainicio)) errors.fechafin = 'before-start';
    return errors;
  },
  hooks: {
    async beforeSave({ db, values, existing, clock }) {
      // What the template names, each as its field (the database's own refusal would not say which).
      if (values.codcliente !== undefined && !(await customerOf(db, String(values.codcliente)))) throw validationError({ codcliente: 'not-found' });
      for (const [field, table] of NAMED) {
        const code = values[field];
        if (code !== undefined && code !== null && code !== '' && !(await db.selectFrom(table).select(field).where(field, '=', String(code)).executeTakeFirst())) throw validationError({ [field]: 'not-found' });
      }
      if (!existing) return;
      // Periods are numbered by the schedule: once one is billed (or the numbering moved on, a
      // resume), the schedule no longer changes.
      const changed = SCHEDULE_FIELDS.find((name) => values[name] !== undefined && String(values[name]) !== String(existing[name]));
      if (changed && (Number(existing.desdeperiodo ?? 0) > 0 || (await db.selectFrom('facturasrecurrentes_periodos').select('id').where('idrecurrente', '=', Number(existing.idrecurrente)).limit(1).executeTakeFirst()))) {
        throw validationError({ [changed]: 'schedule-in-use' });
      }
      // Back to `activa` from paused or finished: from the first period starting today on;
      // `reanudarFacturaRecurrente` with `facturarpendientes` keeps the missed ones (it sets `desdeperiodo` itself).
      if (existing.estado !== 'activa' && values.estado === 'activa' && values.desdeperiodo === undefined) {
        values.desdeperiodo = Math.max(Number(existing.desdeperiodo ?? 0), resumedFrom({ ...existing, ...values }, clock.today().date));
      }
    },
    async afterSave({ db, record }) {
      return { ...record, ...(await refreshTemplate(db, record)) };
    },
  },
});

const SCHEDULE_FIELDS = ['periodicidad', 'intervalo', 'fechainicio'];
/** The template's other references, checked so that a refusal names its field. */
const NAMED: ReadonlyArray<[string, string]> = [['codserie', 'series'], ['codpago', 'formaspago'], ['coddivisa', 'divisas'], ['codalmacen', 'almacenes']];

/** A recurring invoice's lines: a product (its price on the day unless `pvpunitario` is given) or free text. */
export const recurringLineModel = defineModel({
  name: 'LineaFacturaRecurrente',
  table: 'lineasfacturasrecurrentes',
  fields: {
    idlinea: f.serial(),
    idrecurrente: f.integer({ notNull: true, references: f.ref('facturasrecurrentes', 'idrecurrente', 'CASCADE') }),
    referencia: f.string(30),
    descripcion: f.text(),
    cantidad: f.double({ notNull: true, default: 1 }),
    /** Null: the product's price on the day the invoice is issued. */
    pvpunitario: f.double(),
    dtopor: f.percent({ default: 0 }),
    dtopor2: f.percent({ default: 0 }),
    codimpuesto: f.string(10, { references: f.ref('impuestos', 'codimpuesto', 'RESTRICT') }),
    orden: f.integer({ default: 0 }),
  },
  validate(values, existing) {
    const errors = fieldErrors();
    const record = current(values, existing);
    if (!record.referencia && !record.descripcion) errors.descripcion = 'required';
    if (!record.referencia && (record.pvpunitario === null || record.pvpunitario === undefined)) errors.pvpunitario = 'required';
    return errors;
  },
});

/**
 * The periods billed or skipped (`facturasrecurrentes_periodos`, read-only): one row per template
 * and period under a unique key, written in the invoice's own transaction, so that a period is
 * billed once whatever runs the job, however often, and whatever dies midway.
 */
export const recurringPeriodModel = defineModel({
  name: 'FacturaRecurrentePeriodo',
  table: 'facturasrecurrentes_periodos',
  readOnlyResource: true,
  fields: {
    id: f.serial(),
    idrecurrente: f.integer({ notNull: true, references: f.ref('facturasrecurrentes', 'idrecurrente', 'CASCADE') }),
    periodo: f.integer({ notNull: true }),
    /** The period: its first and last day. */
    desde: f.date({ notNull: true }),
    hasta: f.date({ notNull: true }),
    /** `facturado` or `omitido`. */
    estado: f.string(10, { notNull: true }),
    idfactura: f.integer({ references: f.ref('facturascli', 'idfactura', 'SET NULL') }),
    codigo: f.string(20),
    /**
     * The invoice's e-mail, for a template that sends them: `pendiente` until it is queued (in the
     * same transaction as its mark: once), `encolado`, or why it could not be (`no-recipient` ...).
     */
    correo: f.string(100),
    creado: f.timestamp({ notNull: true, initial: now }),
  },
  unique: [['idrecurrente', 'periodo']],
});
