import { validationError } from '../../errors.ts';
import { defineModel } from '../../models/define-model.ts';
import { f, now } from '../../models/fields.ts';
import { companyOf } from '../company/index.ts';
import { spanishTaxId } from '../fiscal/index.ts';
import { acceptCertificate } from '../verifactu/index.ts';
import { chainHeadModel } from './record-models.ts';
import { ENVIRONMENTS, TERRITORIES } from './territories.ts';

/** Bizkaia's LROE book a company keeps its files in: 240 legal persons, 140 natural persons with an activity. */
export const LROE_MODELS = ['240', '140'] as const;

/**
 * A company's TicketBAI switch (resource `ticketbaiempresa`, one per company): the treasury that
 * holds its tax competence (`territorio`), its test or production services (`entorno`), its own
 * signing certificate (PKCS#12 base64 and password, written never read back, as VERI*FACTU takes
 * it), Bizkaia's LROE model (and the IAE heading model 140 needs), and `activo`. While active,
 * every customer invoice of the company gets its signed, chained file (docs/ticketbai.md).
 *
 * Rules: an active company needs a valid Spanish NIF; the territory and environment do not change
 * once it has files (they are one chain at one treasury); a company with files keeps its switch.
 * Refusals that need the installation's other systems or configuration (VERI*FACTU on, software
 * not registered) are in exclusive-systems.ts.
 */
export const ticketbaiEmpresaModel = defineModel({
  name: 'TicketbaiEmpresa',
  table: 'ticketbai_empresas',
  fields: {
    idempresa: f.integer({ primary: true, references: f.ref('empresas', 'idempresa', 'CASCADE') }),
    activo: f.boolean({ notNull: true, default: false }),
    territorio: f.string(10, { notNull: true, values: TERRITORIES }),
    entorno: f.string(12, { notNull: true, default: 'pruebas', values: ENVIRONMENTS }),
    modelolroe: f.string(3, { notNull: true, default: '240', values: LROE_MODELS }),
    /** IAE heading (epígrafe) of the activity, for model 140's income block. */
    epigrafe: f.string(7),
    certificado: f.text({ hidden: true }),
    certificadoclave: f.string(255, { hidden: true }),
    certificadotitular: f.string(255, { readOnly: true }),
    certificadocaduca: f.date({ readOnly: true }),
    /** The first day the company issued under TicketBAI. */
    fechaactivacion: f.date({ readOnly: true }),
    creationdate: f.timestamp({ initial: now, readOnly: true }),
  },
  hooks: {
    async beforeSave({ db, values, existing, clock }) {
      const idempresa = Number(values.idempresa ?? existing?.idempresa);
      const value = (name: string) => (values[name] !== undefined ? values[name] : existing?.[name]);
      if (value('activo')) {
        const company = await companyOf(db, idempresa);
        if (company && !spanishTaxId(company.cifnif as string | null)) throw validationError({ cifnif: 'invalid-spanish-tax-id' });
        if (!existing?.fechaactivacion) values.fechaactivacion = clock.today().date;
      }
      if (value('territorio') === 'bizkaia' && value('modelolroe') === '140' && !/^\d{1,7}$/.test(String(value('epigrafe') ?? ''))) throw validationError({ epigrafe: 'required' });
      if (existing && ['territorio', 'entorno'].some((name) => values[name] !== undefined && values[name] !== existing[name])) {
        const head = await db.selectFrom(chainHeadModel.table).select('registros').where('idempresa', '=', idempresa).executeTakeFirst();
        if (Number(head?.registros ?? 0) > 0) throw validationError({ [values.territorio !== undefined && values.territorio !== existing.territorio ? 'territorio' : 'entorno']: 'fiscal-records-exist' });
      }
      acceptCertificate(values, existing);
    },
    async beforeDelete({ db, existing }) {
      const files = await db.selectFrom('registros_ticketbai').select('id').where('idempresa', '=', Number(existing.idempresa)).limit(1).executeTakeFirst();
      if (files) throw validationError({ idempresa: 'fiscal-records-exist' });
    },
    async afterSave({ db, dialect, record, existing }) {
      // The chain's head is made with the switch: issuing then only locks it.
      if (!existing) await dialect.insertIgnore(db.insertInto(chainHeadModel.table).values({ idempresa: Number(record.idempresa), registros: 0 }), ['idempresa']).execute();
    },
  },
});
