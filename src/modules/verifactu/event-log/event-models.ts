import { defineModel } from '../../../models/define-model.ts';
import { f, now } from '../../../models/fields.ts';

/**
 * The event log of NO VERI*FACTU companies (RD 1007/2023 art. 8; EventosSIF.xsd), one chain per
 * company apart from its records: append-only like them, read-only through the API
 * (`eventoverifactu`), each event kept with its XML and signature.
 */
export const eventoVerifactuModel = defineModel({
  name: 'EventoVerifactu',
  table: 'verifactu_eventos',
  alias: 'eventoverifactus',
  readOnlyResource: true,
  appendOnly: { mutable: [] },
  fields: {
    id: f.serial(),
    idempresa: f.integer({ notNull: true, references: f.ref('verifactu_empresas', 'idempresa', 'RESTRICT') }),
    /** TipoEvento (list L2E): 01 start, 02 end of NO VERI*FACTU operation, 03-06 anomaly checks and findings, 08-09 exports, 10 summary. */
    tipo: f.string(2, { notNull: true }),
    fechahorahuso: f.string(25, { notNull: true }),
    idanterior: f.integer(),
    huellaanterior: f.string(64),
    huella: f.string(64, { notNull: true }),
    /** OtrosDatosEvento, or what an anomaly says. */
    detalle: f.string(100),
    registro: f.json({ notNull: true, hidden: true }),
    firmado: f.text({ hidden: true }),
    creationdate: f.timestamp({ initial: now }),
  },
  indexes: [['idempresa', 'id'], ['idempresa', 'tipo', 'id']],
});
