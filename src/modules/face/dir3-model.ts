import { AppError, validationError } from '../../errors.ts';
import { contactOf } from '../contacts/index.ts';
import { defineModel } from '../../models/define-model.ts';
import { f, now } from '../../models/fields.ts';

/** A DIR3 code (the directory of public bodies' units): a letter, then 8 or 9 letters or digits (`L01280796`, `GE0010539`, `P00000010`). */
export const DIR3_CODE = /^[A-Z][A-Z0-9]{8,9}$/;

/** The centres a Facturae names for FACe, with their Facturae role (`RoleTypeCode`). */
export const CENTRES = [
  { field: 'oficinacontable', role: '01', required: true },
  { field: 'organogestor', role: '02', required: true },
  { field: 'unidadtramitadora', role: '03', required: true },
  { field: 'organoproponente', role: '04', required: false },
] as const;

const code = () => f.string(10);
const name = () => f.string(120);

/**
 * A customer that is a public body (resource `dir3cliente`): the DIR3 codes and names of its
 * oficina contable, órgano gestor and unidad tramitadora (and órgano proponente where it uses one),
 * for the customer (`idcontacto` empty) or for one of its addresses (an invoice to that address
 * takes them first). Written into its invoices' Facturae (`AdministrativeCentres`, roles 01-04);
 * FACe needs the first three (docs/facturae-face.md).
 */
export const dir3ClienteModel = defineModel({
  name: 'Dir3Cliente',
  table: 'clientes_dir3',
  fields: {
    id: f.serial(),
    codcliente: f.string(10, { notNull: true, references: f.ref('clientes', 'codcliente', 'CASCADE') }),
    idcontacto: f.integer({ references: f.ref('contactos', 'idcontacto', 'CASCADE') }),
    oficinacontable: code(),
    nombreoficinacontable: name(),
    organogestor: code(),
    nombreorganogestor: name(),
    unidadtramitadora: code(),
    nombreunidadtramitadora: name(),
    organoproponente: code(),
    nombreorganoproponente: name(),
    creationdate: f.timestamp({ initial: now, readOnly: true }),
  },
  unique: [['codcliente', 'idcontacto']],
  hooks: {
    async beforeSave({ db, values, existing }) {
      // One record a customer and address: the unique key cannot say it where the address is empty (NULLs differ).
      const codcliente = values.codcliente ?? existing?.codcliente;
      const idcontacto = values.idcontacto !== undefined ? values.idcontacto : existing?.idcontacto;
      let same = db.selectFrom('clientes_dir3').select('id').where('codcliente', '=', String(codcliente));
      same = idcontacto === null || idcontacto === undefined ? same.where('idcontacto', 'is', null) : same.where('idcontacto', '=', Number(idcontacto));
      const found = await same.executeTakeFirst();
      if (found && Number(found.id) !== Number(existing?.id)) throw new AppError('duplicate-record');
      // An address's units belong to that customer's address.
      if (idcontacto !== null && idcontacto !== undefined) {
        const contact = await contactOf(db, Number(idcontacto));
        if (!contact || String(contact.codcliente ?? '') !== String(codcliente)) throw validationError({ idcontacto: 'not-of-customer' });
      }
      const errors: Record<string, string> = {};
      for (const { field } of CENTRES) {
        const value = values[field];
        if (value === undefined || value === null || value === '') continue;
        const upper = String(value).trim().toUpperCase();
        if (!DIR3_CODE.test(upper)) errors[field] = 'invalid-dir3-code';
        else values[field] = upper;
      }
      if (Object.keys(errors).length) throw validationError(errors);
    },
  },
});
