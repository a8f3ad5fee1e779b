import { randomBytes } from 'node:crypto';
import { validationError } from '../../errors.ts';
import { defineModel } from '../../models/define-model.ts';
import { f, now } from '../../models/fields.ts';
import type { DbExecutor } from '../../db/database.ts';
import { companyOf } from '../company/index.ts';
import { acceptCertificate } from './certificate.ts';
import { chainHeadOf } from './chain-head.ts';
import { PRODUCER } from './producer.ts';
import { spanishTaxId } from '../fiscal/index.ts';

export const MODES = ['off', 'verifactu', 'noverifactu'] as const;
export const ENVIRONMENTS = ['pruebas', 'produccion'] as const;
export type SwitchMode = (typeof MODES)[number];
/** A personal (or representative's) certificate, or a seal certificate: the AEAT serves each on its own host. */
const CERTIFICATE_KINDS = ['personal', 'sello'] as const;

/**
 * VERI*FACTU, once chosen, lasts the whole calendar year (Orden HAC/1177/2024 art. 3.3): a company
 * leaves it only in a later year than the one it chose it in, and before any record of the new year.
 */
async function refuseLeavingVerifactu(db: DbExecutor, existing: Record<string, unknown>, today: string): Promise<void> {
  const year = today.slice(0, 4);
  const { last } = await chainHeadOf(db, Number(existing.idempresa));
  if (String(existing.fechamodo ?? '').slice(0, 4) >= year || (last ?? '').slice(0, 4) >= year) throw validationError({ modo: 'verifactu-until-year-end' });
}

/**
 * A company's VERI*FACTU switch (resource `verifactuempresa`, one record per company): the law keeps
 * one chain and one switch per taxpayer. `modo`: `off` (no records: the default, and a company
 * without this record), `verifactu` (records sent to the AEAT: sending/) or `noverifactu` (records
 * signed, with an event log: signing/, event-log/). `entorno`: the AEAT's test or production services (QR and sending).
 *
 * Rules (RD 1007/2023 art. 3; Orden HAC/1177/2024 art. 3): a company whose records are kept must have
 * a valid Spanish NIF; once in `verifactu` mode it stays there until 31 December of that year (its
 * switch is not deleted meanwhile either); `entorno` does not change once the company has records,
 * and `produccion` needs the producer identified (producer.ts); `numeroinstalacion` is generated
 * once and never reused; `fechaactivacion` is the first day the company had records, `fechamodo`
 * the day its current mode began.
 */
export const verifactuEmpresaModel = defineModel({
  name: 'VerifactuEmpresa',
  table: 'verifactu_empresas',
  fields: {
    idempresa: f.integer({ primary: true, references: f.ref('empresas', 'idempresa', 'CASCADE') }),
    modo: f.string(12, { notNull: true, default: 'off', values: MODES }),
    entorno: f.string(12, { notNull: true, default: 'pruebas', values: ENVIRONMENTS }),
    numeroinstalacion: f.string(100, { notNull: true, readOnly: true }),
    fechaactivacion: f.date({ readOnly: true }),
    fechamodo: f.date({ readOnly: true }),
    tipocertificado: f.string(10, { notNull: true, default: 'personal', values: CERTIFICATE_KINDS }),
    /** The company's own PKCS#12 (base64) and its password: written, never read back. */
    certificado: f.text({ hidden: true }),
    certificadoclave: f.string(255, { hidden: true }),
    /** Who the kept certificate names, and the day it expires. */
    certificadotitular: f.string(255, { readOnly: true }),
    certificadocaduca: f.date({ readOnly: true }),
    creationdate: f.timestamp({ initial: now, readOnly: true }),
  },
  hooks: {
    async beforeSave({ db, values, existing, clock }) {
      const idempresa = Number(values.idempresa ?? existing?.idempresa);
      const before = (existing?.modo as SwitchMode | undefined) ?? 'off';
      const mode = (values.modo as SwitchMode | undefined) ?? before;
      const today = clock.today().date;
      if (mode !== 'off') {
        const company = await companyOf(db, idempresa);
        if (company && !spanishTaxId(company.cifnif as string | null)) throw validationError({ cifnif: 'invalid-spanish-tax-id' });
      }
      if (before === 'verifactu' && mode !== 'verifactu') await refuseLeavingVerifactu(db, existing!, today);
      if (existing && values.entorno !== undefined && values.entorno !== existing.entorno && (await chainHeadOf(db, idempresa)).registros > 0) {
        // Test and production records never share a chain nor an installation.
        throw validationError({ entorno: 'fiscal-records-exist' });
      }
      if (values.entorno === 'produccion' && !PRODUCER.identified) throw validationError({ entorno: 'producer-not-identified' });
      acceptCertificate(values, existing);
      if (!existing) {
        // Installation number: never reused for the taxpayer (the company and the moment, with randomness against clock ties).
        values.numeroinstalacion = `${idempresa}-${clock.timestamp().replace(/\D/g, '')}-${randomBytes(4).toString('hex').toUpperCase()}`;
      }
      if (!existing || mode !== before) values.fechamodo = today;
      if (mode !== 'off' && !existing?.fechaactivacion) values.fechaactivacion = today;
    },
    async beforeDelete({ db, existing, clock }) {
      if (existing.modo === 'verifactu') await refuseLeavingVerifactu(db, existing, clock.today().date);
    },
    async afterSave({ db, dialect, record, existing }) {
      // The head of the company's chain is made with its switch: appending then only locks it.
      if (!existing) await dialect.insertIgnore(db.insertInto('verifactu_cadenas').values({ idempresa: Number(record.idempresa), registros: 0 }), ['idempresa']).execute();
    },
  },
});
